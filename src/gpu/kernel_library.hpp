// kernel_library.hpp — the kernels one command needs, each generated and compiled once (or loaded
// from the kernel cache) per architecture, and shared by every thread and GPU that blurs with it.
// Thread-safe: a second caller of a kernel being compiled waits for that compile.
#pragma once

#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "codegen/codegen.hpp"
#include "jit/arch.hpp"
#include "jit/kernel_cache.hpp"
#include "jit/kernel_store.hpp"
#include "jit/nvrtc.hpp"

namespace gpublur {

/// One kernel, generated and compiled.
struct CompiledBlur {
  GeneratedKernel kernel;
  CacheResult cache;  // the compiled code, and whether the cache had it
  double ms = 0;      // the compile's (or the cache lookup's) wall time
};

struct KernelChoices {
  KernelVariant variant = KernelVariant::kAuto;
  Target target = Target::kCubin;
  std::optional<Arch> arch;  // compile for this instead of the GPU's
  bool use_cache = true;
  std::string cache_dir;  // empty: default_cache_dir()
};

class KernelLibrary {
 public:
  /// `say` receives one line per compile or cache hit (for --verbose) and warnings (an unwritable
  /// cache); it is called from whichever thread compiles.
  KernelLibrary(KernelChoices choices, std::function<void(const std::string&, bool warning)> say);

  /// The kernel for `spec` over `format` samples on a GPU of `gpu` architecture, under `key`
  /// (prepared_image.hpp's kernel_key). Compiles on first use. Throws CompileError, UsageError
  /// (a --kernel that cannot run the spec), Error (no NVRTC).
  std::shared_ptr<const CompiledBlur> get(const std::string& key, const BlurSpec& spec,
                                          SampleFormat format, Arch gpu);

  /// The same kernel compiled afresh, replacing `rejected` (a cached kernel the driver refused).
  std::shared_ptr<const CompiledBlur> recompile(const std::string& key, const BlurSpec& spec,
                                                SampleFormat format, Arch gpu);

  /// Every kernel compiled so far (for --dump-ptx, --json).
  std::vector<std::shared_ptr<const CompiledBlur>> all() const;

 private:
  std::shared_ptr<const CompiledBlur> build(const BlurSpec& spec, SampleFormat format, Arch arch,
                                            bool skip_lookup);
  const KernelChoices choices_;
  const std::function<void(const std::string&, bool)> say_;
  mutable std::mutex mutex_;  // guards everything below
  std::map<std::string, std::shared_future<std::shared_ptr<const CompiledBlur>>> kernels_;
  std::optional<NvrtcVersion> nvrtc_;
  std::string identity_;
  std::unique_ptr<FileKernelStore> store_;
};

}  // namespace gpublur
