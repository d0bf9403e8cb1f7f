// encode_options.hpp — how images are encoded: the per-format settings the command line exposes.
#pragma once

namespace gpublur {

/// Lowest and highest --png-level: libdeflate's levels (0 stores without compression).
constexpr int kMinPngLevel = 0;
constexpr int kMaxPngLevel = 12;

/// JPEG chroma subsampling; kAuto keeps a JPEG input's own, else 4:4:4 from quality 90 up (as
/// ImageMagick does) and 4:2:0 below.
enum class ChromaSubsampling { kAuto, k444, k422, k420 };

/// What kAuto means where there is no JPEG input to keep: the rule above, one definition for the
/// CPU's encoder (libjpeg-turbo) and the GPU's (nvJPEG).
constexpr ChromaSubsampling resolved_subsampling(ChromaSubsampling s, int quality) {
  if (s != ChromaSubsampling::kAuto) return s;
  return quality >= 90 ? ChromaSubsampling::k444 : ChromaSubsampling::k420;
}

/// How a JPEG output is encoded, where the subsampling is resolved (never kAuto): what the GPU's
/// encoder is given.
struct JpegEncodeSettings {
  int quality = 95;
  ChromaSubsampling subsampling = ChromaSubsampling::k444;
  bool operator==(const JpegEncodeSettings& o) const {
    return quality == o.quality && subsampling == o.subsampling;
  }
};

/// How TIFF outputs hold their image data; kAuto keeps an uncompressed TIFF input uncompressed
/// (as ImageMagick keeps an input's compression) and Deflates every other output.
enum class TiffCompression { kAuto, kNone, kDeflate };

/// Which codec reads and writes JPEG (--codec): kGpu nvJPEG on the GPU for every JPEG it takes
/// (the rest: libjpeg-turbo), or an error without it; kCpu libjpeg-turbo only, the same bytes on
/// every machine; kAuto both at once where nvJPEG is there (jpeg_route.hpp), else libjpeg-turbo.
enum class JpegCodec { kAuto, kGpu, kCpu };

struct EncodeOptions {
  // libdeflate's level 0..12 for PNG's image data (png_encode.hpp). The default is chosen from
  // measurements on a blurred photo: level 1 writes a little more than level 2 in much less of
  // its time, and still less than OpenCV's default (zlib level 1) in a fraction of its.
  int png_level = 1;
  int jpeg_quality = 95;  // 1..100
  ChromaSubsampling jpeg_subsampling = ChromaSubsampling::kAuto;
  int webp_quality = 90;  // 1..100, lossy
  bool webp_lossless = false;
  TiffCompression tiff_compression = TiffCompression::kAuto;
};

}  // namespace gpublur
