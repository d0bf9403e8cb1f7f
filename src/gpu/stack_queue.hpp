// stack_queue.hpp — the images waiting for a GPU, and how a worker takes them: the oldest it may
// take and the queued ones that stack with it (same kernel, size and encode settings), as one
// launch. With codec workers (GpuPool's), images with work for the GPU's codec go only to those,
// so the others blur host images beside them instead of behind a codec stack. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpu/device_codec.hpp"
#include "image/image.hpp"
#include "ops/blur_spec.hpp"

namespace gpublur {

/// What one image's trip through a GPU took.
struct GpuBlurTimes {
  double pin_ms = 0;         // its samples pinned where they lie, and unpinned (host clock)
  double wait_ms = 0;        // from handing it over to getting it back (host clock)
  float upload_ms = 0;       // its stack's copies to the GPU and decodes (CUDA events)
  float kernel_ms = 0;       // its stack's kernel(s)
  float download_ms = 0;     // its stack's copies from the GPU and encodes
  int stacked = 1;           // images in its stack's launch
  int gpu = 0;               // which worker: an index into GpuPool::gpus()
  bool pin_refused = false;  // the driver would not pin its samples: its copies went unpinned
};

/// Host samples a GPU blurs in place: height rows of `row_bytes` bytes, packed, of the kernel's
/// channels and samples. `data` may be null where the GPU's codec decodes the image and encodes
/// the result: then no sample crosses to the host.
struct HostPixels {
  void* data = nullptr;
  std::size_t row_bytes = 0;
  int width = 0, height = 0;
};

/// One image handed to the GPUs.
struct StackRequest {
  using Clock = std::chrono::steady_clock;
  HostPixels pixels;  // where the GPU reads and writes: the image's samples, pinned there
  std::string key;    // the kernel, among those of a run (prepared images' kernel_key)
  const BlurSpec* spec = nullptr;
  SampleFormat format = SampleFormat::k8;
  int channels = 0;
  CodecWork* codec = nullptr;  // work for the GPU's codec, if any
  Clock::time_point queued;
  std::promise<GpuBlurTimes> done;

  std::optional<JpegEncodeSettings> encode() const { return codec ? codec->encode : std::nullopt; }
  /// One stack is one launch of one kernel, over images of one size, encoded with one setting.
  bool stacks_with(const StackRequest& r) const {
    return r.key == key && r.pixels.width == pixels.width && r.pixels.height == pixels.height &&
           r.pixels.row_bytes == pixels.row_bytes && r.encode() == encode();
  }
};
using StackRequestPtr = std::shared_ptr<StackRequest>;

class StackQueue {
 public:
  /// Queues `r`. Throws Error("no usable GPU: why") once no worker is left, and CodecDeclined
  /// for codec work once no codec worker is left.
  void push(StackRequestPtr r);

  /// The next stack for a worker (`takes_codec`: one that may take codec work): the oldest image
  /// it may take and up to `limit(first) - 1` queued ones that stack with it. Blocks while there
  /// is none and the queue is open (when `wait`); empty once closed and drained.
  std::vector<StackRequestPtr> take(bool wait, bool takes_codec,
                                    std::size_t (*limit)(const StackRequest& first));

  /// No more images come: workers drain what waits, then stop.
  void close();

  /// A worker opened its GPU / stopped for good. The last one fails whatever still waits; the
  /// last codec worker hands the codec work back to the CPU (CodecDeclined).
  void worker_started(bool takes_codec);
  void worker_stopped(const std::string& why, bool takes_codec);

 private:
  std::mutex mutex_;  // guards everything below
  std::condition_variable ready_;
  std::deque<StackRequestPtr> waiting_;
  bool closed_ = false;
  int live_ = 0;        // workers that opened their GPU and have not stopped
  int live_codec_ = 0;  // those of them that take codec work
  std::string failure_;
};

/// Fails every request of `stack` still there with `error`, and empties it.
void fail_all(std::vector<StackRequestPtr>& stack, const std::exception_ptr& error);

/// Hands `r` back to the CPU's codec (CodecDeclined with `why`) and empties its place.
void decline(StackRequestPtr& r, const std::string& why);

}  // namespace gpublur
