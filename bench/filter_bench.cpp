// filter_bench.cpp — kernel time of gpublur's convolution matrix (dense: kernels/matrix_dp4a.cu
// for byte weights, else matrix_dense.cu; of rank one: blur_mma.cu where its numbers fit, else
// separable_tile.cu) and unsharp mask, next to references measured in the same run:
// the device-to-device copy of the same bytes (the floor) and NPP's nppiFilterBorder (the same
// integer matrix and divisor, the border replicated as gpublur's clamp) or, for the unsharp mask,
// nppiFilterUnsharpBorder (radius size / 2, the same sigma, amount and threshold; NPP's own
// Gaussian and rounding, so its bytes are not gpublur's: a reference time). CUDA events around
// every launch, warm-up, median; buffers rotate through more than 4x the L2 so no launch finds its
// data in cache. Each gpublur row is checked against the CPU twin where that is quick (81 taps or
// fewer).
//
//   gpublur_filter_bench [--sizes 4k,8k] [--channels 1,3,4] [--iters 30] [--only TEXT]
//                        [--kernel NAME] [--source FILE]
//
// --kernel runs each row on that kernel (as the command line's --kernel) where it can, and skips
// the rows it cannot run: two kernels side by side in one run, e.g. dp4a and dense-mma.
// --only runs the rows whose name holds TEXT; --source (an experiment) compiles FILE in place of
// each row's generated source, e.g. an edited --dump-source of the row's filter: its row then
// says whether the edit still gives the CPU's bytes, and how fast it runs.
// The file's GB_BLOCK_THREADS, GB_TILE_W and GB_TILE_H (where it defines them) set its launch.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_gpu.hpp"
#include "bench_timing.hpp"
#include "codegen/codegen.hpp"
#include "codegen/kernel_schedule.hpp"
#include "cpu/cpu_blur.hpp"
#include "gpu/blur_launch.hpp"
#include "gpu/cuda_driver.hpp"
#include "jit/nvrtc.hpp"
#include "npp_gauss.hpp"
#include "ops/blur_parameters.hpp"

namespace gpublur::bench {
namespace {

struct Filter {
  std::string name;
  std::vector<std::vector<int>> matrix;  // empty: the unsharp mask, or the Gaussian alone
  int size = 0;                          // the Gaussian's
  double sigma = 0;
  bool blur_only = false;  // the Gaussian blur itself, the reference the unsharp mask's row has
};

// Weights from -spread to spread (5: bytes; 2000: two byte planes on dp4a), one larger.
std::vector<std::vector<int>> random_matrix(int side, unsigned seed, int spread = 5) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int>> m(static_cast<std::size_t>(side));
  for (auto& row : m) {
    for (int i = 0; i < side; ++i)
      row.push_back(static_cast<int>(rng() % static_cast<unsigned>(2 * spread + 1)) - spread);
  }
  m[0][0] += 50;  // not of rank one
  return m;
}

std::vector<Filter> filters() {
  return {
      {"edges 3x3", {{-1, -1, -1}, {-1, 8, -1}, {-1, -1, -1}}},
      {"sharpen 3x3", {{0, -1, 0}, {-1, 5, -1}, {0, -1, 0}}},
      {"Sobel 3x3 (rank one)", {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}}},
      {"box 5x5 (rank one)", std::vector<std::vector<int>>(5, std::vector<int>(5, 1))},
      {"box 31x31 (rank one)", std::vector<std::vector<int>>(31, std::vector<int>(31, 1))},
      {"Gaussian 31x31 sigma 5 (the blur)", {}, 31, 5.0, true},
      {"random 3x3", random_matrix(3, 5)},
      {"random 5x5", random_matrix(5, 4)},
      {"random 9x9", random_matrix(9, 1)},
      {"random 15x15", random_matrix(15, 2)},
      {"random 31x31", random_matrix(31, 3)},
      {"random 31x31 of two bytes", random_matrix(31, 3, 2000)},
      {"Gaussian 7x7 sigma 1.5 (the blur)", {}, 7, 1.5, true},
      {"unsharp 7x7 sigma 1.5", {}, 7, 1.5},
      {"unsharp 31x31 sigma 5", {}, 31, 5.0},
  };
}

BlurParameters parameters_of(const Filter& f, double amount) {
  BlurParameters p;
  if (f.matrix.empty()) {
    p.operation = f.blur_only ? Operation::kGaussian : Operation::kUnsharp;
    p.size.x = {f.size, f.sigma, "bench"};
    p.size.y = p.size.x;
    p.unsharp = {amount, 0.0};
    return p;
  }
  std::vector<std::vector<double>> rows;
  for (const auto& row : f.matrix) rows.emplace_back(row.begin(), row.end());
  p.operation = Operation::kMatrix;
  p.matrix = matrix_of_rows(rows);
  return p;
}

// The divisor gpublur uses by default (the sum, else 1), for NPP's call.
int default_divisor(const std::vector<std::vector<int>>& m) {
  int sum = 0;
  for (const auto& row : m) {
    for (int v : row) sum += v;
  }
  return sum == 0 ? 1 : sum;
}

// Whether buffer 0's output equals the CPU twin's blur of buffer 0's input.
bool equals_cpu(const RotatingBuffers& b, const FilterSpec& spec, int width, int height,
                int channels, const cuda::Stream& stream) {
  Image in = make_raster<std::uint8_t>(width, height, channels);
  const std::size_t row = in.row_samples();
  for (int y = 0; y < height; ++y) {
    std::copy_n(b.host.data() + static_cast<std::size_t>(y) * b.pitch, row,
                in.pixels.data() + static_cast<std::size_t>(y) * row);
  }
  std::vector<unsigned char> out(b.bytes);
  GB_CU_CHECK(cuda::api().cuMemcpyDtoHAsync(out.data(), b.out[0].get(), b.bytes, stream.get()),
              "download");
  stream.synchronize("downloading the output");
  const Image cpu = blur_on_cpu(in, spec);
  for (int y = 0; y < height; ++y) {
    if (!std::equal(cpu.pixels.begin() + static_cast<long>(static_cast<std::size_t>(y) * row),
                    cpu.pixels.begin() + static_cast<long>(static_cast<std::size_t>(y + 1) * row),
                    out.begin() + static_cast<long>(static_cast<std::size_t>(y) * b.pitch))) {
      return false;
    }
  }
  return true;
}

struct Config {
  std::vector<std::string> sizes{"4k", "8k"};
  std::vector<int> channels{3};
  int iters = 30;
  std::string only;  // rows whose name holds this
  KernelVariant kernel = KernelVariant::kAuto;
  std::string source;  // experiment: a file compiled in place of each row's generated source
  double amount = 1.0;  // the unsharp rows' AMOUNT (a multiply where it is not a power of two)
};

// The integer a source's `#define NAME N` line gives, or `otherwise` where it has none.
int defined_or(const std::string& source, const std::string& name, int otherwise) {
  const std::string line = "#define " + name + " ";
  const std::size_t at = source.find(line);
  return at == std::string::npos ? otherwise : std::stoi(source.substr(at + line.size()));
}

struct Size {
  std::string name;
  int width, height;
};

Size size_named(const std::string& name) {
  if (name == "1080p") return {name, 1920, 1080};
  if (name == "4k") return {name, 3840, 2160};
  if (name == "8k") return {name, 7680, 4320};
  throw CLI::ValidationError("--sizes", "1080p, 4k or 8k, not " + name);
}

// NPP's functions for the rows: a matrix's FilterBorder, the unsharp mask's FilterUnsharpBorder.
struct NppPeers {
  std::optional<NppFilter> filter;
  std::optional<NppUnsharp> unsharp;
};

void print_row(const Filter& f, const Size& size, int channels, const RotatingBuffers& b,
               const GpuInfo& gpu, const cuda::Stream& stream, NppPeers& npp, double copy_ms,
               const Config& config) {
  const int iters = config.iters;
  const FilterSpec spec = make_blur_spec(parameters_of(f, config.amount), channels);
  if (!find_schedule(spec, config.kernel, SampleFormat::k8, gpu.arch.number())) return;
  GeneratedKernel kernel =
      generate_kernel(spec, config.kernel, SampleFormat::k8, gpu.arch.number());
  if (!config.source.empty()) {
    std::ifstream file(config.source, std::ios::binary);
    if (!file) throw std::runtime_error("cannot read " + config.source);
    std::ostringstream text;
    text << file.rdbuf();
    kernel.source = text.str();
    // An edit may change the block's shape: its launch follows the file's own defines.
    kernel.schedule.block_threads =
        defined_or(kernel.source, "GB_BLOCK_THREADS", kernel.schedule.block_threads);
    kernel.schedule.tile_w = defined_or(kernel.source, "GB_TILE_W", kernel.schedule.tile_w);
    kernel.schedule.tile_h = defined_or(kernel.source, "GB_TILE_H", kernel.schedule.tile_h);
  }
  const CompiledKernel compiled =
      compile_kernel(kernel, plan_compile(gpu.arch, Target::kCubin, nvrtc_version()));
  const cuda::Module module(compiled.module_image(), kernel.name);
  const BlurFunctions functions = blur_functions(module, kernel);
  const std::size_t scratch_bytes = blur_scratch_bytes(kernel, size.width, size.height);
  const cuda::DeviceBuffer scratch(std::max<std::size_t>(scratch_bytes, 1));
  const LaunchDims dims = launch_dims(kernel, size.width, size.height, gpu.sm_count);
  const int pitch = static_cast<int>(b.pitch);
  const double ms = median_ms(stream, 3, iters, [&](std::size_t i) {
    launch_blur(kernel, functions, dims, {b.input(i), pitch}, {b.output(i), pitch}, size.width,
                size.height, 1, scratch.get(), stream.get());
  });
  launch_blur(kernel, functions, dims, {b.in[0].get(), pitch}, {b.out[0].get(), pitch}, size.width,
              size.height, 1, scratch.get(), stream.get());
  const int taps =
      f.matrix.empty() ? 2 * f.size : static_cast<int>(f.matrix.size() * f.matrix[0].size());
  const char* check = taps > 81                                                        ? "-"
                      : equals_cpu(b, spec, size.width, size.height, channels, stream) ? "== CPU"
                                                                                       : "DIFFERS";
  std::string npp_ms = "-", npp_ratio = "-";
  int status = 0;
  double n = 0;
  if (npp.unsharp && f.matrix.empty() && !f.blur_only) {
    const BlurParameters p = parameters_of(f, config.amount);
    n = median_ms(stream, 3, iters, [&](std::size_t i) {
      status |= npp.unsharp->run(b.input(i), pitch, b.output(i), pitch, size.width, size.height,
                                 channels, static_cast<float>(f.size / 2),
                                 static_cast<float>(f.sigma), static_cast<float>(p.unsharp.amount),
                                 static_cast<float>(p.unsharp.threshold));
    });
  } else if (npp.filter && !f.matrix.empty()) {
    std::vector<int> flat;
    for (const auto& row : f.matrix) flat.insert(flat.end(), row.begin(), row.end());
    const cuda::DeviceBuffer weights(flat.size() * sizeof(int));
    GB_CU_CHECK(cuda::api().cuMemcpyHtoDAsync(weights.get(), flat.data(), flat.size() * sizeof(int),
                                              stream.get()),
                "matrix upload");
    const int w = static_cast<int>(f.matrix[0].size()), h = static_cast<int>(f.matrix.size());
    n = median_ms(stream, 3, iters, [&](std::size_t i) {
      status |= npp.filter->run(b.input(i), pitch, b.output(i), pitch, size.width, size.height,
                                channels, weights.get(), w, h, default_divisor(f.matrix));
    });
  }
  if (n > 0 || status != 0) {
    npp_ms = status == 0 ? std::to_string(n).substr(0, 6) : "error " + std::to_string(status);
    if (status == 0) npp_ratio = std::to_string(n / ms).substr(0, 5);
  }
  const double bytes = 2.0 * static_cast<double>(size.width) * size.height * channels;
  std::printf("| %s | %s | %d | %.3f | %.3f | %.2f | %.0f | %s | %s | %s | %s |\n", f.name.c_str(),
              size.name.c_str(), channels, copy_ms, ms, ms / copy_ms, bytes / ms / 1e6,
              std::string(variant_name(kernel.schedule.variant)).c_str(), npp_ms.c_str(),
              npp_ratio.c_str(), check);
}

int run(const Config& config) {
  const BenchGpu gpu = open_gpu_or_exit("gpublur_filter_bench");
  const cuda::Stream stream;
  std::string why, unsharp_why;
  NppPeers npp{NppFilter::load(stream.get(), why), NppUnsharp::load(stream.get(), unsharp_why)};
  CUdevice device = 0;
  GB_CU_CHECK(cuda::api().cuDeviceGet(&device, 0), "device");
  int l2 = 0;
  GB_CU_CHECK(cuda::api().cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device),
              "L2");
  std::printf(
      "device: %s (%s); NPP: %s\nms per image: median of %d, CUDA events, buffers "
      "rotating over > 4x L2; x copy = time / the device copy's; GB/s = bytes read and "
      "written once / time; 8-bit, border clamp (NPP: replicate); unsharp AMOUNT %g\n\n",
      gpu.info.name.c_str(), gpu.info.arch.sm().c_str(),
      npp.filter ? (npp.unsharp ? "loaded" : unsharp_why.c_str()) : why.c_str(), config.iters,
      config.amount);
  std::printf(
      "| filter | size | C | copy ms | gpublur ms | x copy | GB/s | kernel | NPP ms | "
      "NPP/gpublur | check |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& name : config.sizes) {
    const Size size = size_named(name);
    for (int channels : config.channels) {
      const RotatingBuffers b = rotating_buffers(size.width, size.height, channels, 1,
                                                 static_cast<std::size_t>(l2), stream);
      const double copy_ms = median_ms(stream, 3, config.iters, [&](std::size_t i) {
        GB_CU_CHECK(cuda::api().cuMemcpyDtoDAsync(b.output(i), b.input(i), b.bytes, stream.get()),
                    "copy");
      });
      for (const Filter& f : filters()) {
        if (f.name.find(config.only) == std::string::npos) continue;
        print_row(f, size, channels, b, gpu.info, stream, npp, copy_ms, config);
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace gpublur::bench

int main(int argc, char** argv) {
  gpublur::bench::Config config;
  CLI::App app{"gpublur_filter_bench: the matrix and unsharp kernels against the copy and NPP"};
  app.add_option("--sizes", config.sizes, "1080p, 4k, 8k")->delimiter(',');
  app.add_option("--channels", config.channels, "1, 3, 4")->delimiter(',');
  app.add_option("--iters", config.iters, "timed launches per row");
  app.add_option("--only", config.only, "the rows whose filter's name holds this text");
  std::string kernel = "auto";
  app.add_option("--kernel", kernel, "run each row on this kernel where it can (else skip it)");
  app.add_option("--source", config.source,
                 "experiment: compile this file in place of each row's generated source");
  app.add_option("--amount", config.amount, "the unsharp rows' AMOUNT (THRESHOLD 0)")
      ->check(CLI::Range(0.0, 10.0));
  CLI11_PARSE(app, argc, argv);
  const auto variant = gpublur::kVariantNames.parse(kernel);
  if (!variant) {
    std::fprintf(stderr, "gpublur_filter_bench: --kernel: no kernel named %s\n", kernel.c_str());
    return 2;
  }
  config.kernel = *variant;
  try {
    return gpublur::bench::run(config);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpublur_filter_bench: %s\n", e.what());
    return 1;
  }
}
