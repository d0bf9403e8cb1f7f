// start_share.cpp — a counting semaphore whose waiters look up now and then.
#include "batch/start_share.hpp"

#include <algorithm>
#include <chrono>

namespace gpublur {

StartShare::StartShare(std::size_t places) : free_(std::max<std::size_t>(places, 1)) {}

bool StartShare::try_take() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (free_ == 0) return false;
  --free_;
  return true;
}

void StartShare::give_back() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++free_;
  }
  freed_.notify_one();
}

void StartShare::wait_briefly() {
  // Short enough that a file waits little once nvJPEG has started, long enough to cost nothing.
  constexpr auto kLookAgain = std::chrono::milliseconds(5);
  std::unique_lock<std::mutex> lock(mutex_);
  freed_.wait_for(lock, kLookAgain, [&] { return free_ > 0; });
}

std::size_t start_share_places(std::size_t threads) {
  return std::max<std::size_t>(threads / 4, 1);
}

}  // namespace gpublur
