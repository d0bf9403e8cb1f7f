// codegen.hpp — BlurSpec -> CUDA C++ source: a generated prelude (taps, radius, channels,
// border, schedule) followed by kernels/common.cuh and one kernel template, both unchanged.
// Pure and deterministic: the same inputs give byte-identical source (pinned by tests/golden/).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "blur_spec.hpp"

namespace gpublur {

/// Which kernel template computes the blur. All give identical bytes; they differ in speed.
enum class KernelVariant {
  kAuto,   // kMma where it applies, else kTiled, else kWide
  kMma,    // kernels/blur_mma.cu: integer tensor cores (sm_80+); radius <= 127, radius x C <= 512
  kTiled,  // kernels/blur_tiled.cu: register strips, FP32-exact vertical pass; radius <= 32
  kWide,   // kernels/blur_wide.cu: any radius, taps from constant memory
  kNaive,  // kernels/naive_blur.cu: the seed's direct 2-D loop, the benchmark baseline
  kGeneral,  // kernels/blur_general.cu: two launches, any sample type, premultiplied alpha
};

/// The samples a kernel reads and writes. Only 8-bit straight blurs have the fast variants;
/// 16-bit, floating-point and premultiplied blurs take kGeneral.
enum class SampleFormat { k8, k16, kFloat };

std::string_view variant_name(KernelVariant variant);
std::optional<KernelVariant> parse_variant(std::string_view name);

/// Whether blur_tiled.cu can run this spec (its unrolled code and halo have limits).
bool tiled_supports(const BlurSpec& spec);
/// Whether blur_mma.cu can run this spec on compute capability `arch` (e.g. 90; 0: not known,
/// taken as a current GPU). It needs sm_80's integer mma and taps below 2^16.
bool mma_supports(const BlurSpec& spec, int arch);

/// How the kernel is run. Chosen from the spec, never from the image, so one compiled kernel
/// serves every image size.
struct KernelSchedule {
  KernelVariant variant = KernelVariant::kWide;
  int block_threads = 256;
  int tile_w = 256;    // output bytes per block (kMma: at most; launch_dims may narrow it)
  int tile_h = 16;     // output rows per block
  int strip_h = 0;     // kTiled: output rows per vertical-pass thread
  int halo = 0;        // kTiled, kMma: intermediate columns each side (multiple of 4, 16)
  int seg = 0;         // kTiled: output bytes per horizontal-pass thread
  int row_stride = 0;  // kTiled: shared row length in 16-bit values
  int shared_bytes = 0;
  bool dynamic_shared = false;  // kMma: shared_bytes is given at launch (it may pass 48 KiB)
  int min_blocks = 0;  // kMma: blocks per SM the register budget is cut for (__launch_bounds__)
  int stages = 0;      // kMma: input steps staged ahead
  int chunks_x = 0;    // kMma: k32 steps of a horizontal product (window 32 x chunks_x)
  int chunks_y = 0;    // kMma: k32 steps of a vertical product
  bool narrow = false; // kMma: the narrow horizontal product (one k32 step per N-tile, whatever chunks_x)
  bool tiny = false;   // kMma: its k16 form (a horizontal halo of at most 4 bytes: half the products)
  int resident_per_sm = 0;  // kMma: blocks an SM holds at once (shared memory, launch bounds)
  int planes = 0;  // kMma: the image's channels blurred as this many one-channel planes, split
                   // off and merged back by kernels/planes.cu (0: the interleaved rows at once)

  /// Dynamic shared memory each launch gives the kernel (0: its shared memory is static).
  unsigned launch_shared_bytes() const { return dynamic_shared ? static_cast<unsigned>(shared_bytes) : 0u; }
};

/// How the tensor-core kernel takes an image of several channels: its interleaved rows at once
/// (taps C bytes apart), or one plane per channel (kAuto: planes where its horizontal products
/// are large enough that skipping the zeros between the taps outweighs the split and merge).
enum class ChannelLayout { kAuto, kInterleaved, kPlanes };

struct GeneratedKernel {
  std::string source;
  std::string name;  // program name for NVRTC diagnostics, e.g. "gpublur_tiled_7x7_c3.cu"
  std::string entry = "gb_blur_kernel";
  std::string horizontal_entry;  // kGeneral: the second launch (entry is then the vertical one)
  int channels = 0;  // the image channel count the kernel was generated for
  SampleFormat format = SampleFormat::k8;
  int mid_bytes = 0;  // kGeneral: bytes per intermediate sample between the launches
  std::string split_entry, merge_entry;  // a planar blur (schedule.planes): before and after it
  KernelSchedule schedule;
};

/// `arch` is the compute capability the kernel is for (e.g. 90), 0 when not known.
/// Throws UsageError when `requested` is kTiled or kMma and the spec or arch is outside its
/// limits, or when a blur only kGeneral computes (see SampleFormat) asks for another variant.
/// `layout` applies to the tensor-core kernel of more than one channel (kAuto: codegen's pick).
KernelSchedule choose_schedule(const BlurSpec& spec,
                               KernelVariant requested = KernelVariant::kAuto,
                               SampleFormat format = SampleFormat::k8, int arch = 0,
                               ChannelLayout layout = ChannelLayout::kAuto);
GeneratedKernel generate_kernel(const BlurSpec& spec,
                                KernelVariant requested = KernelVariant::kAuto,
                                SampleFormat format = SampleFormat::k8, int arch = 0,
                                ChannelLayout layout = ChannelLayout::kAuto);

struct LaunchDims {
  unsigned grid_x = 1;
  unsigned grid_y = 1;
  unsigned grid_z = 1;  // one grid layer per image of a stack (times the planes of a planar blur)
  unsigned block = 1;
  unsigned dynamic_shared_bytes = 0;  // also the function's opt-in (cuda::allow_dynamic_shared)
};

/// Grid and block for a stack of `images` images of width x height pixels each (channels from
/// the kernel), one after another in memory, blurred by one launch (kernels/common.cuh,
/// layer_image). With the GPU's SM count, the tensor-core kernel's tiles are narrowed where that
/// spreads a grid of few waves more evenly over the SMs (its kernel takes the tile width from the
/// grid). Throws InternalError where the stack passes the grid's 65535 layers.
LaunchDims launch_dims(const GeneratedKernel& kernel, int width, int height, int sm_count = 0,
                       int images = 1);

/// Grid and block of a planar blur's split and merge (kernels/planes.cu): 4 pixels a thread, a
/// grid layer per image of the stack.
LaunchDims plane_copy_dims(int width, int height, int images = 1);

}  // namespace gpublur
