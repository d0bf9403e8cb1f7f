// webp_codec.cpp — libwebp's simple decode and encode calls, and its (de)muxer for metadata.
#include "codecs/webp_codec.hpp"

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include <memory>
#include <string>

#include "base/errors.hpp"
#include "codecs/image_encode.hpp"

namespace gpublur {
namespace {

struct DemuxDeleter {
  void operator()(WebPDemuxer* d) const noexcept { WebPDemuxDelete(d); }
};
struct MuxDeleter {
  void operator()(WebPMux* m) const noexcept { WebPMuxDelete(m); }
};

std::vector<std::uint8_t> chunk_of(const WebPDemuxer* demux, const char* fourcc) {
  WebPChunkIterator chunk;
  std::vector<std::uint8_t> bytes;
  if (WebPDemuxGetChunk(demux, fourcc, 1, &chunk)) {
    bytes.assign(chunk.chunk.bytes, chunk.chunk.bytes + chunk.chunk.size);
    WebPDemuxReleaseChunkIterator(&chunk);
  }
  return bytes;
}

Metadata metadata_of(const std::uint8_t* data, std::size_t size) {
  Metadata m;
  const WebPData webp{data, size};
  const std::unique_ptr<WebPDemuxer, DemuxDeleter> demux(WebPDemux(&webp));
  if (!demux) return m;
  m.icc = chunk_of(demux.get(), "ICCP");
  std::vector<std::uint8_t> exif = chunk_of(demux.get(), "EXIF");
  // Some writers keep JPEG's "Exif\0\0" in front of the TIFF structure.
  if (exif.size() > 6 && std::equal(exif.begin(), exif.begin() + 6, "Exif\0\0")) {
    exif.erase(exif.begin(), exif.begin() + 6);
  }
  if (looks_like_exif(exif)) m.exif = std::move(exif);
  m.xmp = chunk_of(demux.get(), "XMP ");
  return m;
}

const char* status_text(VP8StatusCode status) {
  switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY:
      return "out of memory";
    case VP8_STATUS_INVALID_PARAM:
      return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR:
      return "damaged bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE:
      return "a feature libwebp does not support";
    case VP8_STATUS_NOT_ENOUGH_DATA:
      return "truncated file";
    default:
      return "cannot decode";
  }
}

struct PictureFreer {
  void operator()(WebPPicture* p) const noexcept { WebPPictureFree(p); }
};

int append(const std::uint8_t* data, std::size_t size, const WebPPicture* picture) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(picture->custom_ptr);
  out->insert(out->end(), data, data + size);
  return 1;
}

// libwebp's advanced API: lossless keeps the colour under fully transparent pixels exactly
// (`exact`), which the simple calls do not.
std::vector<std::uint8_t> encode_picture(const Image& image, int quality, bool lossless) {
  WebPConfig config;
  if (!WebPConfigInit(&config))
    throw IoError("cannot encode WebP: libwebp's version does not match");
  config.lossless = lossless ? 1 : 0;
  config.quality = lossless ? 75.0f : static_cast<float>(quality);
  config.exact = lossless ? 1 : 0;
  WebPPicture picture;
  if (!WebPPictureInit(&picture))
    throw IoError("cannot encode WebP: libwebp's version does not match");
  picture.use_argb = lossless ? 1 : 0;
  picture.width = image.width;
  picture.height = image.height;
  const std::unique_ptr<WebPPicture, PictureFreer> owned(&picture);
  const int stride = static_cast<int>(image.row_bytes());
  const int imported = image.channels == 4
                           ? WebPPictureImportRGBA(&picture, image.pixels.data(), stride)
                           : WebPPictureImportRGB(&picture, image.pixels.data(), stride);
  if (!imported) throw IoError("cannot encode WebP: out of memory");
  std::vector<std::uint8_t> out;
  picture.writer = append;
  picture.custom_ptr = &out;
  if (!WebPEncode(&config, &picture)) {
    throw IoError(
        "cannot encode WebP (" + std::to_string(image.width) + "x" + std::to_string(image.height) +
        "; WebP holds at most 16383 pixels a side): error " + std::to_string(picture.error_code));
  }
  return out;
}

}  // namespace

DecodedImage decode_webp(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  WebPBitstreamFeatures features;
  const VP8StatusCode status = WebPGetFeatures(data, size, &features);
  if (status != VP8_STATUS_OK) throw IoError(std::string("damaged WebP: ") + status_text(status));
  if (features.has_animation) throw IoError("animated WebP: gpublur blurs still images");
  check_image_size({features.width, features.height, features.has_alpha ? 4 : 3, 1}, limits);
  DecodedImage result;
  result.format = ImageFormat::kWebp;
  result.image = make_image(features.width, features.height, features.has_alpha ? 4 : 3);
  Image& image = result.image.get<Image>();
  const int stride = static_cast<int>(image.row_bytes());
  const std::uint8_t* done =
      features.has_alpha
          ? WebPDecodeRGBAInto(data, size, image.pixels.data(), image.pixels.size(), stride)
          : WebPDecodeRGBInto(data, size, image.pixels.data(), image.pixels.size(), stride);
  if (!done) throw IoError("damaged WebP: the image data does not decode");
  result.metadata = metadata_of(data, size);
  return result;
}

std::vector<std::uint8_t> encode_webp(const Image& input, int quality, bool lossless,
                                      const Metadata& metadata) {
  const Image colour = input.channels <= 2 ? gray_to_colour(input) : Image{};  // WebP holds no gray
  const Image& image = input.channels <= 2 ? colour : input;
  const std::vector<std::uint8_t> encoded = encode_picture(image, quality, lossless);
  const std::size_t size = encoded.size();
  const bool icc = icc_to_write(metadata);
  if (!icc && metadata.exif.empty() && metadata.xmp.empty()) return encoded;
  const WebPData bitstream{encoded.data(), size};
  const std::unique_ptr<WebPMux, MuxDeleter> mux(WebPMuxCreate(&bitstream, 0));
  if (!mux) throw IoError("cannot add metadata to the WebP file");
  const WebPData profile{metadata.icc.data(), metadata.icc.size()};
  const WebPData exif{metadata.exif.data(), metadata.exif.size()};
  const WebPData xmp{metadata.xmp.data(), metadata.xmp.size()};
  if ((icc && WebPMuxSetChunk(mux.get(), "ICCP", &profile, 1) != WEBP_MUX_OK) ||
      (!metadata.exif.empty() && WebPMuxSetChunk(mux.get(), "EXIF", &exif, 1) != WEBP_MUX_OK) ||
      (!metadata.xmp.empty() && WebPMuxSetChunk(mux.get(), "XMP ", &xmp, 1) != WEBP_MUX_OK)) {
    throw IoError("cannot add metadata to the WebP file");
  }
  WebPData assembled;
  WebPDataInit(&assembled);
  if (WebPMuxAssemble(mux.get(), &assembled) != WEBP_MUX_OK) {
    throw IoError("cannot add metadata to the WebP file");
  }
  std::vector<std::uint8_t> out(assembled.bytes, assembled.bytes + assembled.size);
  WebPDataClear(&assembled);
  return out;
}

}  // namespace gpublur
