// engine_gpus.hpp — engine.cpp's GPUs: probed once, a session per GPU opened on first use and kept
// until the process exits (contexts are costly to make again), and a NumPy depth as gpublur's
// sample format or image. Included by engine.cpp alone.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "codegen/kernel_schedule.hpp"
#include "gpu/gpu_blur.hpp"
#include "image/any_image.hpp"

namespace gpublur::engine {

struct Gpus {
  std::once_flag probed;
  std::vector<GpuInfo> info;
  std::string why;  // why there is none
  std::mutex mutex;
  std::map<int, std::unique_ptr<GpuSession>> sessions;  // by ordinal, opened on first use
};

inline Gpus& gpus() {
  static Gpus* g = new Gpus;  // never destroyed: contexts stay until the process exits
  std::call_once(g->probed, [] { g->info = probe_gpus(g->why); });
  return *g;
}

inline GpuSession& session(int ordinal) {
  Gpus& g = gpus();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (ordinal < 0 || static_cast<std::size_t>(ordinal) >= g.info.size()) {
    throw UsageError(g.info.empty() ? "no usable GPU: " + g.why
                                    : "no GPU " + std::to_string(ordinal) + " (" +
                                          std::to_string(g.info.size()) + " visible)");
  }
  auto& s = g.sessions[ordinal];
  if (!s) s = std::make_unique<GpuSession>(g.info[static_cast<std::size_t>(ordinal)]);
  return *s;
}

inline SampleFormat sample_format(int bits) {
  return bits == 8 ? SampleFormat::k8 : bits == 16 ? SampleFormat::k16 : SampleFormat::kFloat;
}

// h x w x c samples of `bits` at `data`, copied into an image of their depth.
inline AnyImage image_of(const void* data, int w, int h, int c, int bits) {
  if (bits == 16) return make_raster_from(static_cast<const std::uint16_t*>(data), w, h, c);
  if (bits == 32) return make_raster_from(static_cast<const float*>(data), w, h, c);
  return make_raster_from(static_cast<const std::uint8_t*>(data), w, h, c);
}

}  // namespace gpublur::engine
