// kernel_schedule.cpp — each variant's limits and parameters, and the choice among them.
#include "codegen/kernel_schedule.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "base/errors.hpp"
#include "dp4a_geometry.cuh"
#include "matrix_mma_geometry.cuh"
#include "ops/matrix.hpp"
#include "tile_rows.cuh"

namespace gpublur {
namespace {

// Static shared memory is limited to 48 KiB per block; staying at or under 32 KiB for the
// wide kernel's intermediate leaves room for two blocks per SM on every supported architecture.
constexpr int kSharedTarget = 32 * 1024;
constexpr int kSharedLimit = 48 * 1024;
constexpr int kMaxTileH = 16;
// blur_tiled.cu unrolls over (strip rows x taps) and (segment x span): beyond these radii the
// code grows past the instruction cache and registers spill.
constexpr int kTiledMaxRadiusY = 32;
constexpr int kTiledMaxHaloBytes = 128;
// blur_mma.cu: any radius up to 255 x 255 whose slots fit the GPU's shared memory.
constexpr int kMmaMaxRadiusY = 127;
constexpr int kMmaMaxHaloBytes = 512;
constexpr int kMmaMinArch = 80;  // mma.m16n8k32 with u8 operands

std::optional<KernelSchedule> tiled_schedule(const FilterSpec& spec) {
  if (spec.y.radius() > kTiledMaxRadiusY || spec.x.radius() * spec.channels > kTiledMaxHaloBytes) {
    return std::nullopt;
  }
  KernelSchedule s;
  s.variant = KernelVariant::kTiled;
  TiledSchedule t;
  s.tile_w = 256;
  t.seg = 16;
  t.halo = (spec.x.radius() * spec.channels + 3) / 4 * 4;
  const int word_columns = (s.tile_w + 2 * t.halo) / 4;  // <= 128 by kTiledMaxHaloBytes
  const int strips = std::clamp(s.block_threads / word_columns, 2, 4);
  // About 32 rows a tile. NVRTC's time grows faster than linearly with the unrolled strip
  // (accumulators x input rows), so tall kernels take short strips.
  t.strip_h = spec.y.radius() > 7 ? 8 : 32 / strips;
  s.tile_h = t.strip_h * strips;
  t.row_stride = s.tile_w + 2 * t.halo;
  if ((t.row_stride / 2) % 2 == 0) t.row_stride += 2;  // odd word stride: no bank conflicts
  s.shared_bytes = s.tile_h * t.row_stride * 2;
  s.tiled = t;
  return s;
}

// Shared memory a block may opt into, and an SM's total, on compute capability `arch`
// (CUDA C++ Programming Guide, "Technical Specifications"). 0 (not known): the smallest of them.
struct SharedMemoryLimits {
  int per_block;
  int per_sm;
};
SharedMemoryLimits shared_memory_limits(int arch) {
  if (arch == 80 || arch == 87) return {163 * 1024, 164 * 1024};
  if (arch == 90 || arch == 100 || arch == 103) return {227 * 1024, 228 * 1024};
  return {99 * 1024, 100 * 1024};  // 8.6, 8.9, 12.x and unknown
}
constexpr int kSharedPerBlockReserved = 1024;  // the system's share of each resident block

// The tensor-core product splits each tap into two bytes, so a lone tap of 2^16 (a 1-wide
// axis, or a sigma so small that the neighbours round to 0) cannot be one of its operands.
bool taps_below_2_16(const AxisTaps& axis) {
  return std::all_of(axis.q16.begin(), axis.q16.end(), [](std::uint32_t q) { return q < 65536u; });
}

// Small kernels (a step of at most 2 x 3 chunks): the measured schedule, 4 warps, 4 stages,
// in under 48 KiB. Larger: 2 stages (a step's products outlast a copy), 4 warps where the
// architecture's shared memory holds them (else fewer), as many blocks per SM as it holds,
// and a tile wide enough that the halo's vertical steps cost at most half again. nullopt: the
// spec is outside the kernel's limits, or not even one warp fits.
std::optional<KernelSchedule> mma_shape_schedule(int radius_x, int radius_y, int channels,
                                                 int arch) {
  const int halo = radius_x * channels;
  if ((arch != 0 && arch < kMmaMinArch) || radius_y > kMmaMaxRadiusY ||
      halo > kMmaMaxHaloBytes) {
    return std::nullopt;
  }
  const int pad = gb_mma::pad_for(halo);
  const bool small = radius_y <= 24 && pad <= 64;
  const gb_mma::Geometry geometry{radius_y, halo, pad, small ? 4 : 2};
  const SharedMemoryLimits limits = shared_memory_limits(arch);
  int warps = 4;
  while (warps > 0 && geometry.shared_bytes(warps) > (small ? kSharedLimit : limits.per_block)) {
    warps = small && warps == 4 ? 2 : warps - 1;
  }
  if (warps == 0) return std::nullopt;
  const int block_bytes = geometry.shared_bytes(warps);
  const int blocks = std::clamp(limits.per_sm / (block_bytes + kSharedPerBlockReserved), 1, 8);
  KernelSchedule s;
  s.variant = KernelVariant::kMma;
  s.block_threads = 32 * warps;
  s.tile_h = 16 * warps;
  s.shared_bytes = block_bytes;
  MmaSchedule m;
  m.geometry = geometry;
  if (small) {
    s.tile_w = 480;  // 15 steps of 32 output bytes: the halo's steps are 1/15 to 4/15 extra
    // A register budget of 128 (4 blocks; 5 stay resident where the kernel needs fewer): at 80
    // (6 blocks) the compiler re-derived addresses every step, and 4K and 8K ran slower; how
    // many warps share an SM made no difference there.
    m.min_blocks = 4;
  } else {
    s.tile_w = 32 * std::max(15, 2 * (geometry.chunks_x() - 1));
    m.min_blocks = blocks;  // the register budget follows (255 at most)
  }
  m.resident_per_sm = std::min(blocks, m.min_blocks);
  s.mma = m;
  return s;
}

// The Gaussian's (and the unsharp mask's) taps.
std::optional<KernelSchedule> mma_schedule(const FilterSpec& spec, int arch) {
  if (!taps_below_2_16(spec.x) || !taps_below_2_16(spec.y)) return std::nullopt;
  return mma_shape_schedule(spec.x.radius(), spec.y.radius(), spec.channels, arch);
}

// Whether every tap fits two bytes, signed where any is negative (gb_mma::fits_two_bytes).
bool fits_two_bytes(const std::vector<std::int64_t>& taps) {
  const bool is_signed = std::any_of(taps.begin(), taps.end(), [](std::int64_t q) { return q < 0; });
  return std::all_of(taps.begin(), taps.end(),
                     [is_signed](std::int64_t q) { return gb_mma::fits_two_bytes(q, is_signed); });
}

// The factors column x row as MmaMatrix takes them, or nullopt where they do not fit.
std::optional<MmaMatrix> mma_factors(const std::vector<std::int32_t>& column,
                                     const std::vector<std::int32_t>& row) {
  std::int64_t common = 0;
  for (const std::int32_t c : column) common = std::gcd(common, static_cast<std::int64_t>(c));
  if (common == 0) common = 1;  // the zero matrix: its column is 0
  std::vector<std::int64_t> down, across;
  std::int64_t positive = 0, negative = 0;
  for (const std::int32_t c : column) {
    const std::int64_t q = c / common;
    down.push_back(q);
    if (q > 0) positive += q;
    if (q < 0) negative -= q;
  }
  for (const std::int32_t r : row) across.push_back(r * common);
  if (!fits_two_bytes(down) || !fits_two_bytes(across) ||
      !gb_mma::exact_mid_fits(positive, negative)) {
    return std::nullopt;
  }
  MmaMatrix m;
  m.column.assign(down.begin(), down.end());
  m.row.assign(across.begin(), across.end());
  return m;
}

// An 8-bit matrix of rank one on the tensor cores (interleaved: alpha kept needs each output's
// input byte in place).
std::optional<KernelSchedule> mma_matrix_schedule(const FilterSpec& spec, int arch) {
  const auto& q8 = spec.matrix.q8;
  std::optional<MmaMatrix> factors = mma_factors(q8.column, q8.row);
  if (!factors) return std::nullopt;
  std::optional<KernelSchedule> s =
      mma_shape_schedule(spec.matrix.radius_x(), spec.matrix.radius_y(), spec.channels, arch);
  if (!s) return std::nullopt;
  s->mma->finish = MmaFinish::kMatrix;
  s->mma->matrix = std::move(factors);
  return s;
}

// A one-channel spec for each plane of a planar blur.
FilterSpec plane_spec(const FilterSpec& spec) {
  FilterSpec plane = spec;
  plane.channels = 1;
  return plane;
}

// The tensor-core kernel, interleaved or as planes. Its interleaved horizontal product multiplies
// about r C / 16 window chunks a step, of which only 1 in C columns holds a tap; as planes, about
// r / 16, for the price of a split and a merge (each about a copy of the image). Measured from
// 1080p to 8K, 2 to 4 channels: planes win where the interleaved halo r C passes 64 bytes (from
// 51x51 RGB and RGBA, 101x101 gray+alpha), and lose below (31x31 RGBA, 65x65 gray+alpha).
constexpr int kPlanesMinHaloBytes = 65;
std::optional<KernelSchedule> mma_any_layout(const FilterSpec& spec, int arch,
                                             ChannelLayout layout) {
  std::optional<KernelSchedule> interleaved = mma_schedule(spec, arch);
  if (spec.channels == 1 || layout == ChannelLayout::kInterleaved) return interleaved;
  std::optional<KernelSchedule> planar = mma_schedule(plane_spec(spec), arch);
  if (!planar) return interleaved;
  if (layout == ChannelLayout::kPlanes || !interleaved ||
      spec.x.radius() * spec.channels >= kPlanesMinHaloBytes) {
    planar->mma->planes = spec.channels;
    return planar;
  }
  return interleaved;
}

KernelSchedule wide_schedule(const FilterSpec& spec) {
  KernelSchedule s;
  s.variant = KernelVariant::kWide;
  const int halo = spec.x.radius() * spec.channels;
  // Wide horizontal halos are recomputed by every block: widen the tile to amortise them.
  while (s.tile_w < 2 * halo && (2 * s.tile_w + 2 * halo) * 2 <= kSharedLimit) s.tile_w *= 2;
  const int row_shared = (s.tile_w + 2 * halo) * 2;  // 16-bit intermediate
  s.tile_h = std::clamp(kSharedTarget / row_shared, 1, kMaxTileH);
  s.shared_bytes = s.tile_h * row_shared;
  return s;
}

// 256 threads, 32 across: a tile of 32 x 32 pixels where its load with the matrix's reach around
// it (rows of gb_tile::row_bytes) fits the 48 KiB of static shared memory, else 32 x 16 or 32 x 8
// (a 31x31 RGBA float matrix: 62 x 38 pixels of 16 bytes). Taller tiles share one load and
// barrier among more outputs.
KernelSchedule dense_schedule(const FilterSpec& spec, SampleFormat format) {
  KernelSchedule s;
  s.variant = KernelVariant::kDense;
  s.block_threads = 256;
  s.tile_w = 32;  // pixels
  const int sample_bytes = format == SampleFormat::k8 ? 1 : format == SampleFormat::k16 ? 2 : 4;
  const int row =
      gb_tile::row_bytes(s.tile_w + 2 * spec.matrix.radius_x(), spec.channels * sample_bytes);
  for (s.tile_h = 32; s.tile_h > 8; s.tile_h /= 2) {
    const int load_h = s.tile_h + 2 * spec.matrix.radius_y();
    if (row * load_h <= kSharedLimit) break;
  }
  return s;
}

// kDp4a's, where it takes the matrix: 8-bit images (any weight of Matrix8's, as byte planes: one
// dp4a a plane), on an architecture with dp4a (sm_61 on); a tile of 128 x 32 pixels, whose planes
// fit static shared memory at the largest radius on four channels (a taller tile shares each
// thread's loaded rows and windows among more outputs, but 128 x 64 ran slower on an H100, its
// threads' registers halving the blocks an SM holds: bench/RESULTS.md).
constexpr int kDp4aTileH = 32;
static_assert(gb_dp4a::shared_bytes(4, gb_dp4a::kMaxRadius, gb_dp4a::kMaxRadius, kDp4aTileH) <=
                  kSharedLimit,
              "dp4a's planes fit static shared memory");
static_assert(2 * gb_dp4a::kMaxRadius + 1 >= kMaxDenseMatrix, "dp4a takes every dense matrix");
std::optional<KernelSchedule> dp4a_schedule(const FilterSpec& spec, SampleFormat format, int arch) {
  const int rx = spec.matrix.radius_x(), ry = spec.matrix.radius_y();
  if (format != SampleFormat::k8 || (arch != 0 && arch < 61) || rx > gb_dp4a::kMaxRadius ||
      ry > gb_dp4a::kMaxRadius) {
    return std::nullopt;
  }
  KernelSchedule s;
  s.variant = KernelVariant::kDp4a;
  s.block_threads = 256;
  s.tile_w = gb_dp4a::kTileW;
  s.tile_h = kDp4aTileH;
  return s;
}

// kDenseMma's, where it takes the matrix: 8-bit images, every weight a signed byte (-128 to 127),
// on sm_80 and later, whose reach across, radius x channels bytes, fits one k32 window with an
// N-tile's 8 outputs (12 bytes) and whose rows' B fragments stay in registers (9 rows); a block
// of four warps' tiles, 16 rows x 512 bytes (gb_matrix_mma), their input with the reach in
// static shared memory.
static_assert(gb_matrix_mma::shared_bytes(gb_matrix_mma::kMaxRadiusY) <= kSharedLimit,
              "dense-mma's tile fits static shared memory");
std::optional<KernelSchedule> dense_mma_schedule(const FilterSpec& spec, SampleFormat format,
                                                 int arch) {
  if (arch != 0 && arch < 80) return std::nullopt;
  if (!gb_matrix_mma::takes(spec.channels, spec.matrix.radius_x(), spec.matrix.radius_y())) {
    return std::nullopt;
  }
  const std::vector<std::int32_t>& w = spec.matrix.q8.weights;
  if (!std::all_of(w.begin(), w.end(), [](std::int32_t v) { return v >= -128 && v <= 127; })) {
    return std::nullopt;
  }
  auto s = dp4a_schedule(spec, format, arch);
  if (!s) return std::nullopt;
  s->variant = KernelVariant::kDenseMma;
  s->block_threads = 32 * gb_matrix_mma::kWarps;
  s->tile_w = gb_matrix_mma::kTileBytes;  // bytes, not pixels
  s->tile_h = gb_matrix_mma::kTileRows;
  return s;
}

// kSeparable's: 256 threads, 32 across, on a tile of 32 x 32 pixels where the tile's load with
// the filter's reach and its intermediate (the policy's Mid: 4 bytes for 8-bit samples, else 8)
// fit the 48 KiB of static shared memory, else 32 x 16 or 32 x 8; nullopt where none fits.
std::optional<KernelSchedule> separable_schedule(const FilterSpec& spec, SampleFormat format) {
  KernelSchedule s;
  s.variant = KernelVariant::kSeparable;
  s.block_threads = 256;
  s.tile_w = 32;
  const bool matrix = spec.operation == Operation::kMatrix;
  const int rx = matrix ? spec.matrix.radius_x() : spec.x.radius();
  const int ry = matrix ? spec.matrix.radius_y() : spec.y.radius();
  const int sample_bytes = format == SampleFormat::k8 ? 1 : format == SampleFormat::k16 ? 2 : 4;
  const int mid_bytes = format == SampleFormat::k8 ? 4 : 8;
  const int load_w = s.tile_w + 2 * rx;
  for (s.tile_h = 32; s.tile_h >= 8; s.tile_h /= 2) {
    const int tile = gb_tile::row_bytes(load_w, spec.channels * sample_bytes) * (s.tile_h + 2 * ry);
    const int mid = load_w * s.tile_h * mid_bytes * spec.channels;
    if (tile + mid <= kSharedLimit) return s;
  }
  return std::nullopt;
}

// One thread per pixel (kGeneral: all its channels; kNaive: per output byte), one block row per
// image row.
KernelSchedule row_schedule(KernelVariant variant) {
  KernelSchedule s;
  s.variant = variant;
  s.tile_w = s.block_threads;
  s.tile_h = 1;
  return s;
}

}  // namespace

bool separable_matrix(const FilterSpec& spec, SampleFormat format) {
  if (spec.operation != Operation::kMatrix) return false;
  switch (format) {
    case SampleFormat::k8:
      return spec.matrix.q8.separable();
    case SampleFormat::k16:
      return spec.matrix.q16.separable();
    case SampleFormat::kFloat:
      return spec.matrix.real.separable();
  }
  return false;
}

std::optional<KernelSchedule> find_schedule(const FilterSpec& spec, KernelVariant requested,
                                            SampleFormat format, int arch, ChannelLayout layout) {
  const bool automatic = requested == KernelVariant::kAuto;
  if (spec.operation == Operation::kMatrix && !separable_matrix(spec, format)) {
    // Auto takes the tensor cores where they were measured faster than dp4a, or as fast: gray and
    // RGB, and RGBA 5 wide (its windows aligned, no transposition: bench/RESULTS.md, runs 95-96);
    // on RGBA 3 wide the two were as fast, 7 wide dp4a was faster (run 85), and two channels were
    // not measured.
    const bool tensor_first = spec.channels == 1 || spec.channels == 3 ||
                              (spec.channels == 4 && spec.matrix.radius_x() == 2);
    if ((automatic && tensor_first) || requested == KernelVariant::kDenseMma) {
      if (auto tensor = dense_mma_schedule(spec, format, arch)) return tensor;
    }
    if (automatic || requested == KernelVariant::kDp4a) {
      if (auto bytes = dp4a_schedule(spec, format, arch)) return bytes;
    }
    if (!automatic && requested != KernelVariant::kDense) return std::nullopt;
    return dense_schedule(spec, format);
  }
  if (requested == KernelVariant::kDense || requested == KernelVariant::kDp4a ||
      requested == KernelVariant::kDenseMma) {
    return std::nullopt;
  }
  // The 8-bit unsharp mask is the Gaussian's sums with another finish: the tensor-core kernel's
  // (interleaved: its finish needs each output's input byte in place). So is an 8-bit matrix of
  // rank one whose numbers fit its 16-bit operands.
  if (spec.operation != Operation::kGaussian && format == SampleFormat::k8 &&
      (automatic || requested == KernelVariant::kMma)) {
    if (spec.operation == Operation::kMatrix) {
      if (auto mma = mma_matrix_schedule(spec, arch)) return mma;
    } else if (auto mma = mma_schedule(spec, arch)) {
      mma->mma->finish = MmaFinish::kUnsharp;
      return mma;
    }
    if (!automatic) return std::nullopt;
  }
  // A matrix's signed taps (and the unsharp mask where the tensor cores do not take it) are
  // kGeneral's policies alone, in one launch (kSeparable) where its tile fits.
  if (spec.operation != Operation::kGaussian) {
    if (requested == KernelVariant::kGeneral) return row_schedule(KernelVariant::kGeneral);
    if (!automatic && requested != KernelVariant::kSeparable) return std::nullopt;
    if (auto tile = separable_schedule(spec, format)) return tile;
    return automatic ? std::optional<KernelSchedule>(row_schedule(KernelVariant::kGeneral))
                     : std::nullopt;
  }
  if (requested == KernelVariant::kSeparable) return std::nullopt;
  if (format != SampleFormat::k8 || spec.premultiplied) {
    if (requested != KernelVariant::kAuto && requested != KernelVariant::kGeneral) {
      return std::nullopt;
    }
    return row_schedule(KernelVariant::kGeneral);
  }
  switch (requested) {
    case KernelVariant::kGeneral:
    case KernelVariant::kNaive:
      return row_schedule(requested);
    case KernelVariant::kDense:
    case KernelVariant::kDp4a:
    case KernelVariant::kDenseMma:
    case KernelVariant::kSeparable:
      return std::nullopt;
    case KernelVariant::kWide:
      return wide_schedule(spec);
    case KernelVariant::kMma:
      return mma_any_layout(spec, arch, layout);
    case KernelVariant::kTiled:
      return tiled_schedule(spec);
    case KernelVariant::kAuto:
      break;
  }
  if (auto mma = mma_any_layout(spec, arch, layout)) return mma;
  if (auto tiled = tiled_schedule(spec)) return tiled;
  return wide_schedule(spec);
}

KernelSchedule choose_schedule(const FilterSpec& spec, KernelVariant requested, SampleFormat format,
                               int arch, ChannelLayout layout) {
  if (auto found = find_schedule(spec, requested, format, arch, layout)) return *found;
  const std::string kernel = "--kernel " + std::string(variant_name(requested));
  if (requested == KernelVariant::kDp4a) {
    throw UsageError(
        "--kernel dp4a runs a convolution matrix not of rank one on 8-bit images, at most " +
        std::to_string(2 * gb_dp4a::kMaxRadius + 1) + "x" +
        std::to_string(2 * gb_dp4a::kMaxRadius + 1) + ", on sm_61 and later; " +
        (spec.operation == Operation::kMatrix && !separable_matrix(spec, format)
             ? "this one takes --kernel dense (or auto)"
             : "this filter takes the others (--kernel auto)"));
  }
  if (requested == KernelVariant::kDenseMma) {
    throw UsageError(
        "--kernel dense-mma runs a matrix not of rank one on 8-bit images, every weight (as "
        "scaled to integers) from -128 to 127, on sm_80 and later, at most " +
        std::to_string(2 * gb_matrix_mma::kMaxRadiusY + 1) +
        " rows, its radius across times the channels at most " +
        std::to_string(gb_matrix_mma::kMaxReach) + "; " +
        (spec.operation == Operation::kMatrix && !separable_matrix(spec, format)
             ? "this one takes --kernel dp4a or dense (or auto)"
             : "this filter takes the others (--kernel auto)"));
  }
  if (spec.operation == Operation::kMatrix && !separable_matrix(spec, format)) {
    throw UsageError(kernel +
                     " cannot run this matrix: it is not of rank one, so it takes "
                     "--kernel dense (or auto)");
  }
  if (requested == KernelVariant::kSeparable) {
    throw UsageError(std::string("--kernel separable runs a matrix of rank one or the unsharp "
                                 "mask whose tile fits shared memory; ") +
                     (spec.operation == Operation::kGaussian ? "the Gaussian takes the others"
                                                             : "this one takes --kernel general") +
                     " (or auto)");
  }
  if (requested == KernelVariant::kDense) {
    throw UsageError(std::string("--kernel dense runs a convolution matrix that is not of rank ") +
                     "one; " +
                     (spec.operation == Operation::kMatrix
                          ? "this matrix is of rank one, so it takes --kernel general (or auto)"
                          : "the Gaussian and the unsharp mask take the others (--kernel auto)"));
  }
  if (spec.operation == Operation::kUnsharp && requested == KernelVariant::kMma) {
    throw UsageError(
        "--kernel mma runs the unsharp mask of 8-bit images on sm_80 and later, "
        "radius up to " +
        std::to_string(kMmaMaxRadiusY) + " and radius x channels up to " +
        std::to_string(kMmaMaxHaloBytes) +
        "; this one takes --kernel separable or general (or auto)");
  }
  if (spec.operation == Operation::kMatrix && requested == KernelVariant::kMma) {
    throw UsageError(
        "--kernel mma runs a matrix of rank one on 8-bit images on sm_80 and later, radius up "
        "to " +
        std::to_string(kMmaMaxRadiusY) + " and radius x channels up to " +
        std::to_string(kMmaMaxHaloBytes) +
        ", where its column and row are integers of 16 bits and the column's values (its "
        "common factor moved into the row) sum to at most 257, or, with a negative one, its "
        "positive and its negative values each to at most 128 in size; this one takes "
        "--kernel separable or general (or auto)");
  }
  if (spec.operation != Operation::kGaussian) {
    throw UsageError(kernel + " runs the Gaussian only; " +
                     (spec.operation == Operation::kMatrix ? "a matrix of rank one"
                                                           : "the unsharp mask") +
                     " takes --kernel mma, separable or general (or auto)");
  }
  if (format != SampleFormat::k8 || spec.premultiplied) {
    throw UsageError("--kernel " + std::string(variant_name(requested)) +
                     " blurs 8-bit samples with straight alpha only; 16-bit, HDR, --linear "
                     "and premultiplied blurs take the general kernel (--kernel auto)");
  }
  if (requested == KernelVariant::kMma) {
    throw UsageError("--kernel mma needs sm_80 or later, radius up to " +
                     std::to_string(kMmaMaxRadiusY) + ", radius x channels up to " +
                     std::to_string(kMmaMaxHaloBytes) +
                     " and every tap below 65536 (sigma not tiny); use --kernel auto");
  }
  throw UsageError("--kernel tiled supports radius up to " + std::to_string(kTiledMaxRadiusY) +
                   " and radius x channels up to " + std::to_string(kTiledMaxHaloBytes) +
                   "; use --kernel auto or wide");
}

}  // namespace gpublur
