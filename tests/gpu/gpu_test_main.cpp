// gpu_test_main.cpp — main for the [gpu] tests: exits 77 (CTest: skipped) without a usable GPU.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <iostream>

#include "gpu/gpu_blur.hpp"

int main(int argc, char** argv) {
  std::string why;
  const auto gpu = gpublur::probe_gpu(why);
  if (!gpu) {
    std::cout << "SKIPPED: no usable GPU: " << why << "\n";
    return 77;  // SKIP_RETURN_CODE in tests/CMakeLists.txt
  }
  std::cout << "GPU tests on " << gpu->name << " (" << gpu->arch.sm() << ", "
            << gpublur::driver_version_string(gpu->driver_version) << ")\n";
  return Catch::Session().run(argc, argv);
}
