// finisher.cpp — the worker's finishing thread.
#include "gpu/finisher.hpp"

#include <algorithm>

namespace gpublur {

Finisher::Finisher(std::function<void()> started, std::function<void(StreamSlot&)> finish)
    : started_(std::move(started)), finish_(std::move(finish)), thread_([this] { run(); }) {}

Finisher::~Finisher() { static_cast<void>(stop()); }

void Finisher::hand(StreamSlot& slot) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    rethrow();
    waiting_.push_back(&slot);
  }
  changed_.notify_all();
}

void Finisher::wait_free(const StreamSlot& slot) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] {
    return failure_ || std::find(waiting_.begin(), waiting_.end(), &slot) == waiting_.end();
  });
  rethrow();
}

std::exception_ptr Finisher::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  return failure_;
}

void Finisher::rethrow() const {
  if (failure_) std::rethrow_exception(failure_);
}

void Finisher::run() {
  try {
    started_();
  } catch (...) {
    const std::lock_guard<std::mutex> lock(mutex_);
    failure_ = std::current_exception();
  }
  for (;;) {
    StreamSlot* slot = nullptr;
    bool failed = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return !waiting_.empty() || stopping_; });
      if (waiting_.empty()) return;
      slot = waiting_.front();  // stays listed until finished: wait_free waits for it
      failed = failure_ != nullptr;
    }
    std::exception_ptr thrown;
    if (!failed) {  // after a failure the slots are left as they are, for the worker to fail
      try {
        finish_(*slot);
      } catch (...) {
        thrown = std::current_exception();
      }
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (thrown && !failure_) failure_ = thrown;
      waiting_.pop_front();
    }
    changed_.notify_all();
  }
}

}  // namespace gpublur
