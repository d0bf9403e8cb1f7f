// parallel_compiler.hpp — test support for the [gpu] binary: compiles each distinct (source,
// target) once, all of a test's kernels at the same time (NVRTC is thread-safe), so a test of
// hundreds of kernels waits for the slowest few rather than their sum.
#pragma once

#include <future>
#include <map>
#include <string>
#include <utility>

#include "codegen/codegen.hpp"
#include "gpu/test_gpu.hpp"
#include "jit/nvrtc.hpp"

namespace gpublur::test {

class ParallelCompiler {
 public:
  void request(const GeneratedKernel& kernel, Target target) {
    Key key{kernel.source, target};
    if (compiled_.count(key)) return;
    const CompilePlan plan = plan_compile(gpu().arch, target, nvrtc_version());
    compiled_.emplace(std::move(key), std::async(std::launch::async, [kernel, plan] {
                                        return compile_kernel(kernel, plan);
                                      }).share());
  }
  const CompiledKernel& get(const GeneratedKernel& kernel, Target target) {
    return compiled_.at({kernel.source, target}).get();
  }

 private:
  using Key = std::pair<std::string, Target>;
  std::map<Key, std::shared_future<CompiledKernel>> compiled_;
};

}  // namespace gpublur::test
