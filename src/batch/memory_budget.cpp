// memory_budget.cpp — a counter of bytes behind a mutex, and a wait for room.
#include "batch/memory_budget.hpp"

namespace gpublur {

void MemoryBudget::acquire(std::uint64_t bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  room_.wait(lock, [&] { return held_ == 0 || held_ + bytes <= limit_; });
  held_ += bytes;
}

void MemoryBudget::resize(std::uint64_t from, std::uint64_t to) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    held_ = held_ - from + to;
  }
  if (to < from) room_.notify_all();
}

void MemoryBudget::release(std::uint64_t bytes) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    held_ -= bytes;
  }
  room_.notify_all();
}

std::uint64_t MemoryBudget::held() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

}  // namespace gpublur
