// gpu_count.hpp — how many GPUs this process would see, found without initializing CUDA: a process
// that has called cuInit cannot hand the GPUs to children it forks, so the batch counts them this
// way before it splits into one process per GPU (batch/process_lanes.hpp).
#pragma once

namespace gpublur {

/// The GPUs CUDA would show: CUDA_VISIBLE_DEVICES' entries where it is set, else the driver's
/// count from NVML (libnvidia-ml, loaded for this), else the devices under /proc/driver/nvidia.
/// 0 where none of these can tell (no driver, or a machine that hides them).
int visible_gpu_count();

/// As visible_gpu_count without NVML (whose start costs a run's start-up time): an estimate,
/// where nothing depends on its being exact. 0 where neither tells.
int listed_gpu_count();

}  // namespace gpublur
