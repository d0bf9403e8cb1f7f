// pipeline.cpp — orchestration of one invocation; every step lives in its own module.
#include "pipeline.hpp"

#include <chrono>
#include <iomanip>
#include <ostream>

#include "atomic_file.hpp"
#include "codegen.hpp"
#include "cpu_blur.hpp"
#include "errors.hpp"
#include "gpu_blur.hpp"
#include "image_io.hpp"
#include "nvrtc.hpp"
#include "version.hpp"

namespace gpublur {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void write_text(const std::string& path, const std::string& text, std::ostream& out) {
  if (path == "-") {
    out << text;
    if (!text.empty() && text.back() != '\n') out << '\n';
    out.flush();
    return;
  }
  write_file_atomically(path, std::vector<std::uint8_t>(text.begin(), text.end()));
}

std::string taps_text(const Weights& w) {
  std::string s;
  for (auto t : w.taps) s += (s.empty() ? "" : " ") + std::to_string(t);
  return s;
}

int print_version(std::ostream& out) {
  out << "gpublur " << kVersion << "\n";
  try {
    const NvrtcVersion v = nvrtc_version();
    out << "NVRTC " << v.major << "." << v.minor << " (sm_" << v.archs.front() << " to sm_"
        << v.archs.back() << ")\n";
  } catch (const Error& e) {
    out << "NVRTC: not available: " << e.what() << "\n";
  }
  std::string why;
  if (const auto gpu = probe_gpu(why)) {
    out << "driver: " << driver_version_string(gpu->driver_version) << "\n";
    out << "GPU " << gpu->ordinal << ": " << gpu->name << ", compute capability "
        << gpu->arch.capability() << ", " << gpu->memory_bytes / (1024 * 1024) << " MiB\n";
  } else {
    out << "GPU: none (" << why << ")\n";
  }
  return kExitOk;
}

BlurSpec make_spec(const Options& o, const KernelSize& k, int channels) {
  BlurSpec spec;
  spec.x = make_weights(k.size, k.sigma);
  spec.y = spec.x;
  spec.channels = channels;
  spec.border = o.border;
  spec.border_value = o.border_value;
  return spec;
}

// Compiles for --arch, else for the GPU found. Notes what NVRTC could not do as asked.
CompiledKernel compile_for(const Options& o, const GeneratedKernel& kernel,
                           const std::optional<GpuInfo>& gpu, std::ostream& err) {
  if (!o.arch && !gpu) {
    throw UsageError("--dump-ptx needs a GPU to compile for, or --arch (e.g. --arch sm_90)");
  }
  const Arch arch = o.arch ? *o.arch : gpu->arch;
  const CompilePlan plan = plan_compile(arch, o.target, nvrtc_version());
  if (!plan.note.empty()) err << "gpublur: note: " << plan.note << "\n";
  const auto start = Clock::now();
  CompiledKernel compiled = compile_kernel(kernel, plan);
  if (o.verbose) {
    err << "gpublur: compiled " << kernel.name << " to " << target_name(plan.target) << " for "
        << (plan.target == Target::kCubin ? plan.arch.sm() : plan.arch.compute()) << " in "
        << std::fixed << std::setprecision(1) << ms_since(start) << " ms\n";
  }
  if (!compiled.log.empty() && o.verbose) err << "gpublur: NVRTC says:\n" << compiled.log << "\n";
  return compiled;
}

}  // namespace

int run(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.version) return print_version(out);
  validate_options(o);
  const KernelSize k = resolve_kernel_size(o);
  const bool blurring = !o.input.empty() && !o.output.empty();
  if (blurring) check_writable_destination(o.output);

  std::optional<ReadImage> input;
  if (!o.input.empty()) {
    input = read_image(o.input);
    if (!input->conversion.empty()) err << "gpublur: warning: " << input->conversion << "\n";
  }
  const BlurSpec spec = make_spec(o, k, input ? input->image.channels : o.channels);
  if (o.verbose) {
    err << "gpublur: size " << k.size << ", sigma " << k.sigma << " (" << k.rule << ")\n"
        << "gpublur: taps (sum 2^" << kWeightBits << "): " << taps_text(spec.x) << "\n"
        << "gpublur: border " << border_name(spec.border) << ", " << spec.channels << " channels\n";
  }
  const GeneratedKernel kernel = generate_kernel(spec, o.kernel);
  if (o.dump_source) write_text(*o.dump_source, kernel.source, out);

  std::optional<GpuInfo> gpu;
  std::string why_no_gpu = "--device cpu";
  const bool want_gpu_run = blurring && o.device != DeviceChoice::kCpu;
  if (o.device != DeviceChoice::kCpu && (want_gpu_run || (o.dump_ptx && !o.arch))) {
    gpu = probe_gpu(why_no_gpu);
  }
  if (o.device == DeviceChoice::kGpu && !gpu) {
    throw Error("no usable GPU: " + why_no_gpu + " (leave out --device gpu to blur on the CPU)");
  }
  const bool gpu_run = want_gpu_run && gpu.has_value();

  std::optional<CompiledKernel> compiled;
  if (gpu_run || o.dump_ptx) compiled = compile_for(o, kernel, gpu, err);
  if (o.dump_ptx) write_text(*o.dump_ptx, compiled->ptx, out);
  if (!blurring) return kExitOk;

  Image result;
  const auto start = Clock::now();
  if (gpu_run) {
    GpuRun r = blur_on_gpu(input->image, kernel, *compiled, *gpu);
    if (o.verbose) {
      err << "gpublur: blurred on " << gpu->name << " (" << gpu->arch.sm() << "), kernel "
          << std::fixed << std::setprecision(3) << r.kernel_ms << " ms\n";
    }
    result = std::move(r.output);
  } else {
    if (o.device == DeviceChoice::kAuto) {
      err << "gpublur: " << why_no_gpu << "; blurring on the CPU\n";
    }
    result = blur_on_cpu(input->image, spec);
    if (o.verbose) {
      err << "gpublur: blurred on the CPU in " << std::fixed << std::setprecision(1)
          << ms_since(start) << " ms\n";
    }
  }
  WriteOptions write_options;
  write_options.png_level = o.png_level;
  write_options.jpeg_quality = o.jpeg_quality;
  write_image(result, o.output, write_options);
  return kExitOk;
}

}  // namespace gpublur
