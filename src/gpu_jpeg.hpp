// gpu_jpeg.hpp — JPEG decoded and encoded on a GPU by nvJPEG, on the pool's streams, into and
// out of the device buffers the blur reads and writes: the pixels of a JPEG-to-JPEG blur never
// cross to the host. Decoding takes nvJPEG's batched API on the hardware decoder where the GPU
// has one (A100, H100, H200, ...), else its GPU-assisted backend; encoding runs on the CUDA cores.
// What nvJPEG will not take, or refuses, is the caller's to decode on the CPU (GpuJpegError).
// Exposes gpublur types only; nvJPEG itself is loaded at run time (nvjpeg_api.hpp). Built
// without nvJPEG's header, gpu_jpeg_absent.cpp stands in: nothing is ever available.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "encode_options.hpp"
#include "errors.hpp"

namespace gpublur {

/// nvJPEG did not decode or encode this file (it does not support it, it refused it, or it is
/// not there): the CPU's codec takes the file, and says what is wrong with it if anything is.
class GpuJpegError : public Error {
 public:
  using Error::Error;
};

/// How a JPEG output is encoded: the quality and the chroma subsampling (resolved: never kAuto).
struct JpegEncodeSettings {
  int quality = 95;
  ChromaSubsampling subsampling = ChromaSubsampling::k444;
  bool operator==(const JpegEncodeSettings& o) const {
    return quality == o.quality && subsampling == o.subsampling;
  }
};

/// Whether nvJPEG loads (it is looked for once); `why` says why not, `what` which one loaded.
bool gpu_jpeg_available(std::string& why, std::string* what = nullptr);

/// One GPU worker's nvJPEG: its handles, made in the context current on the calling thread, and
/// used from that thread only. Throws GpuJpegError where nvJPEG cannot start.
class GpuJpegEngine {
 public:
  GpuJpegEngine();
  ~GpuJpegEngine();
  GpuJpegEngine(const GpuJpegEngine&) = delete;
  GpuJpegEngine& operator=(const GpuJpegEngine&) = delete;
  /// The batched decoder: "hardware" or "gpu hybrid".
  const std::string& decoder() const;

 private:
  friend class GpuJpegSlot;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A JPEG to decode into image `index` of a stack.
struct JpegToDecode {
  std::size_t index = 0;
  const std::vector<std::uint8_t>* bytes = nullptr;
};

/// One stream's decoding and encoding state: one stack at a time on it.
class GpuJpegSlot {
 public:
  /// `stream`: a CUstream, as an integer.
  GpuJpegSlot(GpuJpegEngine& engine, std::uintptr_t stream);
  ~GpuJpegSlot();
  GpuJpegSlot(const GpuJpegSlot&) = delete;
  GpuJpegSlot& operator=(const GpuJpegSlot&) = delete;

  /// Enqueues the decode of `jpegs` (at most `batch`), each width x height of `channels` (1:
  /// gray, 3: RGB), into interleaved 8-bit images at `device + index * image_bytes`, rows `pitch`
  /// bytes apart. The decoder always decodes `batch` images (initializing it for a batch size
  /// allocates, and synchronizes the GPU: done once per slot), so a short batch is filled up with
  /// repeats decoded into places `spare`, `spare + 1`, ... (the caller's room for `batch` more).
  /// Returns the indices it did not take (the decoder does not support them, or refused them),
  /// which the caller decodes otherwise; their images are left undefined.
  std::vector<std::size_t> decode(const std::vector<JpegToDecode>& jpegs, int channels,
                                  std::uintptr_t device, std::size_t pitch, std::size_t image_bytes,
                                  std::size_t batch, std::size_t spare);

  /// Enqueues the encode of the image at `device` (interleaved 8-bit, 1 or 3 channels) as
  /// bitstream `index`. Throws GpuJpegError.
  void encode(std::size_t index, std::uintptr_t device, std::size_t pitch, int width, int height,
              int channels, const JpegEncodeSettings& settings);

  /// After the stack's encodes: makes the slot's stream wait for them (they run on streams of
  /// their own, forked from it at the first encode).
  void join();

  /// Once the stream has run it: bitstream `index` (a whole JPEG, without our metadata:
  /// jpeg_markers.hpp adds it). Throws GpuJpegError.
  std::vector<std::uint8_t> encoded(std::size_t index);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpublur
