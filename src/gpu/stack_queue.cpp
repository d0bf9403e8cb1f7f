// stack_queue.cpp — the GPUs' queue of images.
#include "gpu/stack_queue.hpp"

#include <algorithm>

namespace gpublur {

void StackQueue::push(StackRequestPtr r) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (live_ == 0) throw Error("no usable GPU: " + failure_);
    if (r->codec && live_codec_ == 0) throw CodecDeclined("no GPU worker left for it: " + failure_);
    waiting_.push_back(std::move(r));
  }
  ready_.notify_all();  // all: the one woken must be one that may take it
}

std::vector<StackRequestPtr> StackQueue::take(bool wait, bool takes_codec,
                                              std::size_t (*limit)(const StackRequest& first)) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto may = [&](const StackRequestPtr& r) { return takes_codec || !r->codec; };
  const auto first = [&] { return std::find_if(waiting_.begin(), waiting_.end(), may); };
  if (wait) ready_.wait(lock, [&] { return first() != waiting_.end() || closed_; });
  std::vector<StackRequestPtr> stack;
  auto it = first();
  if (it == waiting_.end()) return stack;
  stack.push_back(*it);
  it = waiting_.erase(it);
  const std::size_t most = limit(*stack[0]);
  while (it != waiting_.end() && stack.size() < most) {
    if (may(*it) && (*it)->stacks_with(*stack[0])) {
      stack.push_back(*it);
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
  return stack;
}

void StackQueue::close() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  ready_.notify_all();
}

void StackQueue::worker_started(bool takes_codec) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++live_;
  if (takes_codec) ++live_codec_;
}

void StackQueue::worker_stopped(const std::string& why, bool takes_codec) {
  std::deque<StackRequestPtr> orphans;
  bool any_left = false;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (failure_.empty()) failure_ = why;
    if (takes_codec) --live_codec_;
    if (--live_ == 0) {
      orphans.swap(waiting_);
    } else if (live_codec_ == 0) {
      const auto codec = std::stable_partition(waiting_.begin(), waiting_.end(),
                                               [](const StackRequestPtr& r) { return !r->codec; });
      orphans.assign(codec, waiting_.end());
      waiting_.erase(codec, waiting_.end());
    }
    any_left = live_ > 0;
  }
  for (const StackRequestPtr& r : orphans) {
    r->done.set_exception(
        r->codec && any_left
            ? std::make_exception_ptr(CodecDeclined("no GPU worker left for it: " + why))
            : std::make_exception_ptr(Error("no usable GPU: " + why)));
  }
}

void fail_all(std::vector<StackRequestPtr>& stack, const std::exception_ptr& error) {
  for (const StackRequestPtr& r : stack)
    if (r) r->done.set_exception(error);
  stack.clear();
}

void decline(StackRequestPtr& r, const std::string& why) {
  r->done.set_exception(std::make_exception_ptr(CodecDeclined(why)));
  r.reset();
}

}  // namespace gpublur
