// make_seeds.cpp — the fuzz targets' seed corpora, made by gpublur itself: small images in every
// format and variant its encoders write (channels, depths, metadata: from the codecs' registry),
// and hand-made variants of what other programs write (palette and RLE BMPs, colour-mapped and
// bottom-up TGAs, ASCII PNM, PackBits PSDs, GIFs from giflib, tiled TIFFs, progressive and other
// JPEGs libjpeg-turbo writes, XMP in every container), plus the inputs that broke stb_image
// (issue 24), so that every fuzz run starts from them.
//   gpublur_fuzz_seeds DIR      (writes DIR/<target>/<name>)
#include <gif_lib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "codecs/codec_registry.hpp"
#include "codecs/image_encode.hpp"
#include "jit/kernel_cache.hpp"
#include "support/jpeg_variants.hpp"
#include "support/test_bytes.hpp"
#include "support/test_exif.hpp"

namespace {

using namespace gpublur;
using Bytes = std::vector<std::uint8_t>;
namespace fs = std::filesystem;

fs::path root;

void save(const std::string& target, const std::string& name, const Bytes& bytes) {
  fs::create_directories(root / target);
  std::ofstream(root / target / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  if (target != "cache" && target != "exif") {  // the read path starts from every decoder's seeds
    fs::create_directories(root / "read");
    std::ofstream(root / "read" / (target + "-" + name), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
}

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

Image pattern(int w, int h, int channels) {
  Image image = make_image(w, h, channels);
  for (std::size_t i = 0; i < image.pixels.size(); ++i) {
    image.pixels[i] = static_cast<std::uint8_t>((i * 37) ^ (i / 7));
  }
  return image;
}

Image16 pattern16(int w, int h, int channels) {
  Image16 image = make_raster<std::uint16_t>(w, h, channels);
  for (std::size_t i = 0; i < image.pixels.size(); ++i)
    image.pixels[i] = static_cast<std::uint16_t>(i * 4099);
  return image;
}

ImageF pattern_float(int w, int h, int channels) {
  ImageF image = make_raster<float>(w, h, channels);
  for (std::size_t i = 0; i < image.pixels.size(); ++i)
    image.pixels[i] = static_cast<float>(i % 11) * 0.3f;
  return image;
}

// Every format of the codecs' registry, in every depth it writes and every channel count, with
// all the metadata there is (each keeps what it holds): a new format's row has seeds with nothing
// added here. Seeds of what other programs write, and of formats only read, come after.
void encoded_seeds(const Metadata& meta) {
  for (const Codec& codec : codecs()) {
    const std::string target(codec.name), extension(default_extension(codec.format));
    for (int c = 1; c <= 4; ++c) {
      const std::string n = "c" + std::to_string(c);
      if (codec.encode8.encode) {
        save(target, n + extension, encode_image(pattern(13, 9, c), codec.format, {}, meta));
      }
      if (codec.encode16.encode) {
        save(target, n + "-16" + extension, encode_image(pattern16(7, 5, c), codec.format));
      }
      if (codec.encode_float.encode) {
        save(target, n + "-float" + extension, encode_image(pattern_float(13, 9, c), codec.format));
      }
    }
  }
}

void put16(Bytes& b, unsigned v, bool big) {
  b.push_back(static_cast<std::uint8_t>(big ? v >> 8 : v));
  b.push_back(static_cast<std::uint8_t>(big ? v : v >> 8));
}
void put32(Bytes& b, std::uint32_t v, bool big) {
  if (big)
    put16(b, v >> 16, true), put16(b, v & 0xffff, true);
  else
    put16(b, v & 0xffff, false), put16(b, v >> 16, false);
}

// A gray (1 sample) or RGB (3) TIFF of w x h pixels in uncompressed tiles of `tile` pixels a side,
// little-endian, built by hand (gpublur writes strips only).
Bytes tiled_tiff(std::uint32_t w, std::uint32_t h, std::uint32_t tile, unsigned samples) {
  const std::uint32_t across = (w + tile - 1) / tile, down = (h + tile - 1) / tile;
  const std::uint32_t tiles = across * down, tile_bytes = tile * tile * samples;
  struct Entry {
    unsigned tag, type;
    std::uint32_t count, value;
  };
  const std::uint32_t entries = 11;
  const std::uint32_t arrays = 8 + 2 + 12 * entries + 4;  // offsets, then byte counts, then bits
  const std::uint32_t data = arrays + 8 * tiles + 6;
  const std::vector<Entry> ifd = {{256, 4, 1, w},
                                  {257, 4, 1, h},
                                  {258, 3, samples, samples == 1 ? 8 : arrays + 8 * tiles},
                                  {259, 3, 1, 1},
                                  {262, 3, 1, samples == 1 ? 1u : 2u},
                                  {277, 3, 1, samples},
                                  {284, 3, 1, 1},
                                  {322, 4, 1, tile},
                                  {323, 4, 1, tile},
                                  {324, 4, tiles, tiles == 1 ? data : arrays},
                                  {325, 4, tiles, tiles == 1 ? tile_bytes : arrays + 4 * tiles}};
  Bytes b = text("II*");
  b.push_back(0);
  put32(b, 8, false);
  put16(b, entries, false);
  for (const Entry& e : ifd) {
    put16(b, e.tag, false), put16(b, e.type, false), put32(b, e.count, false);
    put32(b, e.value, false);
  }
  put32(b, 0, false);
  for (std::uint32_t t = 0; t < tiles; ++t) put32(b, data + t * tile_bytes, false);
  for (std::uint32_t t = 0; t < tiles; ++t) put32(b, tile_bytes, false);
  for (int s = 0; s < 3; ++s) put16(b, 8, false);  // BitsPerSample of RGB
  for (std::uint32_t i = 0; i < tiles * tile_bytes; ++i)
    b.push_back(static_cast<std::uint8_t>(i * 7));
  return b;
}

Bytes gif(int w, int h, bool interlaced, bool transparent) {
  Bytes out;
  int error = 0;
  GifFileType* g = EGifOpen(
      &out,
      [](GifFileType* f, const GifByteType* data, int n) {
        auto* o = static_cast<Bytes*>(f->UserData);
        o->insert(o->end(), data, data + n);
        return n;
      },
      &error);
  if (!g) return out;
  GifColorType colours[4] = {{0, 0, 0}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
  ColorMapObject* map = GifMakeMapObject(4, colours);
  EGifSetGifVersion(g, true);
  EGifPutScreenDesc(g, w, h, 2, 0, map);
  if (transparent) {
    GifByteType control[4] = {1, 0, 0, 2};
    EGifPutExtension(g, GRAPHICS_EXT_FUNC_CODE, 4, control);
  }
  EGifPutImageDesc(g, 0, 0, w, h, interlaced, nullptr);
  std::vector<GifPixelType> line(static_cast<std::size_t>(w));
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x)
      line[static_cast<std::size_t>(x)] = static_cast<GifPixelType>((x + y) % 4);
    EGifPutLine(g, line.data(), w);
  }
  EGifCloseFile(g, &error);
  GifFreeMapObject(map);
  return out;
}

Bytes psd(int depth, int compression, int channels) {
  Bytes b = text("8BPS");
  put16(b, 1, true);
  b.insert(b.end(), 6, 0);
  put16(b, static_cast<unsigned>(channels), true);
  put32(b, 3, true), put32(b, 4, true);
  put16(b, static_cast<unsigned>(depth), true), put16(b, 3, true);
  put32(b, 0, true), put32(b, 0, true), put32(b, 0, true);
  put16(b, static_cast<unsigned>(compression), true);
  const int row = 4 * depth / 8;
  if (compression == 1) {
    for (int i = 0; i < channels * 3; ++i) put16(b, static_cast<unsigned>(row + 1), true);
  }
  for (int i = 0; i < channels * 3; ++i) {
    if (compression == 1) b.push_back(static_cast<std::uint8_t>(row - 1));
    for (int k = 0; k < row; ++k) b.push_back(static_cast<std::uint8_t>(i * 31 + k));
  }
  return b;
}

Bytes bmp(int bpp, std::uint32_t compression, const Bytes& pixels, int colours) {
  Bytes b = text("BM");
  const std::uint32_t offset = 54 + 4 * static_cast<std::uint32_t>(colours);
  put32(b, offset + static_cast<std::uint32_t>(pixels.size()), false);
  put32(b, 0, false), put32(b, offset, false), put32(b, 40, false);
  put32(b, 6, false), put32(b, 2, false);
  put16(b, 1, false), put16(b, static_cast<unsigned>(bpp), false);
  put32(b, compression, false), put32(b, static_cast<std::uint32_t>(pixels.size()), false);
  put32(b, 2835, false), put32(b, 2835, false),
      put32(b, static_cast<std::uint32_t>(colours), false), put32(b, 0, false);
  for (int i = 0; i < colours; ++i) put32(b, static_cast<std::uint32_t>(i * 0x102030), false);
  b.insert(b.end(), pixels.begin(), pixels.end());
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gpublur_fuzz_seeds DIR\n");
    return 2;
  }
  root = argv[1];
  Metadata meta;
  meta.icc = Bytes(200, 7);
  meta.icc[0] = 0, meta.icc[1] = 0, meta.icc[2] = 0, meta.icc[3] = 200;
  meta.exif = test::camera_exif(true);
  meta.density = Density{72, 72, Density::Unit::kInch};
  meta.xmp = test::xmp_packet("seed");
  encoded_seeds(meta);
  for (int c = 1; c <= 4; ++c) {
    EncodeOptions lossless;
    lossless.webp_lossless = true;
    save("webp", "c" + std::to_string(c) + "-lossless.webp",
         encode_image(pattern(13, 9, c), ImageFormat::kWebp, lossless));
  }
  // Too narrow for run-length scanlines.
  save("hdr", "flat.hdr", encode_image(pattern_float(5, 4, 3), ImageFormat::kHdr));
  save("pnm", "p1.pbm", text("P1\n# bits\n3 2\n1 0 1\n0 1 0\n"));
  save("pnm", "p2.pgm", text("P2 2 2 1000 0 500 999 1000\n"));
  save("pnm", "p3.ppm", text("P3 1 1 255 1 2 3\n"));
  save("pnm", "p4.pbm", Bytes{'P', '4', '\n', '9', ' ', '1', '\n', 0xa5, 0x80});
  save("pnm", "p7.pam",
       text("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nTUPLTYPE "
            "RGB_ALPHA\nENDHDR\n\x01\x02\x03\x04"));
  save("bmp", "p8.bmp", bmp(8, 0, Bytes{0, 1, 2, 3, 4, 5, 0, 0, 6, 7, 8, 9, 1, 2, 0, 0}, 16));
  save("bmp", "p4.bmp", bmp(4, 0, Bytes{0x01, 0x23, 0x45, 0, 0x67, 0x89, 0xab, 0}, 16));
  save("bmp", "rle8.bmp",
       bmp(8, 1, Bytes{3, 1, 0, 3, 2, 3, 4, 0, 0, 0, 0, 2, 1, 1, 2, 5, 0, 1}, 16));
  save("bmp", "rle4.bmp", bmp(4, 2, Bytes{6, 0x12, 0, 0, 0, 4, 0x34, 0x56, 0, 1}, 16));
  Bytes tga_mapped = {0, 1, 9, 0, 0, 3, 0, 24, 0, 0, 0, 0, 3, 0, 1, 0, 8, 0};
  for (int v : {0, 0, 255, 0, 255, 0, 255, 0, 0, 130, 1})
    tga_mapped.push_back(static_cast<std::uint8_t>(v));
  save("tga", "mapped-rle.tga", tga_mapped);
  save("tga", "gray16.tga", Bytes{0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 16, 8, 9, 200});
  for (int depth : {8, 16}) {
    for (int compression : {0, 1}) {
      for (int channels : {3, 4, 5}) {
        save("psd",
             "d" + std::to_string(depth) + "c" + std::to_string(compression) + "n" +
                 std::to_string(channels) + ".psd",
             psd(depth, compression, channels));
      }
    }
  }
  // Past read_file's first 4 KiB, so the read path's target reads the rest too.
  save("bmp", "large.bmp", encode_image(pattern(64, 32, 3), ImageFormat::kBmp));
  save("pnm", "large.pnm", encode_image(pattern16(40, 30, 2), ImageFormat::kPnm));
  save("tiff", "tiles.tif", tiled_tiff(40, 24, 16, 1));
  save("tiff", "tiles-rgb.tif", tiled_tiff(20, 20, 16, 3));
  save("tiff", "tile-larger.tif", tiled_tiff(5, 3, 16, 1));
  {
    const Image rgb = pattern(24, 16, 3);
    test::JpegVariant v;
    v.progressive = true;
    save("jpeg", "progressive.jpg", test::write_jpeg_variant(rgb, v));
    v.h = v.v = 2;
    save("jpeg", "progressive-420.jpg", test::write_jpeg_variant(rgb, v));
    v = {};
    v.arithmetic = true;
    save("jpeg", "arithmetic.jpg", test::write_jpeg_variant(rgb, v));
    v = {};
    v.restart_rows = 1;
    save("jpeg", "restarts.jpg", test::write_jpeg_variant(rgb, v));
    v = {};
    v.cmyk = true;
    save("jpeg", "cmyk.jpg", test::write_jpeg_variant(rgb, v));
  }
  {  // XMP in a compressed iTXt, as other writers may store it
    std::vector<test::PngChunk> chunks =
        test::png_chunks(encode_image(pattern(5, 4, 3), ImageFormat::kPng));
    const std::string header("XML:com.adobe.xmp\0\1\0en\0\0", 24);
    Bytes body(header.begin(), header.end());
    const Bytes zlib = test::zlib_stored(meta.xmp);
    body.insert(body.end(), zlib.begin(), zlib.end());
    chunks.insert(chunks.begin() + 1, test::PngChunk{"iTXt", body});
    save("png", "xmp-compressed.png", test::png_file(chunks));
  }
  save("gif", "plain.gif", gif(7, 5, false, false));
  save("gif", "interlaced.gif", gif(9, 11, true, true));
  // Inputs that broke stb_image (issue 24): an HDR run-length scanline cut short (it looped
  // forever), PNM and BMP headers with overflowing numbers, an interlaced PNG with no image data.
  save("hdr", "cut-rle.hdr",
       text("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 16\n\x02\x02\x00\x10\x82"));
  save("pnm", "overflow.pnm", text("P6 4294967295 4294967295 255\n"));
  Bytes int_min = bmp(24, 0, Bytes(16, 1), 0);
  int_min[22] = 0, int_min[23] = 0, int_min[24] = 0, int_min[25] = 0x80;  // height INT_MIN
  save("bmp", "height-int-min.bmp", int_min);
  save("exif", "camera-le", test::camera_exif(false));
  save("exif", "camera-be-thumbnail", test::camera_exif(true, true));
  save("exif", "orientation",
       Bytes{'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 1, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0});
  CompiledKernel compiled;
  compiled.ptx = ".version 9.0\n.target sm_90\n";
  compiled.cubin = {1, 2, 3};
  compiled.options = {"--gpu-architecture=sm_90"};
  save("cache", "entry", serialize(compiled));
  return 0;
}
