// tiff_handle.hpp — libtiff on a file that is not a FILE: bytes in memory, a file read a piece at a
// time (the raw route's directory, tiff_samples.hpp), an output in memory or recorded as pieces
// with the raster's rows borrowed (tiff_frame); and the facts of a first directory that the
// decoder and the raw route both go by, so that they read a file alike. Internal to the codecs.
#pragma once

#include <tiffio.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codecs/tiff_samples.hpp"
#include "image/decode_limits.hpp"
#include "image/image.hpp"
#include "image/metadata.hpp"

namespace gpublur::tiff {

/// An output written as it is made: the bytes before a run of borrowed bytes (`head`), the run
/// (appended from within `lent`, in order, not copied), and the bytes after it (`tail`). libtiff
/// writes its header, appends the strips, appends the directory and seeks back to write the
/// directory's offset into the header: all of which fit. Any other write (within the run, or a
/// borrowed one out of order) leaves it `broken`.
struct Recording {
  const std::uint8_t* lent = nullptr;  // the raster's bytes, whose strips are borrowed
  std::size_t lent_size = 0;
  std::vector<std::uint8_t> head, tail;
  std::uint64_t run_at = 0, run_size = 0;  // where the borrowed run starts in the file, its size
  bool broken = false;
};

/// The file libtiff reads from (data, or through read) or writes into (out, or recording).
struct MemoryFile {
  const std::uint8_t* data = nullptr;
  const ReadAt* read = nullptr;
  std::vector<std::uint8_t>* out = nullptr;
  Recording* recording = nullptr;
  std::uint64_t size = 0;
  std::uint64_t pos = 0;
};

/// A client-opened handle whose errors are kept per handle (libtiff's global handlers would print
/// to stderr and race between threads).
class Handle {
 public:
  Handle(MemoryFile& file, const char* mode, tmsize_t max_alloc);
  ~Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  TIFF* get() const { return tif_; }
  /// Closes (and so, writing, finishes) the file; true unless libtiff reported an error.
  bool close();
  [[noreturn]] void fail(const std::string& what) const;

 private:
  std::string error_;  // the first error libtiff reported; warnings are dropped
  TIFF* tif_ = nullptr;
};

/// The first directory's image, as the decoder reads it.
struct Layout {
  std::uint32_t width = 0, height = 0;
  std::uint16_t spp = 1, bps = 1, photometric = PHOTOMETRIC_MINISBLACK;
  std::uint16_t planar = PLANARCONFIG_CONTIG, format = SAMPLEFORMAT_UINT;
  std::uint16_t compression = COMPRESSION_NONE;
  bool associated_alpha = false;
};

Layout layout_of(TIFF* tif);

/// YCbCr in JPEG strips or tiles, which libjpeg converts to RGB when asked (JPEGCOLORMODE).
bool jpeg_ycbcr(const Layout& l);

/// Whether the samples can be copied as they are: 8 or 16 bits, unsigned, gray(+alpha) or RGB(A).
bool direct(const Layout& l);

/// What --max-bytes counts: the samples as they are, or the 8-bit RGBA libtiff renders the rest to.
DecodedSize decoded_size(const Layout& l);

/// The tile or strip size of the file, checked against what the image can need (a 1 KB file can
/// ask for 12 GB); throws IoError where it is larger.
std::size_t block_bytes(Handle& h, const Layout& l);

/// ICC profile, XMP and density, as libtiff reads them.
Metadata metadata_of(TIFF* tif);

/// The largest single buffer a file of `file_size` bytes whose layout is `l` (or not yet known)
/// can need from libtiff.
tmsize_t allocation_bound(std::uint64_t file_size, const Layout* l);

/// Sets the encoder's tags for `image` (1-4 channels, unassociated alpha, contiguous strips) and
/// `metadata` but EXIF, compressed (Deflate with the horizontal predictor) or not; returns the
/// rows per strip. Sample: std::uint8_t or std::uint16_t.
template <typename Sample>
std::uint32_t set_tags(TIFF* tif, const Raster<Sample>& image, const Metadata& metadata,
                       bool deflate);

/// Writes the raster's rows as uncompressed strips of `rows_per_strip` rows, in order: libtiff is
/// handed the raster's own bytes. Throws IoError.
template <typename Sample>
void write_raw_strips(Handle& h, const Raster<Sample>& image, std::uint32_t rows_per_strip);

}  // namespace gpublur::tiff
