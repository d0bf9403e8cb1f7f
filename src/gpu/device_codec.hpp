// device_codec.hpp — a codec that runs on a GPU worker's streams beside its blur: it decodes
// compressed files straight into a stack's input places and encodes the results from its output
// places, so a JPEG-to-JPEG blur's pixels never cross to the host. The pool knows only this
// interface; the GPU's JPEG codec (nvjpeg/) implements it. Exposes gpublur types only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "codecs/encode_options.hpp"

namespace gpublur {

/// The codec did not take a file (it does not support it, refused it, or could not start): the
/// caller decodes and encodes that file on the CPU, whose codec says what is wrong with it if
/// anything is.
class CodecDeclined : public Error {
 public:
  using Error::Error;
};

/// What the GPU's codec does for one image beside its blur; the caller fills the requests, the
/// pool the results.
struct CodecWork {
  /// Decode this file on the GPU instead of uploading the image's samples (which may then be
  /// empty: they are allocated where the result comes back to the host).
  const std::vector<std::uint8_t>* decode = nullptr;
  /// Encode the result on the GPU instead of bringing its samples back.
  std::optional<JpegEncodeSettings> encode;
  std::vector<std::uint8_t> encoded;  // out: the file, once encoded (without metadata)
  std::string decoder;                // out: which decoded it ("hardware", "gpu hybrid")
};

/// A file to decode into place `index` of a stack.
struct CompressedImage {
  std::size_t index = 0;
  const std::vector<std::uint8_t>* bytes = nullptr;
};

/// A stack's places on the GPU: image i at `device + i * image_bytes`, rows `pitch` bytes apart,
/// width x height interleaved 8-bit pixels of `channels` channels.
struct DevicePlaces {
  std::uintptr_t device = 0;
  std::size_t pitch = 0;
  std::size_t image_bytes = 0;
  int width = 0, height = 0, channels = 0;
};

/// An image to encode: interleaved 8-bit, 1 (gray) or 3 (RGB) channels at `device`.
struct ImageToEncode {
  std::uintptr_t device = 0;
  std::size_t pitch = 0;
  int width = 0, height = 0, channels = 0;
  JpegEncodeSettings settings;
};

/// One encoded file, or why the codec did not encode it.
struct EncodedImage {
  std::vector<std::uint8_t> bytes;
  std::string error;  // empty where encoded
};

/// One GPU worker's codec. Made and started on the worker's thread, with its context current;
/// decode() is called from that thread, encode() from the worker's finishing thread, one call at
/// a time each.
class DeviceCodec {
 public:
  virtual ~DeviceCodec() = default;
  /// Starts the codec for a worker whose stacks run on `streams` (CUstreams as integers), one
  /// stack at a time on each, of up to `max_stack` images. Throws CodecDeclined where the codec
  /// cannot start (its message is then the reason for every image given to it).
  virtual void start(const std::vector<std::uintptr_t>& streams, std::size_t max_stack) = 0;
  /// The decoder in use, e.g. "hardware".
  virtual std::string decoder() const = 0;
  /// Enqueues on streams[lane] the decode of `images` into `places`. The decoder may decode
  /// `batch` images each time: it fills a short stack up with repeats decoded into places `spare`,
  /// `spare + 1`, ... (the caller's room for `batch` more). Returns the indices it did not take,
  /// with `why`; their places are left undefined. Throws CudaError where the GPU fails.
  virtual std::vector<std::size_t> decode(std::size_t lane,
                                          const std::vector<CompressedImage>& images,
                                          const DevicePlaces& places, std::size_t batch,
                                          std::size_t spare, std::string& why) = 0;
  /// Encodes `images` once `stream`'s work so far is done; returns each one's file, in order,
  /// once all are done. Throws CudaError where the GPU fails.
  virtual std::vector<EncodedImage> encode(std::uintptr_t stream,
                                           const std::vector<ImageToEncode>& images) = 0;
};

/// Makes a worker's codec (on its thread). Empty: the pool has no codec on the GPU.
using DeviceCodecFactory = std::function<std::unique_ptr<DeviceCodec>()>;

}  // namespace gpublur
