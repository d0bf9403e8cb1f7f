// gpu_session.hpp — finding the GPUs and opening one: what each is, and its primary context held
// for as long as the process uses it. Exposes gpublur types only; the driver lives behind
// cuda_driver.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jit/arch.hpp"

namespace gpublur {

struct GpuInfo {
  int ordinal = 0;
  std::string name;
  Arch arch;               // compute capability
  int driver_version = 0;  // e.g. 13000 for CUDA 13.0
  std::size_t memory_bytes = 0;
  int sm_count = 0;    // streaming multiprocessors
  bool shared = true;  // compute mode "default": other processes may hold contexts on it too
};

/// Every GPU the driver shows (CUDA_VISIBLE_DEVICES applies), after loading the driver and
/// cuInit; empty with `why` (for the user) when there is no driver or no device. Expected on
/// machines without a GPU, so not an exception.
std::vector<GpuInfo> probe_gpus(std::string& why);

/// The first of probe_gpus.
std::optional<GpuInfo> probe_gpu(std::string& why);

/// Whether this process has opened a context (GpuSession) on a GPU that is shared between
/// processes. Then the context's teardown at exit may run after the caller has its result
/// (detached_exit.hpp); on a GPU in an exclusive compute mode the next process would be refused
/// a context until that teardown ends, so there the process ends before its caller goes on.
bool opened_shared_gpu_context();

/// The ordinal of the GPU whose memory `pointer` (a device address) is in. Throws CudaError
/// for an address the driver does not know.
int device_of_pointer(std::uintptr_t pointer);

/// "CUDA 13.0" from 13000.
std::string driver_version_string(int version);

/// The GPU's primary context, retained. Opening it is the slow part of GPU start-up, so the
/// pipeline opens it on another thread while the image decodes; any thread may then use it.
/// Owns driver state; not copyable.
class GpuSession {
 public:
  /// Retains the primary context of `gpu`. Throws CudaError.
  explicit GpuSession(const GpuInfo& gpu);
  ~GpuSession();
  GpuSession(const GpuSession&) = delete;
  GpuSession& operator=(const GpuSession&) = delete;
  const GpuInfo& info() const { return info_; }
  /// Makes the context current on the calling thread (GPU calls from it go to this GPU).
  void make_current() const;

 private:
  friend struct GpuSessionAccess;
  struct Impl;
  GpuInfo info_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpublur
