// kernel_schedule.hpp — which kernel template blurs a spec, and with what parameters: the
// schedule, chosen from the spec and the GPU's architecture, never from the image, so one compiled
// kernel serves every image size. What to compute is FilterSpec's; this is how. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/name_table.hpp"
#include "image/image.hpp"
#include "mma_geometry.cuh"
#include "ops/filter_spec.hpp"

namespace gpublur {

/// Which kernel template computes the blur. All give identical bytes; they differ in speed.
enum class KernelVariant {
  kAuto,     // kMma where it applies, else kTiled, else kWide
  kMma,      // kernels/blur_mma.cu: integer tensor cores (sm_80+); radius <= 127, radius x C <= 512
             // (the Gaussian, and of 8-bit images the unsharp mask and a matrix of rank one whose
             // numbers fit 16 bits: kernels/mma_finish.cuh)
  kTiled,    // kernels/blur_tiled.cu: register strips, FP32-exact vertical pass; radius <= 32
  kWide,     // kernels/blur_wide.cu: any radius, taps from constant memory
  kNaive,    // kernels/naive_blur.cu: the seed's direct 2-D loop, the benchmark baseline
  kGeneral,  // kernels/blur_general.cu: two launches, any sample type, premultiplied alpha
  kDense,    // kernels/matrix_dense.cu: a convolution matrix not of rank one, one 2-D pass
  kSeparable,  // kernels/separable_tile.cu: kGeneral's passes in one launch, through shared memory
  kDp4a,       // kernels/matrix_dp4a.cu: kDense on 8-bit images, four products at once
  kDenseMma,   // kernels/matrix_mma.cu: kDp4a's of byte weights on the tensor cores (sm_80+), a
               // reach of at most 12 bytes across (radius x channels) and 9 rows
};

inline constexpr NameTable<KernelVariant, 10> kVariantNames{{{
    {KernelVariant::kAuto, "auto", "the fastest that applies"},
    {KernelVariant::kMma, "mma",
     "tensor cores, sm_80 and later; the Gaussian, and of 8-bit images the unsharp mask and "
     "most matrices of rank one"},
    {KernelVariant::kTiled, "tiled", "register strips, radius up to 32"},
    {KernelVariant::kWide, "wide", "any radius"},
    {KernelVariant::kNaive, "naive", "the seed's 2-D loop, the benchmark's baseline"},
    {KernelVariant::kGeneral, "general",
     "two passes; the one for 16-bit, HDR and premultiplied blurs, and for a matrix of rank "
     "one and the unsharp mask where no tile fits"},
    {KernelVariant::kDense, "dense",
     "one 2-D pass, a multiply-add a weight; a matrix not of rank one on 16-bit and HDR images "
     "(and GPUs before sm_61)"},
    {KernelVariant::kSeparable, "separable",
     "general's two passes in one launch; a matrix of rank one or an unsharp mask that mma does "
     "not take, where a tile fits"},
    {KernelVariant::kDp4a, "dp4a",
     "dense's pass four weights at a time (sm_61 and later); a matrix not of rank one on 8-bit "
     "images, one dp4a for each byte of its widest weight"},
    {KernelVariant::kDenseMma, "dense-mma",
     "dense's pass on the tensor cores, a product a matrix row (sm_80 and later); a matrix of "
     "byte weights (-128 to 127) on 8-bit images, up to 9 rows, its radius across times the "
     "channels at most 12 (9x9 on RGB, 7x7 on RGBA)"},
}}};

inline std::string_view variant_name(KernelVariant variant) { return kVariantNames.name(variant); }

// A kernel reads and writes samples of one SampleFormat (image/image.hpp). Only 8-bit straight
// blurs have the fast variants; 16-bit, floating-point and premultiplied blurs take kGeneral.

/// Whether `spec` is a convolution matrix of rank one at `format`'s precision: two 1-D passes
/// (kGeneral), as the CPU twin runs it; a matrix that is not runs as kDense.
bool separable_matrix(const FilterSpec& spec, SampleFormat format);

/// How the tensor-core kernel takes an image of several channels: its interleaved rows at once
/// (taps C bytes apart), or one plane per channel (kAuto: planes where its horizontal products
/// are large enough that skipping the zeros between the taps outweighs the split and merge).
enum class ChannelLayout { kAuto, kInterleaved, kPlanes };

/// blur_tiled.cu's parameters.
struct TiledSchedule {
  int strip_h = 0;     // output rows per vertical-pass thread
  int halo = 0;        // intermediate columns each side (multiple of 4)
  int seg = 0;         // output bytes per horizontal-pass thread
  int row_stride = 0;  // shared row length in 16-bit values
};

/// What the tensor-core kernel's outputs are made from its sums (kernels/mma_finish.cuh).
enum class MmaFinish {
  kGaussian,  // the blur's rounded top byte
  kUnsharp,   // the 8-bit unsharp mask's finish, interleaved only
  kMatrix,    // a matrix of rank one: exact sums, Matrix8's finish, interleaved only
};

/// A matrix of rank one as the tensor-core kernel takes it: W = column x row (vertical taps,
/// horizontal taps), each a 16-bit integer, with the column's common factor moved into the row
/// so that the intermediate (a column's sum of bytes) is as small as it can be and fits 16 bits
/// (gb_mma::exact_mid_fits). The same W, so the same exact sums as the CPU twin's factors.
struct MmaMatrix {
  std::vector<std::int32_t> column, row;
};

/// blur_mma.cu's parameters.
struct MmaSchedule {
  gb_mma::Geometry geometry;  // radius, halo, pad and input stages: every shape follows
  int min_blocks = 0;         // blocks per SM the register budget is cut for (__launch_bounds__)
  int resident_per_sm = 0;    // blocks an SM holds at once (shared memory, launch bounds)
  int planes = 0;  // the image's channels blurred as this many one-channel planes, split off and
                   // merged back by kernels/planes.cu (0: the interleaved rows at once)
  MmaFinish finish = MmaFinish::kGaussian;
  std::optional<MmaMatrix> matrix;  // kMatrix: its taps
};

/// How the kernel is run.
struct KernelSchedule {
  KernelVariant variant = KernelVariant::kWide;
  int block_threads = 256;
  int tile_w = 256;  // output bytes per block (kMma: at most; launch_dims may narrow it)
  int tile_h = 16;   // output rows per block
  int shared_bytes = 0;
  std::optional<TiledSchedule> tiled;  // set for kTiled
  std::optional<MmaSchedule> mma;      // set for kMma

  int planes() const { return mma ? mma->planes : 0; }
  /// Dynamic shared memory each launch gives the kernel (the tensor-core kernel's may pass 48
  /// KiB; the others' is static).
  unsigned launch_shared_bytes() const { return mma ? static_cast<unsigned>(shared_bytes) : 0u; }
};

/// The schedule `requested` runs `spec` with on compute capability `arch` (e.g. 90; 0: not
/// known, taken as a current GPU), or nullopt where that variant cannot run it. kAuto: the fastest
/// variant that can (never nullopt). The Gaussian may take any variant but kDense, kDp4a,
/// kDenseMma and kSeparable; the 8-bit unsharp mask and an 8-bit matrix of rank one take kMma
/// where it applies (interleaved), else kSeparable where its tile fits shared memory, else
/// kGeneral; a matrix not of rank one takes kDenseMma where it applies to gray or RGB (or RGBA
/// 5 wide), else kDp4a, else kDense.
/// `layout` applies to the tensor-core kernel of more than one channel (kAuto: the faster for
/// the spec).
std::optional<KernelSchedule> find_schedule(const FilterSpec& spec, KernelVariant requested,
                                            SampleFormat format = SampleFormat::k8, int arch = 0,
                                            ChannelLayout layout = ChannelLayout::kAuto);

/// find_schedule, or UsageError saying what `requested` cannot do and what to ask for instead.
KernelSchedule choose_schedule(const FilterSpec& spec,
                               KernelVariant requested = KernelVariant::kAuto,
                               SampleFormat format = SampleFormat::k8, int arch = 0,
                               ChannelLayout layout = ChannelLayout::kAuto);

/// Whether `variant` can run an 8-bit straight blur of `spec` on `arch` (in `layout`).
inline bool variant_supports(KernelVariant variant, const FilterSpec& spec, int arch = 0,
                             ChannelLayout layout = ChannelLayout::kAuto) {
  return find_schedule(spec, variant, SampleFormat::k8, arch, layout).has_value();
}

}  // namespace gpublur
