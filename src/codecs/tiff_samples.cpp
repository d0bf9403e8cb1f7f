// tiff_samples.cpp — the first directory by libtiff (as decode_tiff opens it, through the caller's
// reads), the conditions under which decode_tiff's image is the strips' bytes, and EXIF read by
// exif_from_tiff from a copy of the file that holds only what it reads.
#include "codecs/tiff_samples.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "base/errors.hpp"
#include "codecs/exif_tiff.hpp"
#include "codecs/tiff_directory.hpp"
#include "codecs/tiff_handle.hpp"

namespace gpublur {
namespace {

constexpr std::uint16_t kExifPointer = 34665;
constexpr std::uint16_t kGpsPointer = 34853;
constexpr std::uint16_t kInteropPointer = 40965;
constexpr std::size_t kEntryBytes = 12;
// EXIF's directories and values read for exif_from_tiff, at most: beyond it, the file is left to
// the decoder (a camera's EXIF is tens of KB; a tag can claim any part of the file).
constexpr std::uint64_t kMaxExifBytes = std::uint64_t{64} << 20;

struct FreeDeleter {
  void operator()(std::uint8_t* p) const noexcept { std::free(p); }
};

// A file's bytes as far as they are read into it, zeros elsewhere: calloc'd, so that the pages of
// what is never read (the strips) are never touched.
class SparseFile {
 public:
  SparseFile(const ReadAt& read, std::uint64_t size)
      : read_(read),
        size_(size),
        bytes_(static_cast<std::uint8_t*>(std::calloc(static_cast<std::size_t>(size), 1))) {}
  const std::uint8_t* data() const { return bytes_.get(); }
  std::uint64_t size() const { return size_; }
  /// Reads [at, at + n) of the file, which lies within it; false where it cannot, or past the
  /// bytes allowed.
  bool fill(std::uint64_t at, std::uint64_t n) {
    read_bytes_ += n;
    return bytes_ && read_bytes_ <= kMaxExifBytes &&
           read_(at, static_cast<std::size_t>(n), bytes_.get() + at);
  }

 private:
  const ReadAt& read_;
  std::uint64_t size_;
  std::unique_ptr<std::uint8_t, FreeDeleter> bytes_;
  std::uint64_t read_bytes_ = 0;
};

// Reads into `f` the directory at `offset`, every value of it, and the directories EXIF's pointers
// in it name (EXIF and GPS; interoperability in EXIF's), `depth` levels down: all that
// exif_from_tiff reads of them (by tiff_directory's bounds: what does not fit, it does not read).
bool fetch_directory(SparseFile& f, tiff::ByteOrder order, std::uint32_t offset, int depth) {
  const std::uint64_t size = f.size();
  if (offset < 8 || size < 2 || offset > size - 2) return true;
  if (!f.fill(offset, 2)) return false;
  const std::uint64_t count = tiff::get16(f.data() + offset, order);
  const std::uint64_t table = std::uint64_t{offset} + 2;
  if (table + count * kEntryBytes + 4 > size) return true;
  if (!f.fill(table, count * kEntryBytes + 4)) return false;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint8_t* e = f.data() + table + i * kEntryBytes;
    const std::uint16_t tag = tiff::get16(e, order);
    const std::uint64_t bytes =
        std::uint64_t{tiff::get32(e + 4, order)} * tiff::type_size(tiff::get16(e + 2, order));
    if (bytes > 4) {
      const std::uint32_t at = tiff::get32(e + 8, order);
      if (at <= size && bytes <= size - at && !f.fill(at, bytes)) return false;
    } else if (bytes == 4 && depth > 0 &&
               (tag == kExifPointer || tag == kGpsPointer || tag == kInteropPointer) &&
               !fetch_directory(f, order, tiff::get32(e + 8, order), depth - 1)) {
      return false;
    }
  }
  return true;
}

// exif_from_tiff's block for the file, from the parts of it that it reads; nullopt where they
// cannot be read.
std::optional<std::vector<std::uint8_t>> exif_of(const ReadAt& read, std::uint64_t file_size,
                                                 const tiff::Header& header) {
  SparseFile f(read, file_size);
  if (!f.fill(0, 8) || !fetch_directory(f, header.order, header.first, 2)) return std::nullopt;
  return exif_from_tiff(f.data(), static_cast<std::size_t>(file_size));
}

// Whether decode_tiff copies the strips' samples into its image as they are (read_samples'
// one-copy path, then normalise doing nothing), the image within `limits`.
bool stored_as_decoded(tiff::Handle& h, const tiff::Layout& l, const DecodeLimits& limits) {
  TIFF* tif = h.get();
  std::uint16_t fill = FILLORDER_MSB2LSB;
  TIFFGetFieldDefaulted(tif, TIFFTAG_FILLORDER, &fill);
  const bool alpha = l.spp == 2 || l.spp == 4;
  if (l.compression != COMPRESSION_NONE || l.planar != PLANARCONFIG_CONTIG || TIFFIsTiled(tif) ||
      !tiff::direct(l) || l.photometric == PHOTOMETRIC_MINISWHITE ||  // inverted
      (alpha && l.associated_alpha) ||                                // divided by alpha
      fill != FILLORDER_MSB2LSB) {                                    // bits reversed
    return false;
  }
  try {
    check_image_size(tiff::decoded_size(l), limits);
    tiff::block_bytes(h, l);
  } catch (const IoError&) {
    return false;
  }
  return true;
}

// The strips decode_tiff reads (TIFFReadEncodedStrip's rows at TIFFComputeStrip's index), each
// of exactly its rows' bytes by its count, and all within the file.
bool find_strips(TIFF* tif, const tiff::Layout& l, std::uint64_t file_size, TiffSamples& s) {
  std::uint32_t rows_per_strip = l.height;
  TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
  if (rows_per_strip == 0) return false;
  rows_per_strip = std::min(rows_per_strip, l.height);
  const std::uint64_t row = std::uint64_t{l.width} * l.spp * (l.bps / 8);
  for (std::uint32_t y = 0; y < l.height; y += rows_per_strip) {
    const std::uint32_t rows = std::min(rows_per_strip, l.height - y);
    const std::uint32_t index = TIFFComputeStrip(tif, y, 0);
    const std::uint64_t bytes = rows * row;
    if (index >= TIFFNumberOfStrips(tif) || TIFFVStripSize64(tif, rows) != bytes ||
        TIFFGetStrileByteCount(tif, index) != bytes) {
      return false;
    }
    const std::uint64_t at = TIFFGetStrileOffset(tif, index);
    if (at > file_size || bytes > file_size - at) return false;
    s.strips.push_back(at);
  }
  s.rows_per_strip = rows_per_strip;
  return true;
}

}  // namespace

std::optional<TiffSamples> tiff_samples(const ReadAt& read, std::uint64_t file_size,
                                        const DecodeLimits& limits) {
  std::uint8_t start[8];
  if (file_size < 8 || !read(0, 8, start)) return std::nullopt;
  const std::optional<tiff::Header> header = tiff::read_header(start, 8);  // not BigTIFF
  if (!header) return std::nullopt;
  // libtiff drops a tag whose value it cannot read: a failed read would change the metadata.
  bool failed = false;
  const ReadAt checked = [&](std::uint64_t at, std::size_t n, std::uint8_t* out) {
    failed = failed || !read(at, n, out);
    return !failed;
  };
  tiff::MemoryFile file;
  file.read = &checked;
  file.size = file_size;
  // The directory under decode_tiff's first bound: where it opens, so does decode_tiff's.
  tiff::Handle h(file, "rm", tiff::allocation_bound(file_size, nullptr));
  if (!h.get()) return std::nullopt;
  const tiff::Layout l = tiff::layout_of(h.get());
  TiffSamples s;
  if (!stored_as_decoded(h, l, limits) || !find_strips(h.get(), l, file_size, s)) {
    return std::nullopt;
  }
  s.width = static_cast<int>(l.width), s.height = static_cast<int>(l.height);
  s.channels = l.spp, s.bits = l.bps;
  s.big_endian = header->order == tiff::ByteOrder::kBig;
  s.metadata = tiff::metadata_of(h.get());
  std::optional<std::vector<std::uint8_t>> exif = exif_of(checked, file_size, *header);
  if (!exif || failed) return std::nullopt;
  s.metadata.exif = std::move(*exif);
  return s;
}

}  // namespace gpublur
