// nvrtc.cpp — architecture planning and kernel compilation on top of nvrtc_program.
#include "jit/nvrtc.hpp"

#include <algorithm>

#include "base/errors.hpp"
#include "jit/nvrtc_program.hpp"

namespace gpublur {

NvrtcVersion nvrtc_version() {
  const auto& nv = nvrtc::api();
  NvrtcVersion v;
  nv.nvrtcVersion(&v.major, &v.minor);
  int count = 0;
  nv.nvrtcGetNumSupportedArchs(&count);
  v.archs.resize(static_cast<std::size_t>(std::max(count, 0)));
  if (count > 0) nv.nvrtcGetSupportedArchs(v.archs.data());
  std::sort(v.archs.begin(), v.archs.end());
  return v;
}

CompilePlan plan_compile(Arch device, Target requested, const NvrtcVersion& nvrtc) {
  const std::string version = std::to_string(nvrtc.major) + "." + std::to_string(nvrtc.minor);
  if (nvrtc.archs.empty()) throw Error("NVRTC " + version + " reports no supported architectures");
  const int oldest = nvrtc.archs.front();
  const int newest = nvrtc.archs.back();
  if (device.number() < oldest) {
    throw UsageError("architecture " + device.sm() + " is older than NVRTC " + version +
                     " supports (oldest: " + arch_from_number(oldest).sm() + ")");
  }
  if (std::binary_search(nvrtc.archs.begin(), nvrtc.archs.end(), device.number())) {
    return {device, requested, ""};
  }
  // Newer than this NVRTC knows, or a gap in its list: PTX for the best architecture below it,
  // which the driver compiles for the real GPU when loading.
  const int best =
      *std::prev(std::upper_bound(nvrtc.archs.begin(), nvrtc.archs.end(), device.number()));
  CompilePlan plan{arch_from_number(best), Target::kPtx, ""};
  plan.note = "NVRTC " + version + " cannot compile for " + device.sm() +
              " (newest: " + arch_from_number(newest).sm() + "); using PTX for " +
              plan.arch.compute() + ", which the driver compiles for this GPU";
  return plan;
}

const void* CompiledKernel::module_image() const {
  if (plan.target == Target::kCubin) return cubin.data();
  return ptx.c_str();
}

std::vector<std::string> compile_options(const CompilePlan& plan) {
  const std::string arch = plan.target == Target::kCubin ? plan.arch.sm() : plan.arch.compute();
  // --device-int128: the premultiplied 16-bit blur sums in 128 bits (kernels/arithmetic.cuh).
  return {"--gpu-architecture=" + arch, "--std=c++17", "--device-int128"};
}

std::string nvrtc_identity() {
  const NvrtcVersion v = nvrtc_version();
  return "NVRTC " + std::to_string(v.major) + "." + std::to_string(v.minor) + " " +
         nvrtc::library_fingerprint();
}

CompiledKernel compile_kernel(const KernelSource& kernel, const CompilePlan& plan) {
  CompiledKernel out;
  out.plan = plan;
  const std::string arch = plan.target == Target::kCubin ? plan.arch.sm() : plan.arch.compute();
  out.options = compile_options(plan);
  nvrtc::CompileResult result = nvrtc::compile_program(kernel.source, kernel.name, out.options);
  if (!result.ok) {
    std::string options;
    for (const auto& o : out.options) options += (options.empty() ? "" : " ") + o;
    throw CompileError("NVRTC could not compile " + kernel.name + " for " + arch,
                       std::move(result.log), options);
  }
  if (plan.target == Target::kCubin && result.cubin.empty()) {
    throw InternalError("NVRTC produced no CUBIN for " + arch);
  }
  out.ptx = std::move(result.ptx);
  out.cubin = std::move(result.cubin);
  out.log = std::move(result.log);
  return out;
}

}  // namespace gpublur
