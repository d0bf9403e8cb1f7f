// kernel_library.cpp — one compile per kernel, behind a shared future.
#include "gpu/kernel_library.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/errors.hpp"

namespace gpublur {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string describe(const CompiledBlur& c, const FileKernelStore* store) {
  const CompilePlan& p = c.cache.compiled.plan;
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", c.ms);
  return std::string(c.cache.hit ? "kernel cache hit: loaded " : "compiled ") + c.kernel.name +
         " (" + std::string(target_name(p.target)) + " for " +
         (p.target == Target::kCubin ? p.arch.sm() : p.arch.compute()) + ") in " + ms + " ms" +
         (store ? "; cache " + store->path_for(c.cache.key) : std::string("; cache off"));
}

}  // namespace

KernelLibrary::KernelLibrary(KernelChoices choices,
                             std::function<void(const std::string&, bool)> say)
    : choices_(std::move(choices)), say_(std::move(say)) {}

std::shared_ptr<const CompiledBlur> KernelLibrary::build(const BlurSpec& spec, SampleFormat format,
                                                         Arch arch, bool skip_lookup) {
  FileKernelStore* store = nullptr;
  NvrtcVersion nvrtc;
  std::string identity;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!nvrtc_) {
      nvrtc_ = nvrtc_version();  // throws Error when NVRTC cannot be loaded
      identity_ = nvrtc_identity();
    }
    if (choices_.use_cache && !store_) {
      store_ = std::make_unique<FileKernelStore>(choices_.cache_dir.empty() ? default_cache_dir()
                                                                            : choices_.cache_dir);
    }
    store = store_.get();
    nvrtc = *nvrtc_;
    identity = identity_;
  }
  const CompilePlan plan = plan_compile(arch, choices_.target, nvrtc);
  if (!plan.note.empty()) say_("note: " + plan.note, false);
  auto blur = std::make_shared<CompiledBlur>();
  blur->kernel = generate_kernel(spec, choices_.variant, format, arch.number());
  const auto start = std::chrono::steady_clock::now();
  blur->cache = compile_cached(blur->kernel, plan, store, identity, compile_kernel, skip_lookup);
  blur->ms = ms_since(start);
  say_(describe(*blur, store), false);
  if (!blur->cache.compiled.log.empty()) {
    say_("NVRTC says:", false);  // a line at a time: a message is one line, escaped
    const std::string& log = blur->cache.compiled.log;
    for (std::size_t at = 0, end = 0; at < log.size(); at = end + 1) {
      end = std::min(log.find('\n', at), log.size());
      say_("  " + log.substr(at, end - at), false);
    }
  }
  if (!blur->cache.store_problem.empty()) {
    say_("kernel cache not written (" + blur->cache.store_problem + "); continuing", true);
  }
  return blur;
}

std::shared_ptr<const CompiledBlur> KernelLibrary::get(const std::string& key, const BlurSpec& spec,
                                                       SampleFormat format, Arch gpu) {
  const Arch arch = choices_.arch.value_or(gpu);
  const std::string full_key = key + "@" + arch.sm();
  std::promise<std::shared_ptr<const CompiledBlur>> promise;
  std::shared_future<std::shared_ptr<const CompiledBlur>> future;
  bool mine = false;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = kernels_.find(full_key);
    if (it != kernels_.end()) {
      future = it->second;
    } else {
      future = promise.get_future().share();
      kernels_.emplace(full_key, future);
      mine = true;
    }
  }
  if (mine) {
    // A failure stays in the future: every image needing this kernel fails the same way, with
    // one compile, not one each.
    try {
      promise.set_value(build(spec, format, arch, false));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return future.get();
}

std::shared_ptr<const CompiledBlur> KernelLibrary::recompile(const std::string& key,
                                                             const BlurSpec& spec,
                                                             SampleFormat format, Arch gpu) {
  const Arch arch = choices_.arch.value_or(gpu);
  auto fresh = build(spec, format, arch, true);
  std::promise<std::shared_ptr<const CompiledBlur>> promise;
  promise.set_value(fresh);
  const std::lock_guard<std::mutex> lock(mutex_);
  kernels_[key + "@" + arch.sm()] = promise.get_future().share();
  return fresh;
}

std::vector<std::shared_ptr<const CompiledBlur>> KernelLibrary::all() const {
  std::vector<std::shared_ptr<const CompiledBlur>> done;
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [key, future] : kernels_) {
    if (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) continue;
    try {
      done.push_back(future.get());
    } catch (...) {  // a failed compile has nothing to show
    }
  }
  return done;
}

}  // namespace gpublur
