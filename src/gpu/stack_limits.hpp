// stack_limits.hpp — how many images a GPU worker stacks into one launch, and how many stacks it
// keeps in flight: enough to amortise a launch (and the codec's per-call host work) over small
// images, little enough that a stream's buffers stay a small part of any GPU's memory.
#pragma once

#include <algorithm>
#include <cstddef>

#include "gpu/stack_queue.hpp"

namespace gpublur {

/// Images of one stack at most: host images, and images with work for the GPU's codec (whose
/// batched decoder's host time per image falls as its batch grows, up to about 32).
constexpr std::size_t kMaxStack = 16;
constexpr std::size_t kMaxCodecStack = 32;
/// Bytes of one stack's images at most (a 4K RGB image is 25 MB, an 8K one 100 MB). A codec's
/// stacks take more: their buffers live on the GPU alone, not in the host's memory budget, and a
/// fuller stack costs the worker's threads fewer calls, waits and hand-backs an image (4K JPEG
/// stacks of 20 against 10: bench/RESULTS.md).
constexpr std::size_t kMaxStackBytes = std::size_t{256} << 20;
constexpr std::size_t kMaxCodecStackBytes = std::size_t{512} << 20;
/// Stacks in flight on a worker, one a stream: one being enqueued (decoded) while the finisher
/// encodes and hands back the other.
constexpr std::size_t kSlotsPerWorker = 2;

/// The most images a stack that starts with `first` holds.
inline std::size_t stack_limit(const StackRequest& first) {
  const std::size_t bytes = first.pixels.row_bytes * static_cast<std::size_t>(first.pixels.height);
  const std::size_t most = first.codec ? kMaxCodecStack : kMaxStack;
  const std::size_t most_bytes = first.codec ? kMaxCodecStackBytes : kMaxStackBytes;
  return std::clamp<std::size_t>(most_bytes / std::max<std::size_t>(bytes, 1), 1, most);
}

}  // namespace gpublur
