// jpeg_codec.cpp — libjpeg's decompressor and compressor on memory. libjpeg reports errors by
// longjmp, so each codec's state lives in a struct owned outside the function that calls setjmp
// (its destructor frees libjpeg's objects however that function ends), and that function holds no
// objects of its own that a longjmp could skip.
#include "codecs/jpeg_codec.hpp"

// jpeglib.h needs FILE and size_t declared first.
#include <cstdio>
#include <cstdlib>

#include <jerror.h>
#include <jpeglib.h>

#include <csetjmp>
#include <cstring>
#include <string>

#include "base/errors.hpp"
#include "codecs/jpeg_markers.hpp"

namespace gpublur {
namespace {

constexpr std::uint8_t kExifHeader[6] = {'E', 'x', 'i', 'f', 0, 0};
// An APP1 segment holds 65,533 bytes after its length; "Exif\0\0" takes 6 of them.
constexpr std::size_t kMaxExifBytes = 65533 - sizeof kExifHeader;

struct ErrorManager {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
};

[[noreturn]] void error_exit(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

// Warnings are corrupt data libjpeg works around. A file that ends early would decode with the
// rest of the image gray, so that one is an error; the others (stray bytes between markers, say)
// are counted and passed over, as every viewer does.
void emit_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  if (cinfo->err->msg_code == JWRN_JPEG_EOF || cinfo->err->msg_code == JWRN_HIT_MARKER) {
    error_exit(cinfo);
  }
  cinfo->err->num_warnings++;
}

void init_errors(ErrorManager& errors) {
  jpeg_std_error(&errors.manager);
  errors.manager.error_exit = error_exit;
  errors.manager.emit_message = emit_message;
}

// libjpeg-turbo decodes every scan a progressive file holds, however many, unless its caller stops
// it (djpeg's -maxscans): a file repeating one refinement scan thousands of times costs a minute
// of CPU in a few hundred KB. Ordinary progressive files have about 10 (libjpeg's
// jpeg_simple_progression writes 10, 6 for gray); libtiff and GDAL refuse past 100, and so does
// gpublur.
void limit_scans(j_common_ptr cinfo) {
  const auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (d->input_scan_number <= kMaxJpegScans) return;
  auto* errors = reinterpret_cast<ErrorManager*>(cinfo->err);
  std::snprintf(errors->message, sizeof errors->message,
                "more than %d scans (ordinary progressive files have about 10)", kMaxJpegScans);
  std::longjmp(errors->jump, 1);
}

// The decompressor, created with the scan limit; cinfo.err set already. Call under setjmp.
void create_decompressor(jpeg_decompress_struct& cinfo, jpeg_progress_mgr& progress) {
  jpeg_create_decompress(&cinfo);
  progress.progress_monitor = limit_scans;
  cinfo.progress = &progress;
}

struct Decoder {
  jpeg_decompress_struct cinfo{};
  ErrorManager errors;
  jpeg_progress_mgr progress{};
  bool created = false;
  DecodedImage result;
  std::vector<std::uint8_t> cmyk_row;
  ChromaSubsampling subsampling = ChromaSubsampling::kAuto;
  ~Decoder() {
    if (created) jpeg_destroy_decompress(&cinfo);
  }
};

ChromaSubsampling subsampling_of(const jpeg_decompress_struct& cinfo) {
  if (cinfo.num_components < 3) return ChromaSubsampling::kAuto;
  const int h = cinfo.comp_info[0].h_samp_factor, v = cinfo.comp_info[0].v_samp_factor;
  if (h == 2 && v == 2) return ChromaSubsampling::k420;
  if (h == 2 && v == 1) return ChromaSubsampling::k422;
  if (h == 1 && v == 1) return ChromaSubsampling::k444;
  return ChromaSubsampling::kAuto;
}

// Whether a saved segment holds `size` bytes of `header` and more after them.
bool starts_with(const jpeg_marker_struct* marker, const void* header, std::size_t size) {
  return marker->data_length > size && std::memcmp(marker->data, header, size) == 0;
}

Metadata metadata_of(jpeg_decompress_struct& cinfo) {
  Metadata m;
  JOCTET* icc = nullptr;
  unsigned int icc_size = 0;
  if (jpeg_read_icc_profile(&cinfo, &icc, &icc_size) && icc) {
    m.icc.assign(icc, icc + icc_size);
    std::free(icc);
  }
  for (jpeg_saved_marker_ptr marker = cinfo.marker_list; marker; marker = marker->next) {
    if (marker->marker != JPEG_APP0 + 1) continue;
    if (m.exif.empty() && starts_with(marker, kExifHeader, sizeof kExifHeader)) {
      std::vector<std::uint8_t> exif(marker->data + sizeof kExifHeader,
                                     marker->data + marker->data_length);
      if (looks_like_exif(exif)) m.exif = std::move(exif);
    } else if (m.xmp.empty() && starts_with(marker, kJpegXmpHeader, sizeof kJpegXmpHeader)) {
      m.xmp.assign(marker->data + sizeof kJpegXmpHeader, marker->data + marker->data_length);
    }
  }
  if (cinfo.saw_JFIF_marker && cinfo.X_density > 0 && cinfo.Y_density > 0) {
    const Density::Unit unit = cinfo.density_unit == 1   ? Density::Unit::kInch
                               : cinfo.density_unit == 2 ? Density::Unit::kCentimetre
                                                         : Density::Unit::kNone;
    // JFIF's default 1:1 aspect with no unit says nothing: leave it out.
    if (unit != Density::Unit::kNone || cinfo.X_density != cinfo.Y_density) {
      m.density =
          Density{static_cast<double>(cinfo.X_density), static_cast<double>(cinfo.Y_density), unit};
    }
  }
  return m;
}

// CMYK as Adobe writes it (inverted: 255 is no ink) or plainly, to RGB.
void cmyk_to_rgb(const std::uint8_t* cmyk, std::uint8_t* rgb, int width, bool inverted) {
  for (int x = 0; x < width; ++x, cmyk += 4, rgb += 3) {
    const int k = inverted ? cmyk[3] : 255 - cmyk[3];
    for (int c = 0; c < 3; ++c) {
      const int v = inverted ? cmyk[c] : 255 - cmyk[c];
      rgb[c] = static_cast<std::uint8_t>((v * k + 127) / 255);
    }
  }
}

// The header, and the checks every decode makes before any image data: the size against
// `limits`, and that a Huffman-coded file has at least a bit per 8x8 block of its first component.
// Call under decode's or read_facts's setjmp.
void read_checked_header(jpeg_decompress_struct& cinfo, const std::uint8_t* data, std::size_t size,
                         const DecodeLimits& limits) {
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);  // EXIF
  jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xffff);  // ICC profile
  jpeg_read_header(&cinfo, TRUE);
  check_image_size(
      {cinfo.image_width, cinfo.image_height, cinfo.jpeg_color_space == JCS_GRAYSCALE ? 1 : 3, 1},
      limits);
  if (!cinfo.arith_code) {
    const std::uint64_t blocks =
        (std::uint64_t{cinfo.image_width} + 7) / 8 * ((cinfo.image_height + 7) / 8);
    check_data_holds(std::uint64_t{size} * 8, blocks, "bits of coded blocks");
  }
}

// True on success; false with d.errors.message after libjpeg's error.
bool decode(Decoder& d, const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  jpeg_decompress_struct& cinfo = d.cinfo;
  cinfo.err = &d.errors.manager;
  init_errors(d.errors);
  if (setjmp(d.errors.jump)) return false;
  create_decompressor(cinfo, d.progress);
  d.created = true;
  read_checked_header(cinfo, data, size, limits);
  const bool gray = cinfo.jpeg_color_space == JCS_GRAYSCALE;
  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  cinfo.out_color_space = gray ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
  d.subsampling = subsampling_of(cinfo);
  jpeg_start_decompress(&cinfo);
  const int width = static_cast<int>(cinfo.output_width);
  d.result.image = make_image(width, static_cast<int>(cinfo.output_height), gray ? 1 : 3);
  Image& image = d.result.image.get<Image>();
  if (cmyk) d.cmyk_row.resize(static_cast<std::size_t>(width) * 4);
  const std::size_t row_bytes = image.row_bytes();
  while (cinfo.output_scanline < cinfo.output_height) {
    std::uint8_t* row = image.pixels.data() + cinfo.output_scanline * row_bytes;
    JSAMPROW target = cmyk ? d.cmyk_row.data() : row;
    jpeg_read_scanlines(&cinfo, &target, 1);
    if (cmyk) cmyk_to_rgb(d.cmyk_row.data(), row, width, cinfo.saw_Adobe_marker);
  }
  d.result.metadata = metadata_of(cinfo);
  jpeg_finish_decompress(&cinfo);
  return true;
}

// Why nvJPEG may not decode this file as libjpeg-turbo would (empty: it may). After the header.
std::string gpu_decode_obstacle(const jpeg_decompress_struct& cinfo) {
  if (cinfo.data_precision != 8) return std::to_string(cinfo.data_precision) + "-bit samples";
  if (cinfo.arith_code) return "arithmetic coding";
  if (cinfo.progressive_mode) return "progressive";
  if (cinfo.comps_in_scan != cinfo.num_components) return "more than one scan";
  if (cinfo.jpeg_color_space == JCS_GRAYSCALE) return "";
  if (cinfo.jpeg_color_space != JCS_YCbCr) return "colour space neither gray nor YCbCr";
  const jpeg_component_info* c = cinfo.comp_info;
  const bool chroma_full = c[1].h_samp_factor == 1 && c[1].v_samp_factor == 1 &&
                           c[2].h_samp_factor == 1 && c[2].v_samp_factor == 1;
  if (!chroma_full || subsampling_of(cinfo) == ChromaSubsampling::kAuto)
    return "chroma subsampling other than 4:4:4, 4:2:2 or 4:2:0";
  return "";
}

// Whether the entropy-coded data after the scan's header (where libjpeg stopped reading) ends in
// EOI. Inside it 0xFF is always followed by 0x00 or a restart marker, so FF D9 there is the end.
bool scan_ends(const jpeg_decompress_struct& cinfo, const std::uint8_t* data, std::size_t size) {
  const std::uint8_t* from = cinfo.src->next_input_byte;
  const std::uint8_t* end = data + size;
  for (const std::uint8_t* p = from; p + 1 < end; ++p) {
    if (p[0] == 0xFF && p[1] == 0xD9) return true;
  }
  return false;
}

struct FactsReader {
  jpeg_decompress_struct cinfo{};
  ErrorManager errors;
  jpeg_progress_mgr progress{};
  bool created = false;
  JpegFacts facts;
  ~FactsReader() {
    if (created) jpeg_destroy_decompress(&cinfo);
  }
};

bool read_facts(FactsReader& r, const std::uint8_t* data, std::size_t size,
                const DecodeLimits& limits) {
  jpeg_decompress_struct& cinfo = r.cinfo;
  cinfo.err = &r.errors.manager;
  init_errors(r.errors);
  if (setjmp(r.errors.jump)) return false;
  create_decompressor(cinfo, r.progress);
  r.created = true;
  read_checked_header(cinfo, data, size, limits);
  JpegFacts& f = r.facts;
  f.width = static_cast<int>(cinfo.image_width);
  f.height = static_cast<int>(cinfo.image_height);
  f.channels = cinfo.jpeg_color_space == JCS_GRAYSCALE ? 1 : 3;
  f.subsampling = subsampling_of(cinfo);
  f.metadata = metadata_of(cinfo);
  f.why_not = gpu_decode_obstacle(cinfo);
  if (f.why_not.empty() && !scan_ends(cinfo, data, size)) f.why_not = "no end of image (EOI)";
  f.gpu_decodable = f.why_not.empty();
  return true;
}

struct Encoder {
  jpeg_compress_struct cinfo{};
  ErrorManager errors;
  bool created = false;
  unsigned char* buffer = nullptr;  // jpeg_mem_dest's, malloc'd
  unsigned long size = 0;
  std::vector<std::uint8_t> row;  // the row without its alpha
  ~Encoder() {
    if (created) jpeg_destroy_compress(&cinfo);
    std::free(buffer);
  }
};

void set_subsampling(jpeg_compress_struct& cinfo, ChromaSubsampling s, int quality) {
  if (cinfo.num_components < 3) return;
  s = resolved_subsampling(s, quality);
  cinfo.comp_info[0].h_samp_factor = s == ChromaSubsampling::k444 ? 1 : 2;
  cinfo.comp_info[0].v_samp_factor = s == ChromaSubsampling::k420 ? 2 : 1;
}

void set_density(jpeg_compress_struct& cinfo, const std::optional<Density>& density) {
  if (!density || density->x < 1 || density->y < 1 || density->x > 65535 || density->y > 65535)
    return;
  cinfo.density_unit = density->unit == Density::Unit::kInch         ? 1
                       : density->unit == Density::Unit::kCentimetre ? 2
                                                                     : 0;
  cinfo.X_density = static_cast<UINT16>(density->x + 0.5);
  cinfo.Y_density = static_cast<UINT16>(density->y + 0.5);
}

bool encode(Encoder& e, const Image& image, int quality, ChromaSubsampling subsampling,
            const Metadata& metadata) {
  jpeg_compress_struct& cinfo = e.cinfo;
  cinfo.err = &e.errors.manager;
  init_errors(e.errors);
  if (setjmp(e.errors.jump)) return false;
  jpeg_create_compress(&cinfo);
  e.created = true;
  jpeg_mem_dest(&cinfo, &e.buffer, &e.size);
  const bool gray = image.channels <= 2;
  cinfo.image_width = static_cast<JDIMENSION>(image.width);
  cinfo.image_height = static_cast<JDIMENSION>(image.height);
  cinfo.input_components = gray ? 1 : 3;
  cinfo.in_color_space = gray ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  set_subsampling(cinfo, subsampling, quality);
  set_density(cinfo, metadata.density);
  jpeg_start_compress(&cinfo, TRUE);
  if (!metadata.exif.empty() && metadata.exif.size() <= kMaxExifBytes) {
    jpeg_write_m_header(&cinfo, JPEG_APP0 + 1,
                        static_cast<unsigned int>(sizeof kExifHeader + metadata.exif.size()));
    for (std::uint8_t b : kExifHeader) jpeg_write_m_byte(&cinfo, b);
    for (std::uint8_t b : metadata.exif) jpeg_write_m_byte(&cinfo, b);
  }
  if (!metadata.xmp.empty() && metadata.xmp.size() <= kMaxJpegXmpBytes) {
    jpeg_write_m_header(&cinfo, JPEG_APP0 + 1,
                        static_cast<unsigned int>(sizeof kJpegXmpHeader + metadata.xmp.size()));
    for (char c : kJpegXmpHeader) jpeg_write_m_byte(&cinfo, static_cast<std::uint8_t>(c));
    for (std::uint8_t b : metadata.xmp) jpeg_write_m_byte(&cinfo, b);
  }
  if (icc_to_write(metadata)) {
    jpeg_write_icc_profile(&cinfo, metadata.icc.data(),
                           static_cast<unsigned int>(metadata.icc.size()));
  }
  const auto in_channels = static_cast<std::size_t>(image.channels);
  const std::size_t out_channels = gray ? 1 : 3;
  const bool drop_alpha = in_channels != out_channels;
  if (drop_alpha) e.row.resize(static_cast<std::size_t>(image.width) * out_channels);
  while (cinfo.next_scanline < cinfo.image_height) {
    const std::uint8_t* src = image.pixels.data() + cinfo.next_scanline * image.row_bytes();
    if (drop_alpha) {
      for (std::size_t x = 0; x < static_cast<std::size_t>(image.width); ++x) {
        std::memcpy(&e.row[x * out_channels], src + x * in_channels, out_channels);
      }
      src = e.row.data();
    }
    JSAMPROW row = const_cast<JSAMPROW>(src);  // libjpeg's API is not const; it only reads
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  return true;
}

}  // namespace

DecodedImage decode_jpeg(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits,
                         ChromaSubsampling* subsampling) {
  Decoder d;
  if (!decode(d, data, size, limits))
    throw IoError(std::string("damaged JPEG: ") + d.errors.message);
  d.result.format = ImageFormat::kJpeg;
  if (subsampling) *subsampling = d.subsampling;
  return std::move(d.result);
}

JpegFacts read_jpeg_facts(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  FactsReader r;
  if (!read_facts(r, data, size, limits))
    throw IoError(std::string("damaged JPEG: ") + r.errors.message);
  return std::move(r.facts);
}

std::vector<std::uint8_t> encode_jpeg(const Image& image, int quality,
                                      ChromaSubsampling subsampling, const Metadata& metadata) {
  Encoder e;
  if (!encode(e, image, quality, subsampling, metadata)) {
    throw IoError(std::string("cannot encode JPEG: ") + e.errors.message);
  }
  return std::vector<std::uint8_t>(e.buffer, e.buffer + e.size);
}

}  // namespace gpublur
