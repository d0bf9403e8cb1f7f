// fuzz_decoder.cpp — a libFuzzer target for each decoder of the codecs' registry, for the whole
// read path, for kernel cache entries and for EXIF into TIFF: one binary, fuzzing the target its
// name gives (fuzz/build.sh links fuzz_png, fuzz_jpeg, ... to it, the names `fuzz_decoder
// --targets` lists). A format's target runs its row's decoder (jpeg: its header facts and
// metadata splice too; pnm, bmp and tiff: the raw layout's samples against the decoder's); read:
// read_file, which sniffs the first bytes before it reads the rest, from a regular file and from a
// pipe, then decode_image; cache: kernel cache entries; exif: an
// EXIF block from a file written into a TIFF and read back. A decoder may refuse its input with
// IoError; anything else (a crash, a sanitizer report, a hang, an allocation past libFuzzer's
// -malloc_limit_mb) is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "codecs/codec_registry.hpp"
#include "codecs/exif_tiff.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "codecs/jpeg_codec.hpp"
#include "codecs/jpeg_markers.hpp"
#include "codecs/raw_samples.hpp"
#include "jit/kernel_cache.hpp"

namespace {

// Images up to 16 megapixels: enough for every real structure, small enough that each run is
// quick; the size checks themselves are the same code at any limit.
constexpr gpublur::DecodeLimits kLimits{std::uint64_t{1} << 24};

// The target this binary fuzzes, from its name (fuzz_png: png); set once, before any input.
std::string target;

// The targets beyond the registry's decoders.
constexpr const char* kOtherTargets[] = {"read", "cache", "exif"};

std::vector<std::string> target_names() {
  std::vector<std::string> names;
  for (const gpublur::Codec& codec : gpublur::codecs()) names.emplace_back(codec.name);
  names.insert(names.end(), std::begin(kOtherTargets), std::end(kOtherTargets));
  return names;
}

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

// The header facts that route a JPEG to the GPU, and the metadata splice its GPU-encoded output
// goes through (on any bytes: it parses their segments), before the whole decode.
void jpeg_facts(const std::uint8_t* data, std::size_t size) {
  using namespace gpublur;
  try {
    const JpegFacts facts = read_jpeg_facts(data, size, kLimits);
    with_jpeg_metadata(std::vector<std::uint8_t>(data, data + size), facts.metadata);
  } catch (const IoError&) {
  }
}

// Where a raw file's layout (raw_samples.hpp, read as raw_read reads it: the first 4 KiB, a TIFF's
// directory and values wherever) says its samples can be read as they lie, row by row, the
// decoder must take the file and give those samples, sample for sample, and the metadata they
// come with.
void raw_agrees(const std::uint8_t* data, std::size_t size) {
  using namespace gpublur;
  const ReadAt read = [&](std::uint64_t at, std::size_t n, std::uint8_t* out) {
    if (at > size || n > size - at) return false;
    std::memcpy(out, data + at, n);
    return true;
  };
  const std::optional<RawLayout> layout = raw_layout(read, size, kLimits);
  if (!layout) return;
  DecodedImage raw = raw_image(*layout);
  auto* raster = static_cast<std::uint8_t*>(raw.image.data());
  const auto row = static_cast<std::size_t>(layout->row_bytes());
  for (std::size_t i = 0; i < static_cast<std::size_t>(layout->height); ++i) {
    std::memcpy(raster + layout->raster_row(i) * row, data + layout->row_offset(i), row);
  }
  const auto bytes = static_cast<std::size_t>(layout->bytes());
  reorder_samples(*layout, raster, bytes);
  if (layout->alpha_if_any && !any_alpha(raster, bytes)) {
    raw.image = without_alpha(raw.image.get<Image>());
  }
  DecodedImage decoded;
  try {
    decoded = decode_image(std::vector<std::uint8_t>(data, data + size), "fuzz.pnm", kLimits);
  } catch (const IoError&) {
    std::abort();  // the layout took a file the decoder refuses
  }
  const std::optional<Density>& a = decoded.metadata.density;
  const std::optional<Density>& b = raw.metadata.density;
  if (decoded.image.sample_format() != raw.image.sample_format() ||
      decoded.image.byte_count() != raw.image.byte_count() ||
      decoded.image.channels() != raw.image.channels() ||
      std::memcmp(decoded.image.data(), raw.image.data(), raw.image.byte_count()) != 0 ||
      a.has_value() != b.has_value() || (a && !(*a == *b)) ||
      decoded.metadata.icc != raw.metadata.icc || decoded.metadata.xmp != raw.metadata.xmp ||
      decoded.metadata.exif != raw.metadata.exif ||
      decoded.tiff_compression != raw.tiff_compression) {
    std::abort();
  }
}

void decode(const std::uint8_t* data, std::size_t size) {
  using namespace gpublur;
  if (const Codec* codec = find_codec(target)) {
    if (codec->format == ImageFormat::kJpeg) jpeg_facts(data, size);
    if (codec->format == ImageFormat::kPnm || codec->format == ImageFormat::kBmp ||
        codec->format == ImageFormat::kTiff) {
      raw_agrees(data, size);
    }
    codec->decode(data, size, kLimits);
    return;
  }
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
    for (const TiffCompression c : {TiffCompression::kDeflate, TiffCompression::kNone}) {
      EncodeOptions options;
      options.tiff_compression = c;  // the EXIF spliced after Deflated strips and after raw ones
      decode_image(encode_image(pixels, ImageFormat::kTiff, options, m), "fuzz.tif", kLimits);
    }
  }
}

}  // namespace

// `fuzz_decoder --targets` lists the targets, one a line; run under another name, fuzz_TARGET
// fuzzes TARGET.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const std::vector<std::string> names = target_names();
  if (*argc == 2 && std::string((*argv)[1]) == "--targets") {
    for (const std::string& name : names) std::printf("%s\n", name.c_str());
    std::exit(0);
  }
  const std::string program = (*argv)[0];
  const std::string name = program.substr(program.find_last_of('/') + 1);
  if (name.rfind("fuzz_", 0) == 0 &&
      std::find(names.begin(), names.end(), name.substr(5)) != names.end()) {
    target = name.substr(5);
    return 0;
  }
  std::fprintf(stderr, "%s: run me as fuzz_TARGET (a link), TARGET one of:", name.c_str());
  for (const std::string& n : names) std::fprintf(stderr, " %s", n.c_str());
  std::fprintf(stderr, "\n");
  std::exit(2);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    decode(data, size);
  } catch (const gpublur::IoError&) {  // a refused input is the expected outcome
  }
  return 0;
}
