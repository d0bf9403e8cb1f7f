// fuzz_decoder.cpp — a libFuzzer target for one decoder, or for the whole read path (format sniffed
// from the content, as gpublur reads every file). Built once per GB_FUZZ_TARGET by fuzz/build.sh:
// png, jpeg (with its header facts and metadata splice), webp, tiff, gif, bmp, tga, pnm, hdr,
// psd, read (read_file, which sniffs the first bytes before it reads the rest, from a regular file
// and from a pipe, then decode_image), cache (kernel cache entries), exif (an EXIF block from a
// file written into a TIFF and read back). A decoder may
// refuse its input with IoError; anything else (a crash, a sanitizer report, a hang, an allocation
// past libFuzzer's -malloc_limit_mb) is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "codecs/bmp_codec.hpp"
#include "codecs/exif_tiff.hpp"
#include "codecs/gif_decode.hpp"
#include "codecs/hdr_codec.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "codecs/jpeg_codec.hpp"
#include "codecs/jpeg_markers.hpp"
#include "codecs/png_decode.hpp"
#include "codecs/pnm_codec.hpp"
#include "codecs/psd_decode.hpp"
#include "codecs/tga_codec.hpp"
#include "codecs/tiff_codec.hpp"
#include "codecs/webp_codec.hpp"
#include "jit/kernel_cache.hpp"

namespace {

// Images up to 16 megapixels: enough for every real structure, small enough that each run is
// quick; the size checks themselves are the same code at any limit.
constexpr gpublur::DecodeLimits kLimits{std::uint64_t{1} << 24};

#define GB_STRINGIFY2(x) #x
#define GB_STRINGIFY(x) GB_STRINGIFY2(x)

// `data` as read_file reads it from a regular file (a memfd) and, where it fits a pipe's buffer,
// from a pipe; both must give the bytes back whole, or refuse them (IoError).
std::vector<std::uint8_t> read_as_files(const std::uint8_t* data, std::size_t size) {
  const auto whole = [&](const std::vector<std::uint8_t>& got) {
    if (got.size() != size || !std::equal(got.begin(), got.end(), data)) std::abort();
  };
  const int file = ::memfd_create("fuzz.tga", 0);
  if (file < 0 || ::write(file, data, size) != static_cast<ssize_t>(size)) std::abort();
  std::vector<std::uint8_t> bytes;
  try {
    bytes = gpublur::read_file("/proc/self/fd/" + std::to_string(file), kLimits);
    whole(bytes);
  } catch (const gpublur::IoError&) {
  }
  ::close(file);
  int pipe_ends[2];
  if (size <= 65536 && ::pipe(pipe_ends) == 0) {
    if (::write(pipe_ends[1], data, size) != static_cast<ssize_t>(size)) std::abort();
    ::close(pipe_ends[1]);
    try {
      whole(gpublur::read_file("/proc/self/fd/" + std::to_string(pipe_ends[0]), kLimits));
    } catch (const gpublur::IoError&) {
    }
    ::close(pipe_ends[0]);
  }
  return bytes;
}

void decode(const std::uint8_t* data, std::size_t size) {
  using namespace gpublur;
  const std::string target = GB_STRINGIFY(GB_FUZZ_TARGET);
  if (target == "png") decode_png(data, size, kLimits);
  if (target == "jpeg") {
    // The header facts that route a JPEG to the GPU, and the metadata splice its GPU-encoded
    // output goes through (on any bytes: it parses their segments), before the whole decode.
    try {
      const JpegFacts facts = read_jpeg_facts(data, size, kLimits);
      with_jpeg_metadata(std::vector<std::uint8_t>(data, data + size), facts.metadata);
    } catch (const IoError&) {
    }
    decode_jpeg(data, size, kLimits);
  }
  if (target == "webp") decode_webp(data, size, kLimits);
  if (target == "tiff") decode_tiff(data, size, kLimits);
  if (target == "gif") decode_gif(data, size, kLimits);
  if (target == "bmp") decode_bmp(data, size, kLimits);
  if (target == "tga") decode_tga(data, size, kLimits);
  if (target == "pnm") decode_pnm(data, size, kLimits);
  if (target == "hdr") decode_hdr(data, size, kLimits);
  if (target == "psd") decode_psd(data, size, kLimits);
  if (target == "read") {
    read_as_files(data, size);
    decode_image(std::vector<std::uint8_t>(data, data + size), "fuzz.tga", kLimits);
  }
  if (target == "cache") deserialize(std::vector<std::uint8_t>(data, data + size));
  if (target == "exif") {
    Metadata m;
    m.exif.assign(data, data + size);
    what_tiff_drops(m.exif);
    const Image pixels = make_image(2, 2, 3);
    const std::vector<std::uint8_t> tiff = encode_image(pixels, ImageFormat::kTiff, {}, m);
    decode_image(tiff, "fuzz.tif", kLimits);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    decode(data, size);
  } catch (const gpublur::IoError&) {  // a refused input is the expected outcome
  }
  return 0;
}
