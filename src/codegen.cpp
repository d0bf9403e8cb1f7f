// codegen.cpp — prelude generation and schedules for the kernel templates.
#include "codegen.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

#include "arithmetic.cuh"
#include "embedded_kernels.hpp"
#include "errors.hpp"
#include "policy_taps.hpp"

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
// CUDA's limit on a grid's third dimension: the layers of a stack of images (launch_dims).
constexpr long long kMaxGridLayers = 65535;
constexpr int kMmaMinArch = 80;  // mma.m16n8k32 with u8 operands

constexpr std::array<std::pair<KernelVariant, std::string_view>, 6> kVariantNames = {{
    {KernelVariant::kAuto, "auto"},
    {KernelVariant::kMma, "mma"},
    {KernelVariant::kTiled, "tiled"},
    {KernelVariant::kWide, "wide"},
    {KernelVariant::kNaive, "naive"},
    {KernelVariant::kGeneral, "general"},
}};

std::string taps_initializer(const Weights& w) {
  std::string s = "{";
  for (std::size_t i = 0; i < w.taps.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(w.taps[i]) + "u";
  }
  return s + "}";
}

std::string format_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string define(const std::string& name, int value) {
  return "#define " + name + " " + std::to_string(value) + "\n";
}
std::string define(const std::string& name, const std::string& value) {
  return "#define " + name + " " + value + "\n";
}

KernelSchedule tiled_schedule(const BlurSpec& spec) {
  KernelSchedule s;
  s.variant = KernelVariant::kTiled;
  s.tile_w = 256;
  s.seg = 16;
  s.halo = (spec.x.radius() * spec.channels + 3) / 4 * 4;
  const int word_columns = (s.tile_w + 2 * s.halo) / 4;  // <= 128 by kTiledMaxHaloBytes
  const int strips = std::clamp(s.block_threads / word_columns, 2, 4);
  // About 32 rows a tile. NVRTC's time grows faster than linearly with the unrolled strip
  // (accumulators x input rows), so tall kernels take short strips.
  s.strip_h = spec.y.radius() > 7 ? 8 : 32 / strips;
  s.tile_h = s.strip_h * strips;
  s.row_stride = s.tile_w + 2 * s.halo;
  if ((s.row_stride / 2) % 2 == 0) s.row_stride += 2;  // odd word stride: no bank conflicts
  s.shared_bytes = s.tile_h * s.row_stride * 2;
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

// blur_mma.cu's shared memory, as its constants compute it (the kernel static_asserts equality):
// per warp a ring of `stages` input slots (32-byte rows; the step's 16 + 2r rows rounded up to
// 16) and two byte planes of 16 rows x (32 bytes per window chunk + 16), with two more chunks for
// the narrow horizontal product (a horizontal halo of at most 12 bytes, pad 32); per block the
// horizontal taps, as fragments (2 KiB per chunk) up to 5 chunks, else as the window table
// (2 x 4 bytes per window column), none for the narrow product, and past 4 vertical chunks the
// vertical weights (1 KiB each).
struct MmaShape {
  int chunks_x;
  int chunks_y;
  int warp_bytes;
  int tap_bytes;  // and weights: the block's tables
};
constexpr int kMmaNarrowLead = 12;  // blur_mma.cu's kNarrowLead
// Whether blur_mma.cu takes its narrow horizontal product (its kNarrow).
bool mma_narrow(const BlurSpec& spec, int pad) {
  return spec.x.radius() * spec.channels <= kMmaNarrowLead && pad == 32;
}
constexpr int kMmaTinyLead = 4;  // blur_mma.cu's kTinyLead
// Whether the narrow product takes its k16 form (blur_mma.cu's kTiny).
bool mma_tiny(const BlurSpec& spec, int pad) {
  return mma_narrow(spec, pad) && spec.x.radius() * spec.channels <= kMmaTinyLead;
}
MmaShape mma_shape(const BlurSpec& spec, int pad, int stages) {
  const int slot_rows = (16 + 2 * spec.y.radius() + 15) / 16 * 16;
  const int chunks_x = 1 + pad / 16;
  const bool narrow = mma_narrow(spec, pad);
  const int plane_slots = chunks_x + (narrow ? 2 : 0);
  const int warp_bytes = stages * 32 * slot_rows + 2 * 16 * (32 * plane_slots + 16);
  const int window_columns = 63 + 2 * pad;
  const int tap_bytes = narrow ? 0 : chunks_x <= 5 ? chunks_x * 2048 : (8 * window_columns + 15) / 16 * 16;
  const int chunks_y = (16 + 2 * spec.y.radius() + 31) / 32;
  const int weight_bytes = chunks_y <= 4 ? 0 : chunks_y * 1024;  // vertical A fragments
  return {chunks_x, chunks_y, warp_bytes, tap_bytes + weight_bytes};
}

// Intermediate columns each side of a tile: the halo rounded up to 16. The narrow horizontal
// product's (halo up to 12 bytes) is 32, so that the staged pieces (tile start - pad + 32 s) are
// whole 32-byte sectors: a pad of 16 made every piece half of two (bench/RESULTS.md).
int mma_pad(const BlurSpec& spec) {
  const int halo = spec.x.radius() * spec.channels;
  if (halo <= kMmaNarrowLead) return 32;
  return std::max(16, (halo + 15) / 16 * 16);
}

// Small kernels (a step of at most 2 x 3 chunks): the measured schedule, 4 warps, 4 stages,
// in under 48 KiB. Larger: 2 stages (a step's products outlast a copy), 4 warps where the
// architecture's shared memory holds them (else fewer), as many blocks per SM as it holds,
// and a tile wide enough that the halo's vertical steps cost at most half again. nullopt: not
// even one warp fits.
std::optional<KernelSchedule> mma_schedule(const BlurSpec& spec, int arch) {
  KernelSchedule s;
  s.variant = KernelVariant::kMma;
  s.halo = mma_pad(spec);
  const bool small = spec.y.radius() <= 24 && s.halo <= 64;
  s.stages = small ? 4 : 2;
  const MmaShape shape = mma_shape(spec, s.halo, s.stages);
  const SharedMemoryLimits limits = shared_memory_limits(arch);
  const auto block_bytes = [&](int warps) { return warps * shape.warp_bytes + shape.tap_bytes; };
  int warps = 4;
  while (warps > 0 && block_bytes(warps) > (small ? kSharedLimit : limits.per_block)) {
    warps = small && warps == 4 ? 2 : warps - 1;
  }
  if (warps == 0) return std::nullopt;
  const int blocks = std::clamp(limits.per_sm / (block_bytes(warps) + kSharedPerBlockReserved), 1, 8);
  s.block_threads = 32 * warps;
  s.tile_h = 16 * warps;
  s.shared_bytes = block_bytes(warps);
  s.dynamic_shared = true;
  s.chunks_x = shape.chunks_x;
  s.chunks_y = shape.chunks_y;
  s.narrow = mma_narrow(spec, s.halo);
  s.tiny = mma_tiny(spec, s.halo);
  if (small) {
    s.tile_w = 480;  // 15 steps of 32 output bytes: the halo's steps are 1/15 to 4/15 extra
    // A register budget of 128 (4 blocks; 5 stay resident where the kernel needs fewer): at 80
    // (6 blocks) the compiler re-derived addresses every step, and on the H100 4K and 8K ran
    // 1-6% slower (bench/RESULTS.md); how many warps share an SM made no difference there.
    s.min_blocks = 4;
  } else {
    s.tile_w = 32 * std::max(15, 2 * (shape.chunks_x - 1));
    s.min_blocks = blocks;  // the register budget follows (255 at most)
  }
  s.resident_per_sm = std::min(blocks, s.min_blocks);
  return s;
}

KernelSchedule wide_schedule(const BlurSpec& spec) {
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

KernelSchedule general_schedule() {
  KernelSchedule s;
  s.variant = KernelVariant::kGeneral;
  s.tile_w = s.block_threads;  // pixels per block (all channels); one block row per image row
  s.tile_h = 1;
  return s;
}

KernelSchedule naive_schedule() {
  KernelSchedule s;
  s.variant = KernelVariant::kNaive;
  s.tile_w = s.block_threads;  // one thread per output byte, one block row per image row
  s.tile_h = 1;
  return s;
}

std::string_view template_for(KernelVariant variant) {
  switch (variant) {
    case KernelVariant::kTiled:
      return kBlurTiledCu;
    case KernelVariant::kNaive:
      return kNaiveBlurCu;
    case KernelVariant::kGeneral:
      return kBlurGeneralCu;
    case KernelVariant::kMma:
      return kBlurMmaCu;
    default:
      return kBlurWideCu;
  }
}

// A C++ literal that reads back as exactly v: integers with their suffix, floating point in
// hexadecimal (no decimal rounding on the way into NVRTC).
std::string literal(std::uint32_t v) { return std::to_string(v) + "u"; }
std::string literal(unsigned long long v) { return std::to_string(v) + "ull"; }
std::string literal(std::uint16_t v) { return std::to_string(v); }
std::string literal(std::uint8_t v) { return std::to_string(v); }
std::string literal(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}
std::string literal(float v) { return literal(static_cast<double>(v)) + "f"; }

template <typename T>
std::string initializer(const std::vector<T>& values) {
  std::string s = "{";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + literal(values[i]);
  return s + "}";
}

// What blur_general.cu needs beyond common.cuh's defines: the policy, its taps, the border.
template <typename Policy>
std::string general_defines(const BlurSpec& spec, const char* policy) {
  const auto pixel = border_pixel<typename Policy::Sample>(spec);
  std::string p = define("GB_POLICY", policy);
  p += define("GB_TAPS_X", initializer(policy_taps<Policy>(spec.x)));
  p += define("GB_TAPS_Y", initializer(policy_taps<Policy>(spec.y)));
  p += define("GB_BORDER_PIXEL", initializer(std::vector<typename Policy::Sample>(pixel.begin(), pixel.end())));
  return p;
}

struct GeneralPolicy {
  std::string defines;
  int mid_bytes = 0;
};

GeneralPolicy general_policy(const BlurSpec& spec, SampleFormat format) {
  using namespace gb_arith;
  const bool premultiplied = spec.premultiplied;
  switch (format) {
    case SampleFormat::k8:
      return premultiplied
                 ? GeneralPolicy{general_defines<Premultiplied8>(spec, "Premultiplied8"), 4}
                 : GeneralPolicy{general_defines<Straight8>(spec, "Straight8"), 4};
    case SampleFormat::k16:
      return premultiplied
                 ? GeneralPolicy{general_defines<Premultiplied16>(spec, "Premultiplied16"), 8}
                 : GeneralPolicy{general_defines<Straight16>(spec, "Straight16"), 8};
    case SampleFormat::kFloat:
      if (premultiplied) throw InternalError("premultiplied blur of a floating-point image");
      return GeneralPolicy{general_defines<Float>(spec, "Float"), 8};
  }
  throw InternalError("unknown sample format");
}

std::string prelude(const BlurSpec& spec, const KernelSchedule& s, const std::string& shape) {
  const auto& v = spec.border_value;
  std::string p = "// Generated by gpublur: the " + std::string(variant_name(s.variant)) +
                  " kernel for a " + shape + " Gaussian, sigma " + format_double(spec.x.sigma) +
                  " x " + format_double(spec.y.sigma) + ", " +
                  (s.planes ? std::to_string(s.planes) + " channels as planes"
                            : std::to_string(spec.channels) + " channels") +
                  ", border " + std::string(border_name(spec.border)) + ".\n";
  p += define("GB_CHANNELS", spec.channels);
  p += define("GB_RADIUS_X", spec.x.radius());
  p += define("GB_RADIUS_Y", spec.y.radius());
  if (s.variant != KernelVariant::kGeneral) {
    p += define("GB_TAPS_X", taps_initializer(spec.x));
    p += define("GB_TAPS_Y", taps_initializer(spec.y));
  }
  p += define("GB_BORDER", static_cast<int>(spec.border));  // border.cuh's numbering
  p += define("GB_BORDER_VALUE", "{" + std::to_string(v[0]) + "u, " + std::to_string(v[1]) + "u, " +
                                     std::to_string(v[2]) + "u, " + std::to_string(v[3]) + "u}");
  p += define("GB_BLOCK_THREADS", s.block_threads);
  if (s.variant != KernelVariant::kNaive) {
    p += define("GB_TILE_W", s.tile_w);
    p += define("GB_TILE_H", s.tile_h);
  }
  if (s.variant == KernelVariant::kMma) {
    p += define("GB_PAD", s.halo);
    p += define("GB_MIN_BLOCKS", s.min_blocks);
    p += define("GB_STAGES", s.stages);
    p += define("GB_SHARED_BYTES", s.shared_bytes);
  }
  if (s.variant == KernelVariant::kTiled) {
    p += define("GB_STRIP_H", s.strip_h);
    p += define("GB_HALO", s.halo);
    p += define("GB_SEG", s.seg);
    p += define("GB_ROW_STRIDE", s.row_stride);
  }
  return p;
}

}  // namespace

std::string_view variant_name(KernelVariant variant) {
  for (const auto& [v, name] : kVariantNames) {
    if (v == variant) return name;
  }
  return "?";
}

std::optional<KernelVariant> parse_variant(std::string_view name) {
  for (const auto& [v, n] : kVariantNames) {
    if (n == name) return v;
  }
  return std::nullopt;
}

bool tiled_supports(const BlurSpec& spec) {
  return spec.y.radius() <= kTiledMaxRadiusY &&
         spec.x.radius() * spec.channels <= kTiledMaxHaloBytes;
}

// The tensor-core product splits each tap into two bytes, so a lone tap of 2^16 (a 1-wide
// axis, or a sigma so small that the neighbours round to 0) cannot be one of its operands.
bool taps_below_2_16(const Weights& w) {
  return std::all_of(w.taps.begin(), w.taps.end(), [](std::uint32_t q) { return q < 65536u; });
}

bool mma_supports(const BlurSpec& spec, int arch) {
  return (arch == 0 || arch >= kMmaMinArch) && spec.y.radius() <= kMmaMaxRadiusY &&
         spec.x.radius() * spec.channels <= kMmaMaxHaloBytes && taps_below_2_16(spec.x) &&
         taps_below_2_16(spec.y) && mma_schedule(spec, arch).has_value();
}

namespace {

// A one-channel spec for each plane of a planar blur.
BlurSpec plane_spec(const BlurSpec& spec) {
  BlurSpec plane = spec;
  plane.channels = 1;
  return plane;
}

// Whether the tensor-core kernel takes this spec as planes. Its interleaved horizontal product
// multiplies about r C / 16 window chunks a step, of which only 1 in C columns holds a tap; as
// planes, about r / 16, for the price of a split and a merge (each about a copy of the image).
// Measured on the H100 (bench/RESULTS.md, 1080p to 8K, 2 to 4 channels): planes win where the
// interleaved halo r C passes 64 bytes (from 51x51 RGB and RGBA, 101x101 gray+alpha: up to 2x at
// 255x255), and lose below (31x31 RGBA, 65x65 gray+alpha: up to 2.6x slower).
constexpr int kPlanesMinHaloBytes = 65;
bool mma_planes(const BlurSpec& spec, int arch, ChannelLayout layout) {
  if (spec.channels == 1 || layout == ChannelLayout::kInterleaved) return false;
  if (!mma_supports(plane_spec(spec), arch)) return false;
  if (layout == ChannelLayout::kPlanes) return true;
  return spec.x.radius() * spec.channels >= kPlanesMinHaloBytes || !mma_supports(spec, arch);
}

KernelSchedule planar_mma_schedule(const BlurSpec& spec, int arch) {
  KernelSchedule s = *mma_schedule(plane_spec(spec), arch);
  s.planes = spec.channels;
  return s;
}

}  // namespace

KernelSchedule choose_schedule(const BlurSpec& spec, KernelVariant requested,
                               SampleFormat format, int arch, ChannelLayout layout) {
  if (format != SampleFormat::k8 || spec.premultiplied) {
    if (requested != KernelVariant::kAuto && requested != KernelVariant::kGeneral) {
      throw UsageError("--kernel " + std::string(variant_name(requested)) +
                       " blurs 8-bit samples with straight alpha only; 16-bit, HDR, --linear "
                       "and premultiplied blurs take the general kernel (--kernel auto)");
    }
    return general_schedule();
  }
  switch (requested) {
    case KernelVariant::kGeneral:
      return general_schedule();
    case KernelVariant::kNaive:
      return naive_schedule();
    case KernelVariant::kWide:
      return wide_schedule(spec);
    case KernelVariant::kMma:
      if (mma_planes(spec, arch, layout)) return planar_mma_schedule(spec, arch);
      if (!mma_supports(spec, arch)) {
        throw UsageError("--kernel mma needs sm_80 or later, radius up to " +
                         std::to_string(kMmaMaxRadiusY) + ", radius x channels up to " +
                         std::to_string(kMmaMaxHaloBytes) +
                         " and every tap below 65536 (sigma not tiny); use --kernel auto");
      }
      return *mma_schedule(spec, arch);
    case KernelVariant::kTiled:
      if (!tiled_supports(spec)) {
        throw UsageError("--kernel tiled supports radius up to " +
                         std::to_string(kTiledMaxRadiusY) + " and radius x channels up to " +
                         std::to_string(kTiledMaxHaloBytes) + "; use --kernel auto or wide");
      }
      return tiled_schedule(spec);
    case KernelVariant::kAuto:
      break;
  }
  if (mma_planes(spec, arch, layout)) return planar_mma_schedule(spec, arch);
  if (mma_supports(spec, arch)) return *mma_schedule(spec, arch);
  return tiled_supports(spec) ? tiled_schedule(spec) : wide_schedule(spec);
}

GeneratedKernel generate_kernel(const BlurSpec& spec, KernelVariant requested,
                                SampleFormat format, int arch, ChannelLayout layout) {
  GeneratedKernel k;
  k.schedule = choose_schedule(spec, requested, format, arch, layout);
  const int planes = k.schedule.planes;
  k.channels = spec.channels;
  k.format = format;
  const bool general = k.schedule.variant == KernelVariant::kGeneral;
  const std::string shape = std::to_string(spec.x.size) + "x" + std::to_string(spec.y.size);
  const std::string variant(variant_name(k.schedule.variant));
  static constexpr std::array<const char*, 3> kFormatNames = {"", "_16bit", "_float"};
  k.name = "gpublur_" + variant + "_" + shape + "_c" + std::to_string(spec.channels) +
           kFormatNames[static_cast<std::size_t>(format)] +
           (spec.premultiplied ? "_premultiplied" : "") + (planes ? "_planes" : "") + ".cu";
  k.source = prelude(planes ? plane_spec(spec) : spec, k.schedule, shape);
  if (planes) {
    k.source += define("GB_PLANES", planes);
    k.split_entry = "gb_split_planes";
    k.merge_entry = "gb_merge_planes";
  }
  if (general) {
    const GeneralPolicy policy = general_policy(spec, format);
    k.source += policy.defines;
    k.mid_bytes = policy.mid_bytes;
    k.entry = "gb_vertical_kernel";
    k.horizontal_entry = "gb_horizontal_kernel";
  }
  k.source += "#line 1 \"host_device.cuh\"\n";
  k.source += kHostDeviceCuh;
  k.source += "#line 1 \"border.cuh\"\n";
  k.source += kBorderCuh;
  k.source += "#line 1 \"common.cuh\"\n";
  k.source += kCommonCuh;
  if (general) {
    k.source += "#line 1 \"arithmetic.cuh\"\n";
    k.source += kArithmeticCuh;
  }
  k.source +=
      "#line 1 \"" +
      std::string(k.schedule.variant == KernelVariant::kNaive ? "naive_blur" : "blur_" + variant) +
      ".cu\"\n";
  k.source += template_for(k.schedule.variant);
  if (planes) {
    k.source += "#line 1 \"planes.cu\"\n";
    k.source += kPlanesCu;
  }
  return k;
}

namespace {

// The cost of one step in tensor-core products, for comparing tile widths: a horizontal
// product (16 per window chunk; the narrow one 16, its k16 form 8) and a vertical one (8 per chunk).
long long mma_horizontal_cost(const KernelSchedule& s) {
  return s.tiny ? 8LL : 16LL * (s.narrow ? 1 : s.chunks_x);
}
long long mma_vertical_cost(const KernelSchedule& s) { return 8LL * s.chunks_y; }

// A block's time: each unit of output a horizontal product, each vertical step (unit or halo)
// a vertical one, and one step of start-up.
long long mma_block_time(const KernelSchedule& s, long long units) {
  return units * mma_horizontal_cost(s) + (units + s.chunks_x - 1) * mma_vertical_cost(s) +
         mma_horizontal_cost(s) + mma_vertical_cost(s);
}

// Small kernels (4 stages): a small image gives the widest tiles too few blocks to fill the
// SMs (1080p gray 7x7: 68 blocks for 132 SMs), each a long chain of steps; narrower tiles
// spread it out. Below 4 blocks per SM, pick the width whose waves x block time is least
// (measured on the H100, bench/RESULTS.md: this wins there, and loses above, where narrower
// tiles' extra halo steps are pure cost). Above, keep the widest, unless a wider tile drops the
// last wave:
// - where the last wave is at most an eighth full, a width up to half again that fits the
//   blocks in the waves before it (1080p RGBA 31x31: 544 blocks for 528 places, 510 at 16
//   units, 18% faster; 8K gray and 4K RGBA 7x7: 1088 blocks, 1020 at 16 units, 3-4% faster; 4K
//   RGB 31x31: 1632 blocks, 1564 at 16, 7% faster, now that the last column of tiles stops at
//   the image's edge);
// - where a second wave follows the first, a width up to 1.6 times that fits them in one (4K
//   RGB 7x7: 816 blocks, 510 at 24 units, 5% faster; a second wave runs on the few blocks per
//   SM left, latency-bound, at well over half the first one's time). 4K RGBA 7x7 (1020 blocks)
//   would need twice the width, and measured 2-4% slower.
// Wider tiles in general measured up to 30% slower at 4K and 8K.
long long small_kernel_units(const KernelSchedule& s, long long row_units, long long rows,
                             long long slots, int sm_count) {
  const long long widest = s.tile_w / 32;
  const auto blocks = [&](long long units) { return (row_units + units - 1) / units * rows; };
  if (blocks(widest) >= 4LL * sm_count) {
    const long long full_waves = blocks(widest) / slots, last_wave = blocks(widest) % slots;
    const bool second_wave = full_waves == 1;
    if (last_wave == 0 || (last_wave * 8 > slots && !second_wave)) return widest;
    const long long limit = second_wave ? widest * 8 / 5 : widest + widest / 2;
    for (long long units = widest + 1; units <= limit; ++units) {
      if (blocks(units) <= full_waves * slots) return units;
    }
    return widest;
  }
  long long best = widest, best_cost = -1;
  for (long long units = widest; units >= 1; --units) {
    const long long cost = (blocks(units) + slots - 1) / slots * mma_block_time(s, units);
    if (best_cost < 0 || cost < best_cost) best = units, best_cost = cost;
  }
  return best;
}

// Large kernels (2 stages, 1 to 3 blocks per SM): their widest tiles (up to 64 units, chosen
// to amortise the halo) leave SMs idle at 1080p and 4K (1080p RGBA 255x255: 68 blocks for 132
// SMs). Model an SM's time: its blocks a wave at a time, where k blocks sharing an SM each take
// 1 + (k - 1) / 2 times as long as one alone (they are latency-bound, so sharing costs less than
// k times), the last wave holding fewer per SM; a block's time with 8 more steps of start-up
// (its first copies' latency). The widths are those that tile-width sweeps on an H100 and an
// H200 measured (bench/RESULTS.md), up to twice the widest: there this picks within 9% of the
// best measured width at every size and channel count. (56 units, not among them, ran 8-13%
// slower than 48 and 64 at 4K and 8K RGB 255x255.)
long long large_kernel_units(const KernelSchedule& s, long long row_units, long long rows,
                             int sm_count) {
  constexpr long long kStartSteps = 8;
  constexpr long long kWidths[] = {8, 12, 16, 20, 24, 32, 40, 48, 64};
  const long long widest = s.tile_w / 32, per_sm = s.resident_per_sm, slots = per_sm * sm_count;
  const long long step = mma_horizontal_cost(s) + mma_vertical_cost(s);
  const auto sharing_x2 = [](long long k) { return 2 + (k - 1); };  // 2 (1 + (k - 1) / 2)
  long long best = widest, best_cost = -1;
  for (const long long units : kWidths) {
    if (units > 2 * widest) break;
    const long long tiles = (row_units + units - 1) / units;
    const long long balanced = (row_units + tiles - 1) / tiles;  // the width the kernel runs
    const long long blocks = tiles * rows, full = blocks / slots, rest = blocks % slots;
    const long long last = rest == 0 ? 0 : sharing_x2((rest + sm_count - 1) / sm_count);
    const long long block_time = mma_block_time(s, balanced) + kStartSteps * step;
    const long long cost = (full * sharing_x2(per_sm) + last) * block_time;
    if (best_cost < 0 || cost < best_cost) best = units, best_cost = cost;
  }
  return best;
}

// Tile width in 32-byte units for blur_mma.cu on `sm_count` SMs (0: unknown, the widest).
long long mma_tile_units(const KernelSchedule& s, long long row_units, long long rows, int sm_count) {
  const long long slots = static_cast<long long>(sm_count) * s.resident_per_sm;
  if (sm_count <= 0 || slots <= 0) return s.tile_w / 32;
  return s.stages == 4 ? small_kernel_units(s, row_units, rows, slots, sm_count)
                       : large_kernel_units(s, row_units, rows, sm_count);
}

}  // namespace

LaunchDims launch_dims(const GeneratedKernel& kernel, int width, int height, int sm_count,
                       int images) {
  const auto& s = kernel.schedule;
  // A grid layer per image of the stack; a planar blur's, per plane of each image.
  const long long layers = static_cast<long long>(images) * std::max(1, s.planes);
  if (images < 1 || layers > kMaxGridLayers) {
    throw InternalError("a stack of " + std::to_string(images) + " images" +
                        (s.planes ? " of " + std::to_string(s.planes) + " planes" : "") +
                        " does not fit one launch (at most " + std::to_string(kMaxGridLayers) +
                        " grid layers)");
  }
  if (s.variant == KernelVariant::kGeneral) {  // one thread per pixel, one block row per row
    return {static_cast<unsigned>((width + s.block_threads - 1) / s.block_threads),
            static_cast<unsigned>(height), static_cast<unsigned>(layers),
            static_cast<unsigned>(s.block_threads)};
  }
  const long long row_bytes = static_cast<long long>(width) * (s.planes ? 1 : kernel.channels);
  const long long rows = (height + s.tile_h - 1) / s.tile_h;
  long long tile_w = s.tile_w;
  if (s.variant == KernelVariant::kMma) {  // the wave model sees every layer's rows of tiles
    const long long row_units = (row_bytes + 31) / 32;
    tile_w = 32 * mma_tile_units(s, row_units, rows * layers, sm_count);
  }
  return {static_cast<unsigned>((row_bytes + tile_w - 1) / tile_w), static_cast<unsigned>(rows),
          static_cast<unsigned>(layers), static_cast<unsigned>(s.block_threads),
          s.launch_shared_bytes()};
}

LaunchDims plane_copy_dims(int width, int height, int images) {
  constexpr unsigned kThreads = 128;
  const unsigned groups = static_cast<unsigned>((width + 3) / 4);
  return {(groups + kThreads - 1) / kThreads, static_cast<unsigned>(height),
          static_cast<unsigned>(images), kThreads, 0};
}

}  // namespace gpublur
