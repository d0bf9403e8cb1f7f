// start_share.hpp — how many of a batch's JPEGs the CPU's codec holds at once while nvJPEG
// starts (--codec auto).
//
// nvJPEG's start-up and the GPUs' contexts are host work, and a batch's CPU codec at full tilt
// beside them (every core decoding and encoding) slowed them down, whether the load was in the
// same process or not (bench/RESULTS.md): the host's cores, not a lock of the process. So the files
// that arrive meanwhile go to the CPU's codec only so many at once, and the rest wait for nvJPEG
// (or for a place) instead. A file holds its place from its decode to its end (its blur on a GPU,
// its encode, its write): the share bounds the CPU's files in flight, and with them its codec work
// (while the GPUs' contexts start, those files wait for them, and the CPU decodes no more).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace gpublur {

class StartShare {
 public:
  /// `places`: files the CPU's codec may hold at once while nvJPEG starts (at least 1).
  explicit StartShare(std::size_t places);

  /// Takes a place if one is free.
  bool try_take();

  /// Gives a place taken back.
  void give_back();

  /// Waits until a place is given back or a few milliseconds have passed (the caller looks
  /// again whether nvJPEG has started: it says so to no one).
  void wait_briefly();

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  std::size_t free_;
};

/// The places for a batch of `threads` CPU threads: a quarter as many (at least one), so that
/// nvJPEG's start keeps most of the host (half as many delayed it measurably: bench/RESULTS.md).
std::size_t start_share_places(std::size_t threads);

}  // namespace gpublur
