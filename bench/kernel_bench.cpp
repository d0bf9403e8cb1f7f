// kernel_bench.cpp — kernel time of gpublur's blur next to references measured in the same run:
// the device-to-device copy of the same bytes (the floor), the seed-style naive kernel, and NPP's
// FilterGaussBorder where the toolkit has it. CUDA events around every launch, warm-up, median;
// buffers rotate through more than 4x the L2 so no launch finds its data in cache.
//
//   gpublur_bench [--sizes 1080p,4k,8k] [--ksizes 3,7,15,31,101,255] [--channels 1,3,4]
//                 [--images N]  (N images a launch, times per image)
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/codegen.hpp"
#include "cpu/cpu_blur.hpp"
#include "gpu/blur_launch.hpp"
#include "gpu/cuda_driver.hpp"
#include "gpu/gpu_blur.hpp"
#include "jit/nvrtc.hpp"
#include "bench_timing.hpp"
#include "npp_gauss.hpp"
#include "ops/border.hpp"
#include "ops/gaussian.hpp"
#include "ops/weights.hpp"

namespace gpublur::bench {
namespace {

struct Size {
  const char* name;
  int width, height;
};
const std::map<std::string, Size> kSizes = {{"1080p", {"1920x1080", 1920, 1080}},
                                            {"4k", {"3840x2160", 3840, 2160}},
                                            {"8k", {"7680x4320", 7680, 4320}}};

// --images N: every launch blurs a stack of N images of the size, one after another in memory
// (as a batch of video frames or a tensor's images lie), and a row's times are per image: the
// launch's time / N, the copy's of the whole stack / N. 1: one image a launch.
int g_images = 1;

// --queued: a kernel that holds the GPU for kHoldNs before each timed launch's start event.
// By the time the GPU reaches that event the host has queued the event, the launch and the stop
// event behind it, so the pair measures the GPU's time for the work alone, as back-to-back work in
// a stream runs, without the host's launch latency (5 us for an empty kernel on our H100). Every
// row, the copy's included, is timed the same way.
CUfunction g_hold = nullptr;
constexpr unsigned long long kHoldNs = 100000;  // far more than the host's few launch calls take

// --batch N: each event pair times N launches back to back, each on the next of the rotating
// buffers (so every one finds its image out of cache), and a measurement is their time / N: the
// time per image of a stream of images, as a pipeline sees it, where one launch's start overlaps
// the previous one's end. 1: each launch alone between its events.
int g_batch = 1;

// A row's time: median_ms of fn, which works on a whole stack (--images), per image of it.
double per_image_ms(const cuda::Stream& stream, int warmup, int iters,
                    const std::function<void(std::size_t)>& fn) {
  return median_ms(stream, warmup, iters, fn, {g_batch, g_hold, kHoldNs}) / g_images;
}

struct LoadedKernel {
  GeneratedKernel kernel;
  cuda::Module module;
  BlurFunctions functions;
  std::optional<cuda::DeviceBuffer> scratch;  // kGeneral's intermediate, a planar blur's planes
};

// Experiment knobs: the tensor-core kernel's __launch_bounds__ blocks per SM, overriding
// codegen's choice (0: keep it); its widest tiles always, without launch_dims' balancing over
// the SMs; and its template replaced by a file, to compare versions of blur_mma.cu in one run
// without a rebuild. Only the benchmark has them; results are checked as always.
int g_mma_min_blocks = 0;
// The narrow mma kernel's warps per block (0: codegen's), with the same registers.
int g_mma_warps = 0;
// The narrow mma kernel's input ring: steps staged ahead + 1 (0: codegen's; a power of two).
int g_mma_stages = 0;
bool g_widest_tiles = false;
std::string g_mma_source;  // experiment: a file that replaces blur_mma.cu in the generated source
int g_mma_units = 0;       // the tile width of the row being timed, from --mma-units (0: launch_dims', -1: widest)
int g_sm_count = 0;

// 32-byte units of a row the kernel walks: a planar blur's rows are one channel.
long long row_units(const GeneratedKernel& kernel, int width) {
  return (static_cast<long long>(width) * (kernel.schedule.planes() ? 1 : kernel.channels) + 31) /
         32;
}

LaunchDims bench_launch_dims(const GeneratedKernel& kernel, int width, int height) {
  const bool widest = g_widest_tiles || g_mma_units < 0;
  LaunchDims d = launch_dims(kernel, width, height, widest ? 0 : g_sm_count, g_images);
  if (kernel.schedule.variant == KernelVariant::kMma && g_mma_units > 0) {
    const long long units = row_units(kernel, width);
    d.grid_x = static_cast<unsigned>((units + g_mma_units - 1) / g_mma_units);
  }
  return d;
}

// Replaces the value of `#define name old` in the generated source.
void redefine(std::string& source, const std::string& name, int old_value, int new_value) {
  const std::string from = "#define " + name + " " + std::to_string(old_value) + "\n";
  const std::size_t at = source.find(from);
  if (at == std::string::npos) throw std::runtime_error("no " + from + " in the source");
  source.replace(at, from.size(), "#define " + name + " " + std::to_string(new_value) + "\n");
}

LoadedKernel load(const BlurSpec& spec, KernelVariant variant, const GpuInfo& gpu, const Size& size,
                  ChannelLayout layout = ChannelLayout::kAuto) {
  GeneratedKernel kernel = generate_kernel(spec, variant, SampleFormat::k8, gpu.arch.number(), layout);
  KernelSchedule& s = kernel.schedule;
  if (s.mma && g_mma_min_blocks > 0) {
    redefine(kernel.source, "GB_MIN_BLOCKS", s.mma->min_blocks, g_mma_min_blocks);
    s.mma->min_blocks = g_mma_min_blocks;
    s.mma->resident_per_sm = g_mma_min_blocks;  // what launch_dims' wave model counts
  }
  if (s.mma && g_mma_warps > 0 && g_mma_warps != s.block_threads / 32) {
    // Only the narrow kernels, whose shared memory is the warps' own (no tap tables); the
    // register budget stays that of 16 warps per SM.
    if (!s.mma->geometry.narrow())
      throw std::runtime_error("--mma-warps: only for the narrow mma kernels (7 x 7 and less)");
    const int warps = s.block_threads / 32;
    const int shared = s.mma->geometry.shared_bytes(g_mma_warps);
    const int min_blocks = std::max(1, s.mma->min_blocks * warps / g_mma_warps);
    redefine(kernel.source, "GB_BLOCK_THREADS", s.block_threads, 32 * g_mma_warps);
    redefine(kernel.source, "GB_TILE_H", s.tile_h, 16 * g_mma_warps);
    redefine(kernel.source, "GB_SHARED_BYTES", s.shared_bytes, shared);
    redefine(kernel.source, "GB_MIN_BLOCKS", s.mma->min_blocks, min_blocks);
    s.block_threads = 32 * g_mma_warps;
    s.tile_h = 16 * g_mma_warps;
    s.shared_bytes = shared;
    s.mma->min_blocks = min_blocks;
    s.mma->resident_per_sm = min_blocks;
  }
  if (s.mma && g_mma_stages > 0 && g_mma_stages != s.mma->geometry.stages) {
    // The ring's slots are a warp's own.
    if (!s.mma->geometry.narrow())
      throw std::runtime_error("--mma-stages: only for the narrow mma kernels (7 x 7 and less)");
    redefine(kernel.source, "GB_STAGES", s.mma->geometry.stages, g_mma_stages);
    s.mma->geometry.stages = g_mma_stages;
    const int shared = s.mma->geometry.shared_bytes(s.block_threads / 32);
    redefine(kernel.source, "GB_SHARED_BYTES", s.shared_bytes, shared);
    s.shared_bytes = shared;
  }
  if (s.variant == KernelVariant::kMma && !g_mma_source.empty()) {
    const std::string marker = "#line 1 \"blur_mma.cu\"\n";
    const std::size_t at = kernel.source.find(marker);
    if (at == std::string::npos) throw std::runtime_error("no blur_mma.cu in the generated source");
    std::ifstream file(g_mma_source, std::ios::binary);
    if (!file) throw std::runtime_error("cannot read " + g_mma_source);
    kernel.source.replace(at + marker.size(), std::string::npos,
                          std::string(std::istreambuf_iterator<char>(file), {}));
  }
  const CompiledKernel compiled =
      compile_kernel(kernel, plan_compile(gpu.arch, Target::kCubin, nvrtc_version()));
  cuda::Module module(compiled.module_image(), kernel.name);
  const BlurFunctions functions = blur_functions(module, kernel);
  LoadedKernel loaded{std::move(kernel), std::move(module), functions, std::nullopt};
  if (const std::size_t bytes =
          blur_scratch_bytes(loaded.kernel, size.width, size.height, g_images)) {
    loaded.scratch.emplace(bytes);
  }
  return loaded;
}

// The whole blur, as gpublur launches it: a planar blur's split and merge included.
void launch(const LoadedKernel& k, const RotatingBuffers& b, std::size_t i, int width, int height,
            const cuda::Stream& s) {
  const int pitch = static_cast<int>(b.pitch);
  launch_blur(k.kernel, k.functions, bench_launch_dims(k.kernel, width, height),
              {b.input(i), pitch}, {b.output(i), pitch}, width,
              height, g_images, k.scratch ? k.scratch->get() : 0, s.get());
}

// "mma 480x64": the variant and the tile (bytes x rows) this image's launch used.
std::string kernel_label(const LoadedKernel& k, const Size& size) {
  const LaunchDims d = bench_launch_dims(k.kernel, size.width, size.height);
  const long long units = row_units(k.kernel, size.width);
  const long long tile_w = k.kernel.schedule.variant == KernelVariant::kMma
                               ? 32 * ((units + d.grid_x - 1) / d.grid_x)
                               : k.kernel.schedule.tile_w;
  return std::string(variant_name(k.kernel.schedule.variant)) +
         (k.kernel.schedule.planes() ? " planes " : " ") + std::to_string(tile_w) + "x" +
         std::to_string(k.kernel.schedule.tile_h);
}

std::vector<unsigned char> download(const cuda::DeviceBuffer& buffer, std::size_t bytes,
                                    const cuda::Stream& s) {
  std::vector<unsigned char> host(bytes);
  GB_CU_CHECK(cuda::api().cuMemcpyDtoHAsync(host.data(), buffer.get(), bytes, s.get()), "download");
  s.synchronize("downloading benchmark output");
  return host;
}

// Outputs of buffer pair 0 from two kernels must match byte for byte (padding excluded).
bool same_output(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b,
                 std::size_t pitch, std::size_t row_bytes) {
  for (std::size_t off = 0; off < a.size(); off += pitch) {
    if (!std::equal(a.begin() + static_cast<long>(off),
                    a.begin() + static_cast<long>(off + row_bytes),
                    b.begin() + static_cast<long>(off))) {
      return false;
    }
  }
  return true;
}

struct Config {
  std::vector<std::string> sizes{"1080p", "4k", "8k"};
  std::vector<int> ksizes{3, 7, 15, 31, 101, 255};
  std::vector<int> channels{1, 3, 4};
  int iters = 30;
  int naive_max = 31;  // the naive kernel is (2r+1)^2: beyond this it takes seconds per image
  std::vector<int> mma_units{0};  // experiment: tile widths to time the mma kernel at (0: launch_dims')
  std::vector<std::string> layouts{"auto"};  // experiment: channel layouts of the mma kernel, one row each
  bool queued = false;           // time the GPU's work without the host's launch latency (g_hold)
  std::string border = "clamp";  // every kernel's border (the constant one: value 0)
};

ChannelLayout parse_layout(const std::string& name) {
  if (name == "auto") return ChannelLayout::kAuto;
  if (name == "interleaved") return ChannelLayout::kInterleaved;
  if (name == "planes") return ChannelLayout::kPlanes;
  throw std::runtime_error("--layouts: auto, interleaved or planes, not " + name);
}

// A module of one kernel the benchmark itself needs, compiled for this GPU.
cuda::Module bench_module(const GpuInfo& gpu, const std::string& source, const std::string& name) {
  GeneratedKernel kernel;
  kernel.source = source;
  kernel.name = name;
  const CompiledKernel compiled =
      compile_kernel(kernel, plan_compile(gpu.arch, Target::kCubin, nvrtc_version()));
  return cuda::Module(compiled.module_image(), kernel.name);
}

// The launch floor: an empty kernel of one block, timed as every row is. No kernel, however
// little it moves, measures below it; small images' ratios to the copy are mostly this.
double empty_kernel_ms(const GpuInfo& gpu, const cuda::Stream& stream, int iters) {
  const cuda::Module module = bench_module(
      gpu, "extern \"C\" __global__ void gb_empty_kernel() {}\n", "gpublur_bench_empty.cu");
  const CUfunction function = module.function("gb_empty_kernel");
  return median_ms(stream, 5, iters, [&](std::size_t) {
    GB_CU_CHECK(cuda::api().cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream.get(), nullptr, nullptr),
                "empty kernel");
  }, {g_batch, g_hold, kHoldNs});
}

int run(const Config& config) {
  std::string why;
  const auto gpu = probe_gpu(why);
  if (!gpu) {
    std::fprintf(stderr, "gpublur_bench: no GPU: %s\n", why.c_str());
    return 1;
  }
  CUdevice device = 0;
  GB_CU_CHECK(cuda::api().cuDeviceGet(&device, 0), "device");
  cuda::Context context(device);
  g_sm_count = gpu->sm_count;
  int l2 = 0;
  GB_CU_CHECK(cuda::api().cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device),
              "L2");
  cuda::Stream stream;
  std::string npp_why;
  const auto npp = NppGauss::load(stream.get(), npp_why);
  std::printf("device: %s (%s), %s, L2 %d MiB; NPP: %s\n", gpu->name.c_str(),
              gpu->arch.sm().c_str(), driver_version_string(gpu->driver_version).c_str(), l2 >> 20,
              npp ? "loaded" : npp_why.c_str());
  // Spins one thread on the GPU's nanosecond timer (--queued).
  const cuda::Module hold_module = bench_module(
      *gpu,
      "extern \"C\" __global__ void gb_hold_kernel(unsigned long long ns) {\n"
      "  unsigned long long start, now;\n"
      "  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(start));\n"
      "  do asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(now)); while (now - start < ns);\n"
      "}\n",
      "gpublur_bench_hold.cu");
  if (config.queued) g_hold = hold_module.function("gb_hold_kernel");
  const std::string batched = g_batch > 1
                                  ? "; batch: each measurement " + std::to_string(g_batch) +
                                        " launches back to back between its events, divided by " +
                                        std::to_string(g_batch)
                                  : std::string();
  const std::string stacked = g_images > 1
                                  ? "; stack: each launch blurs " + std::to_string(g_images) +
                                        " images one after another in memory (one copy of them "
                                        "all), and a time is its time / " +
                                        std::to_string(g_images)
                                  : std::string();
  std::printf(
      "ms per image (median of %d, CUDA events, buffers rotating over > 4x L2%s%s%s); copy = "
      "device-to-device copy of the same bytes; x = time / copy time\n\n",
      config.iters,
      config.queued
          ? "; queued: each launch behind a kernel holding the GPU, so no host launch latency"
          : "",
      batched.c_str(), stacked.c_str());
  std::printf("launch floor: an empty kernel, timed the same way, %.4f ms\n\n",
              empty_kernel_ms(*gpu, stream, config.iters));
  std::printf(
      "| size | C | k | copy ms | gpublur ms | x copy | GB/s | GPix/s | kernel | tiled/wide ms | "
      "that/gpublur | naive ms | naive/gpublur | NPP ms | NPP/gpublur | check |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& size_name : config.sizes) {
    const Size size = kSizes.at(size_name);
    for (int channels : config.channels) {
      const RotatingBuffers b = rotating_buffers(size.width, size.height, channels, g_images,
                                                 static_cast<std::size_t>(l2), stream);
      const std::size_t row_bytes =
          static_cast<std::size_t>(size.width) * static_cast<std::size_t>(channels);
      const double copy_ms = per_image_ms(stream, 5, config.iters, [&](std::size_t i) {
        GB_CU_CHECK(
            cuda::api().cuMemcpyDtoDAsync(b.output(i), b.input(i), b.bytes, stream.get()),
            "copy");
      });
      for (int ksize : config.ksizes) {
        BlurSpec spec;
        spec.x = gaussian_axis(ksize, sigma_for_size(ksize));
        spec.y = spec.x;
        spec.channels = channels;
        spec.border = *kBorderNames.parse(config.border);
        // One row per channel layout (--layouts) and tile width (--mma-units; a single 0 is
        // launch_dims' choice), each with its own time and output, checked against the same
        // references.
        struct Timed {
          int units;
          double ms;
          std::vector<unsigned char> out;
          std::string label;
          KernelVariant variant;
        };
        std::vector<Timed> timed;
        for (const std::string& layout : config.layouts) {
          const LoadedKernel fast = load(spec, KernelVariant::kAuto, *gpu, size, parse_layout(layout));
          for (int units : config.mma_units) {
            g_mma_units = units;
            const double ms = per_image_ms(stream, 3, config.iters, [&](std::size_t i) {
              launch(fast, b, i, size.width, size.height, stream);
            });
            timed.push_back({units, ms, download(b.out[0], b.bytes, stream), kernel_label(fast, size),
                             fast.kernel.schedule.variant});
            if (fast.kernel.schedule.variant != KernelVariant::kMma) break;  // no tile widths
          }
          if (channels == 1 || fast.kernel.schedule.variant != KernelVariant::kMma) break;  // one layout
        }
        const double ms = timed.front().ms;
        const KernelVariant fast_variant = timed.front().variant;

        // The fastest kernel without tensor cores (tiled, else wide), where auto chose another:
        // what the tensor-core kernel gains, and a second check of its bytes.
        std::string tiled_col = "-", tiled_ratio = "-";
        std::vector<std::pair<std::string, std::vector<unsigned char>>> references;
        const KernelVariant previous = variant_supports(KernelVariant::kTiled, spec)
                                           ? KernelVariant::kTiled
                                           : KernelVariant::kWide;
        if (fast_variant != previous) {
          const LoadedKernel other = load(spec, previous, *gpu, size);
          const int iters = previous == KernelVariant::kWide ? 5 : config.iters;
          const double tms = per_image_ms(stream, 1, iters, [&](std::size_t i) {
            launch(other, b, i, size.width, size.height, stream);
          });
          tiled_col = std::string(variant_name(previous)) + " " + std::to_string(tms).substr(0, 7);
          tiled_ratio = std::to_string(tms / ms).substr(0, 5);
          references.emplace_back(variant_name(previous), download(b.out[0], b.bytes, stream));
        }
        std::string naive_col = "-", naive_ratio = "-";
        if (ksize <= config.naive_max) {
          const LoadedKernel naive = load(spec, KernelVariant::kNaive, *gpu, size);
          const int iters = ksize >= 31 ? 5 : config.iters;
          const double nms = per_image_ms(stream, 1, iters, [&](std::size_t i) {
            launch(naive, b, i, size.width, size.height, stream);
          });
          naive_col = std::to_string(nms).substr(0, 7);
          naive_ratio = std::to_string(nms / ms).substr(0, 5);
          references.emplace_back("naive", download(b.out[0], b.bytes, stream));
        }
        std::string npp_col = "-", npp_ratio = "-";
        if (npp && NppGauss::supports(ksize)) {
          int status = 0;
          const double nms = per_image_ms(stream, 3, config.iters, [&](std::size_t i) {
            for (int image = 0; image < g_images; ++image) {  // NPP blurs one image a call
              const std::size_t at = static_cast<std::size_t>(image) * b.image_bytes;
              status |= npp->run(b.input(i) + at, static_cast<int>(b.pitch),
                                 b.output(i) + at, static_cast<int>(b.pitch),
                                 size.width, size.height, channels, ksize);
            }
          });
          npp_col =
              status == 0 ? std::to_string(nms).substr(0, 7) : "error " + std::to_string(status);
          if (status == 0) npp_ratio = std::to_string(nms / ms).substr(0, 5);
        }
        const double pixels = static_cast<double>(size.width) * size.height;
        const double moved = 2.0 * static_cast<double>(row_bytes) * size.height;  // read + write
        for (const Timed& t : timed) {
          g_mma_units = t.units;
          std::string check = "-";
          for (const auto& [name, out] : references) {
            const bool same = same_output(t.out, out, b.pitch, row_bytes);
            check = check == "DIFFERS" || !same ? "DIFFERS"
                    : check == "-"              ? "== " + name
                                                : check + ", == " + name;
          }
          std::printf(
              "| %s | %d | %d | %.5f | %.5f | %.3f | %.0f | %.1f | %s | %s | %s | %s | %s | %s | "
              "%s | %s |\n",
              size.name, channels, ksize, copy_ms, t.ms, t.ms / copy_ms, moved / t.ms / 1e6,
              pixels / t.ms / 1e6, t.label.c_str(), tiled_col.c_str(),
              tiled_ratio.c_str(), naive_col.c_str(), naive_ratio.c_str(), npp_col.c_str(),
              npp_ratio.c_str(), check.c_str());
        }
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace gpublur::bench

int main(int argc, char** argv) {
  gpublur::bench::Config config;
  CLI::App app{"gpublur kernel benchmark: gpublur vs copy, naive and NPP on one GPU, one run"};
  app.add_option("--sizes", config.sizes, "1080p, 4k, 8k")->delimiter(',');
  app.add_option("--ksizes", config.ksizes, "kernel sizes")->delimiter(',');
  app.add_option("--channels", config.channels, "channel counts")->delimiter(',');
  app.add_option("--iters", config.iters, "timed launches per measurement");
  app.add_option("--naive-max", config.naive_max,
                 "largest kernel size to time the naive kernel at");
  app.add_option("--mma-min-blocks", gpublur::bench::g_mma_min_blocks,
                 "experiment: the mma kernel's __launch_bounds__ blocks per SM (0: codegen's)");
  app.add_option(
      "--mma-warps", gpublur::bench::g_mma_warps,
      "experiment: the narrow mma kernel's warps per block (0: codegen's), blocks per SM "
      "scaled to keep its registers");
  app.add_option("--mma-stages", gpublur::bench::g_mma_stages,
                 "experiment: the narrow mma kernel's input ring in steps, a power of two (0: "
                 "codegen's 4)");
  app.add_option("--mma-source", gpublur::bench::g_mma_source,
                 "experiment: compile this file in place of kernels/blur_mma.cu (results checked as always)");
  app.add_option("--layouts", config.layouts,
                 "experiment: the mma kernel's channel layouts, one row each: auto, interleaved, planes")
      ->delimiter(',');
  app.add_option("--mma-units", config.mma_units,
                 "experiment: the mma kernel's tile widths in 32-byte units, one row each (0: "
                 "launch_dims' choice, -1: its widest)")
      ->delimiter(',');
  app.add_flag(
      "--queued", config.queued,
      "time every launch queued behind a kernel that holds the GPU: the GPU's time for the "
      "work, without the host's launch latency");
  app.add_option("--batch", gpublur::bench::g_batch,
                 "time N launches back to back per measurement, on rotating buffers, and report "
                 "the time per image (default 1: each launch alone)")
      ->check(CLI::PositiveNumber);
  app.add_option("--images", gpublur::bench::g_images,
                 "blur a stack of N images of each size with each launch (a batch, one after "
                 "another in memory) and report the time per image (default 1)")
      ->check(CLI::Range(1, 4096));
  app.add_flag("--widest-tiles", gpublur::bench::g_widest_tiles,
               "experiment: the mma kernel's widest tiles, not balanced over the SMs");
  app.add_option("--border", config.border,
                 "border of every blur: clamp, reflect, reflect101, wrap, constant (0)")
      ->check([](const std::string& name) {
        return gpublur::kBorderNames.parse(name) ? std::string() : "not a border: " + name;
      });
  CLI11_PARSE(app, argc, argv);
  try {
    return gpublur::bench::run(config);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpublur_bench: %s\n", e.what());
    return 1;
  }
}
