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

#include "codecs/encode_options.hpp"
#include "gpu/device_codec.hpp"

namespace gpublur {

/// nvJPEG did not decode or encode this file (it does not support it, it refused it, or it is
/// not there): the CPU's codec takes the file, and says what is wrong with it if anything is.
class GpuJpegError : public CodecDeclined {
 public:
  using CodecDeclined::CodecDeclined;
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
  friend class GpuJpegDecoder;
  friend class GpuJpegEncoder;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One stream's batched decoder: one stack at a time on it.
class GpuJpegDecoder {
 public:
  /// `stream`: a CUstream, as an integer.
  GpuJpegDecoder(GpuJpegEngine& engine, std::uintptr_t stream);
  ~GpuJpegDecoder();
  GpuJpegDecoder(const GpuJpegDecoder&) = delete;
  GpuJpegDecoder& operator=(const GpuJpegDecoder&) = delete;

  /// Enqueues the decode of `jpegs` (at most `batch`), each width x height of `channels` (1:
  /// gray, 3: RGB), into interleaved 8-bit images at `device + index * image_bytes`, rows `pitch`
  /// bytes apart. The decoder always decodes `batch` images (initializing it for a batch size
  /// allocates, and synchronizes the GPU: done once per decoder), so a short batch is filled up
  /// with repeats decoded into places `spare`, `spare + 1`, ... (the caller's room for `batch`
  /// more). Returns the indices it did not take (the decoder does not support them, or refused
  /// them), which the caller decodes otherwise; their images are left undefined.
  /// Initializes the decoder for batches of `batch` RGB images ahead of the first decode (which
  /// would otherwise do it, and synchronize the GPU, in the batch's first stack).
  void initialize(std::size_t batch);

  std::vector<std::size_t> decode(const std::vector<CompressedImage>& jpegs, int channels,
                                  std::uintptr_t device, std::size_t pitch, std::size_t image_bytes,
                                  std::size_t batch, std::size_t spare);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The encoder: rounds of images encoded on several streams and threads at once. Each nvJPEG
/// encode call returns only once its image is encoded (it copies sizes back to the host inside
/// and waits), so on one thread a stack's encodes ran one after another in the calls; each
/// stream here has a thread of its own. Used from one thread at a time.
class GpuJpegEncoder {
 public:
  /// Made in the context current on the calling thread, which its threads use too, with a state
  /// for each of its streams (the first encode then allocates nothing more).
  explicit GpuJpegEncoder(GpuJpegEngine& engine);
  ~GpuJpegEncoder();
  GpuJpegEncoder(const GpuJpegEncoder&) = delete;
  GpuJpegEncoder& operator=(const GpuJpegEncoder&) = delete;

  /// Encodes `images` once `stream`'s work so far is done, and returns each one's JPEG, in
  /// order, once all are done. Throws CudaError where the GPU fails.
  std::vector<EncodedImage> encode(std::uintptr_t stream, const std::vector<ImageToEncode>& images);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpublur
