// memory_budget.hpp — the bytes a batch's images may hold at once. An image's room is taken
// before its file is read (estimated from the file's size), then set to what it holds once
// decoded: taken at once, so that threads starting together cannot all pass a check made before
// any of them has counted its image. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace gpublur {

class MemoryBudget {
 public:
  explicit MemoryBudget(std::uint64_t limit) : limit_(limit) {}

  /// Waits until `bytes` fit within the limit, or nothing at all is held (so that one image
  /// larger than the budget still goes through), then holds them.
  void acquire(std::uint64_t bytes);

  /// Changes what one holder holds from `from` to `to` bytes, without waiting: an image whose
  /// size is known only once decoded. A holder that grows past the limit delays the next acquire.
  void resize(std::uint64_t from, std::uint64_t to);

  /// Gives back `bytes` held.
  void release(std::uint64_t bytes);

  std::uint64_t held() const;

 private:
  const std::uint64_t limit_;
  mutable std::mutex mutex_;  // guards held_
  std::condition_variable room_;
  std::uint64_t held_ = 0;
};

}  // namespace gpublur
