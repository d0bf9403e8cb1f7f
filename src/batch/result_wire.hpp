// result_wire.hpp — a file's result and a GPU worker's clocks as bytes, for a child process of the
// batch (process_lanes.hpp) to send them to its parent through a pipe: every field, length-prefixed,
// little-endian. Both ends are the same build, so there is no versioning. Pure.
#pragma once

#include <cstdint>
#include <vector>

#include "batch/file_result.hpp"
#include "gpu/gpu_worker.hpp"

namespace gpublur {

std::vector<std::uint8_t> result_bytes(const FileResult& result);
/// Throws InternalError where `bytes` are not a whole result.
FileResult result_from_bytes(const std::vector<std::uint8_t>& bytes);

std::vector<std::uint8_t> stats_bytes(const GpuWorkerStats& stats);
/// Throws InternalError where `bytes` are not a whole worker's clocks.
GpuWorkerStats stats_from_bytes(const std::vector<std::uint8_t>& bytes);

}  // namespace gpublur
