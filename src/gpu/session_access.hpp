// session_access.hpp — a GpuSession's driver context, for the GPU layer's own files (the session's
// header exposes gpublur types only).
#pragma once

#include "gpu/cuda_driver.hpp"
#include "gpu/gpu_session.hpp"

namespace gpublur {

struct GpuSession::Impl {
  cuda::Context context;
  explicit Impl(CUdevice device) : context(device) {}
};

struct GpuSessionAccess {
  static cuda::Context& context(const GpuSession& s) { return s.impl_->context; }
};

}  // namespace gpublur
