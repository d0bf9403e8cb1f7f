// test_gpu.hpp — test support for the [gpu] binary: the GPU and one session shared by every
// test (retaining and releasing the primary context per test would destroy and re-create it,
// about 0.1 s each time).
#pragma once

#include <stdexcept>
#include <string>

#include "batch/blur_device.hpp"
#include "gpu/gpu_blur.hpp"
#include "gpu/gpu_pool.hpp"

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

/// Blurs a prepared image on `pool`, as the pipeline hands it over.
inline GpuBlurTimes pool_blur(GpuPool& pool, PreparedImage& image, CodecWork* codec = nullptr) {
  return pool.blur(gpu_pixels(image, codec), kernel_key(image), image.spec,
                   image.image.sample_format(), image.spec.channels, codec);
}

}  // namespace gpublur::test
