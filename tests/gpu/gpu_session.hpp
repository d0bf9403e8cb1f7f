// gpu_session.hpp — test support for the [gpu] binary: the GPU and one session shared by every
// test (retaining and releasing the primary context per test would destroy and re-create it,
// about 0.1 s each time).
#pragma once

#include <stdexcept>
#include <string>

#include "gpu/gpu_blur.hpp"

namespace gpublur::test {

inline const GpuInfo& gpu() {
  static const GpuInfo info = [] {
    std::string why;
    auto found = probe_gpu(why);
    if (!found) throw std::runtime_error(why);
    return *found;
  }();
  return info;
}

inline GpuSession& session() {
  static GpuSession s(gpu());
  return s;
}

}  // namespace gpublur::test
