// nvrtc.hpp — compiling kernel source with NVRTC for one architecture, to CUBIN or PTX.
// Exposes gpublur types only; NVRTC itself lives behind nvrtc_program.hpp.
#pragma once

#include <string>
#include <vector>

#include "jit/arch.hpp"
#include "jit/kernel_source.hpp"

namespace gpublur {

struct NvrtcVersion {
  int major = 0;
  int minor = 0;
  std::vector<int> archs;  // supported real architectures, e.g. 75 80 ... 120, ascending
};

/// Loads NVRTC on first use; throws Error when it cannot be loaded.
NvrtcVersion nvrtc_version();

/// What to compile for, after checking the request against what NVRTC supports.
struct CompilePlan {
  Arch arch;
  Target target = Target::kCubin;
  std::string note;  // non-empty when the plan differs from the request (say it to the user)
};

/// For a GPU of architecture `device`: a CUBIN for it when NVRTC supports it; for a GPU newer
/// than NVRTC knows, PTX for the newest supported architecture (the driver JIT-compiles it
/// forward). Throws UsageError for an architecture older than NVRTC's oldest.
CompilePlan plan_compile(Arch device, Target requested, const NvrtcVersion& nvrtc);

/// The NVRTC options a plan compiles with.
std::vector<std::string> compile_options(const CompilePlan& plan);

/// What identifies the NVRTC in use for caching: its version and its library file (path, size,
/// modification time), so a different build of the same version is a different compiler.
std::string nvrtc_identity();

struct CompiledKernel {
  CompilePlan plan;
  std::vector<std::string> options;
  std::string ptx;          // always present: the PTX the CUBIN was assembled from, or the target
  std::vector<char> cubin;  // present for Target::kCubin
  std::string log;          // NVRTC's warnings, if any

  /// The bytes to hand to cuModuleLoadData: the CUBIN, or the NUL-terminated PTX.
  const void* module_image() const;
};

/// Compiles `kernel`'s source according to `plan`. Throws CompileError (with NVRTC's log and the
/// options) when NVRTC rejects the source.
CompiledKernel compile_kernel(const KernelSource& kernel, const CompilePlan& plan);

}  // namespace gpublur
