// gpu_worker.hpp — one GPU's worker: a thread that opens the GPU's context, takes stacks from the
// queue and enqueues each on one of its streams (copies in, or the codec's decodes; the blur;
// copies out), and a finisher thread (finisher.hpp) that encodes and hands each stack back while
// the next is enqueued. Kernels are loaded into its context once each.
#pragma once

#include <cstddef>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gpu/device_codec.hpp"
#include "gpu/gpu_blur.hpp"
#include "gpu/kernel_library.hpp"
#include "gpu/stack_queue.hpp"

namespace gpublur {

/// How much a worker did, and where its threads' time went. Its thread: waiting for images to
/// stack (idle), enqueueing stacks (launch: copies, the codec's decode calls, the blur), waiting
/// for the finisher to free a stream's buffers (slot_wait). Its finisher: the codec's encodes
/// (encode_calls), waiting for the GPU to finish the stack (gpu_wait), handing the results back.
/// Where the GPU's pace falls short, says whether the GPU, the host or the images' arrival is why.
struct GpuWorkerStats {
  GpuInfo gpu;
  long images = 0;
  long launches = 0;
  double busy_ms = 0;  // from each stack's first copy to its last (CUDA events)
  double idle_ms = 0, launch_ms = 0, slot_wait_ms = 0, gpu_wait_ms = 0, hand_back_ms = 0;
  double first_launch_ms = 0;  // of launch_ms: the first stack's (kernel and codec start-up)
  double decode_call_ms = 0;   // of launch_ms: in the codec's decode calls
  double encode_call_ms = 0;   // the finisher's, in the codec's encoder
  double codec_start_ms = 0;   // a codec worker's codec start-up, before its first stack
  // When its context was ready, its codec had started, and its first stack was launched: the
  // batch's start-up step by step. In seconds of std::chrono::steady_clock (the host's monotonic
  // clock, one for all of a batch's processes); -1: never.
  double context_ready_at = -1, codec_ready_at = -1, first_stack_at = -1;
  bool takes_codec = false;    // a codec worker
  std::string failure;         // why it stopped, if it did
};

/// What a worker is for.
struct WorkerRole {
  bool takes_codec = true;   // may take images with codec work
  bool starts_codec = false;  // starts the codec before its first stack (a batch's codec worker)
  DeviceCodecFactory codec;   // empty: no codec (codec work is declined)
};

/// Called by a codec worker once its codec has started (true) or could not (false).
using CodecStarted = std::function<void(bool started)>;

class GpuWorker {
 public:
  /// Starts the worker's thread, which opens `gpu`'s context. `index`: its place among the pool's
  /// workers. `release_context` false leaves the context for the driver to tear down at exit.
  GpuWorker(const GpuInfo& gpu, int index, KernelLibrary& kernels, StackQueue& queue,
            bool release_context, WorkerRole role, CodecStarted codec_started);
  /// Joins the thread (which drains what it holds once the queue is closed).
  ~GpuWorker();
  GpuWorker(const GpuWorker&) = delete;
  GpuWorker& operator=(const GpuWorker&) = delete;

  /// Empty once the context is open; else why it could not be. Waits for it.
  std::string wait_ready();
  /// The worker's session (its GPU's context), once ready.
  const GpuSession* session() const { return session_.get(); }
  GpuWorkerStats stats() const;

 private:
  struct Streams;
  void run();
  void serve();
  // Tells codec_started_, once, whether the codec started.
  void report_codec(bool started);
  void record_failure(const std::string& why);

  const GpuInfo gpu_;
  const int index_;
  KernelLibrary& kernels_;
  StackQueue& queue_;
  const bool release_context_;
  const WorkerRole role_;
  const CodecStarted codec_started_;
  bool codec_reported_ = false;  // codec_started_ called (on the worker's thread)
  std::unique_ptr<GpuSession> session_;  // opened by the thread; kept until the worker ends
  std::promise<std::string> ready_promise_;
  std::future<std::string> ready_ = ready_promise_.get_future();
  mutable std::mutex stats_mutex_;  // guards stats_
  GpuWorkerStats stats_;
  std::thread thread_;  // last: it starts once every member above exists
};

}  // namespace gpublur
