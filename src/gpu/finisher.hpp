// finisher.hpp — a GPU worker's second thread: it finishes each stack the worker's thread has
// enqueued, in the order given (the codec's encodes, waiting for the stack, handing its images
// back), while the worker's thread enqueues the next. The codec's encode calls return only once
// their images are encoded, so on one thread the next stack's decode would wait behind them.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace gpublur {

struct StreamSlot;

class Finisher {
 public:
  /// `finish` runs on the finisher's thread for each slot handed to it, after `started` once.
  /// Where either throws, the first exception is kept and thrown to the worker's thread.
  Finisher(std::function<void()> started, std::function<void(StreamSlot&)> finish);
  ~Finisher();
  Finisher(const Finisher&) = delete;
  Finisher& operator=(const Finisher&) = delete;

  /// Hands over `slot`, whose stack is enqueued: it is the finisher's until it is finished.
  void hand(StreamSlot& slot);

  /// Waits until `slot` is not the finisher's. Throws what the finisher threw.
  void wait_free(const StreamSlot& slot);

  /// Finishes every slot handed over, then ends the thread; what it threw, if anything.
  std::exception_ptr stop();

 private:
  void rethrow() const;
  void run();

  std::function<void()> started_;
  std::function<void(StreamSlot&)> finish_;
  std::mutex mutex_;  // guards waiting_, stopping_ and failure_ (written under it)
  std::condition_variable changed_;
  std::deque<StreamSlot*> waiting_;  // handed over, in order; the front one is being finished
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::thread thread_;  // last: it starts once every member above exists
};

}  // namespace gpublur
