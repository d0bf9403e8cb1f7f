// gpu_worker.cpp — a worker's streams, its stacks' enqueueing, and their finishing.
#include "gpu/gpu_worker.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "base/errors.hpp"
#include "gpu/finisher.hpp"
#include "gpu/stack_limits.hpp"
#include "gpu/stack_run.hpp"

namespace gpublur {

using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double steady_seconds() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// A kernel loaded into one worker's context.
struct LoadedKernel {
  std::shared_ptr<const CompiledBlur> blur;
  cuda::Module module;
  BlurFunctions functions;
};

}  // namespace

// One stream's share of a worker: its buffers, its events, and the stack in flight on it (an
// image the codec declined leaves a null in its place), with its images' shape.
struct StreamSlot {
  std::size_t lane = 0;  // its index among the worker's streams (the codec's decoder)
  cuda::Stream stream;
  cuda::Event start, uploaded, computed, done;
  StackBuffers buffers;
  std::vector<StackRequestPtr> busy;
  int width = 0, height = 0;
};

// Everything a worker's thread owns while it serves, in dependency order: the session (held by
// the worker) outlives the kernels loaded into its context and the slots' streams and buffers;
// the codec, whose decoders work on those streams, goes before them; the finisher, last, ends
// first.
struct GpuWorker::Streams {
  explicit Streams(GpuWorker& w) : worker(w), slots(kSlotsPerWorker) {
    for (std::size_t i = 0; i < slots.size(); ++i) slots[i].lane = i;
  }

  GpuWorker& worker;
  std::map<std::string, LoadedKernel> loaded;
  std::vector<StreamSlot> slots;  // made once: the finisher holds pointers to them
  std::unique_ptr<DeviceCodec> codec;
  bool codec_tried = false;
  std::string codec_failure;
  std::optional<Finisher> finisher;

  // Adds the time since `start` to one of the worker's clocks.
  void count(double GpuWorkerStats::*clock, Clock::time_point start) {
    const double ms = ms_since(start);
    const std::lock_guard<std::mutex> lock(worker.stats_mutex_);
    worker.stats_.*clock += ms;
  }

  // The codec, started on first use (a batch's codec worker: before its first stack, while the
  // pipeline reads the first files); null where it cannot start (codec_failure says why).
  DeviceCodec* codec_started() {
    if (codec_tried) return codec.get();
    codec_tried = true;
    const auto start = Clock::now();
    if (!worker.role_.codec) {
      codec_failure = "no codec on the GPU";
    } else {
      try {
        codec = worker.role_.codec();
        std::vector<std::uintptr_t> streams;
        for (const StreamSlot& s : slots)
          streams.push_back(reinterpret_cast<std::uintptr_t>(s.stream.get()));
        codec->start(streams, kMaxCodecStack);
      } catch (const CodecDeclined& e) {
        codec.reset();
        codec_failure = e.what();
      }
    }
    if (codec) {
      count(&GpuWorkerStats::codec_start_ms, start);
      mark(&GpuWorkerStats::codec_ready_at);
    }
    worker.report_codec(codec != nullptr);
    return codec.get();
  }

  // Sets one of the worker's timeline marks to now.
  void mark(double GpuWorkerStats::*when) {
    const double now = steady_seconds();
    const std::lock_guard<std::mutex> lock(worker.stats_mutex_);
    worker.stats_.*when = now;
  }

  LoadedKernel& kernel_for(const StackRequest& r) {
    const auto it = loaded.find(r.key);
    if (it != loaded.end()) return it->second;
    std::shared_ptr<const CompiledBlur> blur =
        worker.kernels_.get(r.key, *r.spec, r.format, worker.gpu_.arch);
    std::optional<cuda::Module> module;
    const auto what = [&] { return "the kernel " + blur->kernel.name; };
    try {
      module.emplace(blur->cache.compiled.module_image(), what());
    } catch (const CudaError&) {
      // A cached kernel the driver rejects (written by a build it no longer accepts) is a miss.
      if (!blur->cache.hit) throw;
      blur = worker.kernels_.recompile(r.key, *r.spec, r.format, worker.gpu_.arch);
      module.emplace(blur->cache.compiled.module_image(), what());
    }
    LoadedKernel k{blur, std::move(*module), {}};
    k.functions = blur_functions(k.module, k.blur->kernel);
    return loaded.emplace(r.key, std::move(k)).first->second;
  }

  void launch(StreamSlot& slot, std::vector<StackRequestPtr>& stack);
  void decode(StreamSlot& slot, std::vector<StackRequestPtr>& stack, std::size_t batch);
  void finish(StreamSlot& slot);
  void complete(StreamSlot& slot);
};

// Enqueues the stack on the slot's stream: copies in (or the codec's decodes), the blur, copies
// out of what is not encoded on the GPU. The finisher enqueues the encodes (finish()).
void GpuWorker::Streams::launch(StreamSlot& slot, std::vector<StackRequestPtr>& stack) {
  // Copied: a declined image's request may be gone once handed back.
  const HostPixels shape = stack[0]->pixels;
  LoadedKernel* kernel = nullptr;
  try {
    kernel = &kernel_for(*stack[0]);
  } catch (const CudaError&) {
    throw;         // the GPU, not the kernel: the worker stops
  } catch (...) {  // the kernel (a compile error): these images fail, the GPU goes on
    fail_all(stack, std::current_exception());
    return;
  }
  const GeneratedKernel& k = kernel->blur->kernel;
  const int n = static_cast<int>(stack.size());
  const auto has_codec = [](const StackRequestPtr& r) { return r && r->codec; };
  const bool decodes = std::any_of(stack.begin(), stack.end(), [](const StackRequestPtr& r) {
    return r->codec && r->codec->decode;
  });
  // The codec decodes a full stack every time (DeviceCodec::decode), filled up into places after
  // this one's: room for two full stacks. With codec work the buffers are sized for full stacks at
  // once, not as stacks grow, as allocating synchronizes the GPU.
  const std::size_t full = stack_limit(*stack[0]);
  const bool codec_stack = std::any_of(stack.begin(), stack.end(), has_codec);
  const std::size_t room = codec_stack ? full : stack.size();
  slot.buffers.reserve(k, shape.width, shape.height, shape.row_bytes, decodes ? 2 * full : room,
                       room, static_cast<int>(room));
  slot.width = shape.width, slot.height = shape.height;
  const CUstream stream = slot.stream.get();
  slot.start.record(slot.stream);
  for (std::size_t i = 0; i < stack.size(); ++i) {
    if (stack[i]->codec && stack[i]->codec->decode) continue;
    enqueue_upload(stack[i]->pixels.data, shape.row_bytes, shape.height, slot.buffers.input(i),
                   slot.buffers.pitch(), stream);
  }
  if (decodes) {
    const auto decoding = Clock::now();
    decode(slot, stack, full);
    count(&GpuWorkerStats::decode_call_ms, decoding);
  }
  slot.uploaded.record(slot.stream);
  enqueue_stack_blur(k, kernel->functions, slot.buffers, shape.width, shape.height, n,
                     worker.gpu_.sm_count, stream);
  slot.computed.record(slot.stream);
  for (std::size_t i = 0; i < stack.size(); ++i) {
    if (!stack[i] || stack[i]->encode()) continue;
    enqueue_download(slot.buffers.output(i), slot.buffers.pitch(), stack[i]->pixels.data,
                     shape.row_bytes, shape.height, stream);
  }
  for (StackRequestPtr& r : stack) {  // the encodes need the codec, started by now if ever
    if (r && r->encode() && !codec_started()) decline(r, codec_failure);
  }
  slot.busy = std::move(stack);
}

// Enqueues the codec's decode of the stack's files into their places; those it does not take go
// back to the CPU (their places are blurred too, and their results dropped).
void GpuWorker::Streams::decode(StreamSlot& slot, std::vector<StackRequestPtr>& stack,
                                std::size_t batch) {
  std::vector<CompressedImage> files;
  for (std::size_t i = 0; i < stack.size(); ++i) {
    if (stack[i]->codec && stack[i]->codec->decode) files.push_back({i, stack[i]->codec->decode});
  }
  std::vector<std::size_t> declined;
  std::string why = codec_failure;
  if (DeviceCodec* c = codec_started()) {
    const DevicePlaces places{
        slot.buffers.input(0), slot.buffers.pitch(), slot.buffers.image_bytes(), slot.width,
        slot.height,           stack[0]->channels};
    declined = c->decode(slot.lane, files, places, batch, stack.size(), why);
    const std::string name = c->decoder();
    for (const CompressedImage& f : files) stack[f.index]->codec->decoder = name;
  } else {
    for (const CompressedImage& f : files) declined.push_back(f.index);
  }
  for (const std::size_t i : declined) decline(stack[i], why);
}

// On the finisher's thread: encodes the slot's outputs on the GPU and fetches them (the encoder
// returns once they are done), then waits for the stack and hands its images back. Where the GPU
// fails, the images not yet handed back get the error.
void GpuWorker::Streams::finish(StreamSlot& slot) {
  try {
    std::vector<ImageToEncode> images;
    std::vector<std::size_t> places;
    for (std::size_t i = 0; i < slot.busy.size(); ++i) {
      const StackRequestPtr& r = slot.busy[i];
      if (!r || !r->encode()) continue;
      images.push_back({slot.buffers.output(i), slot.buffers.pitch(), slot.width, slot.height,
                        r->channels, *r->encode()});
      places.push_back(i);
    }
    if (!images.empty()) {
      const auto encoding = Clock::now();
      std::vector<EncodedImage> encoded =
          codec->encode(reinterpret_cast<std::uintptr_t>(slot.stream.get()), images);
      count(&GpuWorkerStats::encode_call_ms, encoding);
      for (std::size_t k = 0; k < places.size(); ++k) {
        StackRequestPtr& r = slot.busy[places[k]];
        if (encoded[k].error.empty()) {
          r->codec->encoded = std::move(encoded[k].bytes);
        } else {
          decline(r, encoded[k].error);
        }
      }
    }
    slot.done.record(slot.stream);
    complete(slot);
  } catch (...) {
    fail_all(slot.busy, std::current_exception());
    throw;
  }
}

// Waits for the slot's stack and hands its images back (each one's place then emptied).
void GpuWorker::Streams::complete(StreamSlot& slot) {
  const auto waiting = Clock::now();
  slot.done.synchronize("running the blur on the GPU");
  count(&GpuWorkerStats::gpu_wait_ms, waiting);
  const auto handing_back = Clock::now();
  GpuBlurTimes t;
  t.upload_ms = slot.uploaded.elapsed_since(slot.start);
  t.kernel_ms = slot.computed.elapsed_since(slot.uploaded);
  t.download_ms = slot.done.elapsed_since(slot.computed);
  t.stacked = static_cast<int>(slot.busy.size());
  t.gpu = worker.index_;
  {
    const std::lock_guard<std::mutex> lock(worker.stats_mutex_);
    worker.stats_.images += static_cast<long>(std::count_if(
        slot.busy.begin(), slot.busy.end(), [](const StackRequestPtr& r) { return r; }));
    worker.stats_.launches += 1;
    worker.stats_.busy_ms += slot.done.elapsed_since(slot.start);
  }
  for (StackRequestPtr& r : slot.busy) {
    if (!r) continue;
    GpuBlurTimes mine = t;
    mine.wait_ms = ms_since(r->queued);
    r->done.set_value(mine);
    r.reset();
  }
  slot.busy.clear();
  count(&GpuWorkerStats::hand_back_ms, handing_back);
}

GpuWorker::GpuWorker(const GpuInfo& gpu, int index, KernelLibrary& kernels, StackQueue& queue,
                     bool release_context, WorkerRole role, CodecStarted codec_started)
    : gpu_(gpu),
      index_(index),
      kernels_(kernels),
      queue_(queue),
      release_context_(release_context),
      role_(std::move(role)),
      codec_started_(std::move(codec_started)) {
  thread_ = std::thread([this] { run(); });
}

GpuWorker::~GpuWorker() {
  if (thread_.joinable()) thread_.join();
  // Given up on purpose, so nothing releases it before the driver's exit handler does.
  if (!release_context_) static_cast<void>(session_.release());
}

std::string GpuWorker::wait_ready() { return ready_.get(); }

GpuWorkerStats GpuWorker::stats() const {
  const std::lock_guard<std::mutex> lock(stats_mutex_);
  return stats_;
}

void GpuWorker::record_failure(const std::string& why) {
  const std::lock_guard<std::mutex> lock(stats_mutex_);
  stats_.failure = why;
}

void GpuWorker::run() {
  {
    const std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.gpu = gpu_;
    stats_.takes_codec = role_.takes_codec;
  }
  try {
    session_ = std::make_unique<GpuSession>(gpu_);
  } catch (const Error& e) {
    record_failure("GPU " + std::to_string(gpu_.ordinal) + " is not usable: " + e.what());
    if (role_.starts_codec) report_codec(false);
    ready_promise_.set_value(stats().failure);
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.context_ready_at = steady_seconds();
  }
  queue_.worker_started(role_.takes_codec);
  ready_promise_.set_value("");
  std::string why;
  try {
    serve();
  } catch (const std::exception& e) {
    why = "GPU " + std::to_string(gpu_.ordinal) + " failed: " + e.what();
    record_failure(why);
  }
  // A codec worker that failed before its codec was tried (a stream, an event, memory) says so,
  // or the batch would wait on a codec still "starting" to the end.
  if (role_.starts_codec) report_codec(false);
  queue_.worker_stopped(why.empty() ? "the GPUs were released" : why, role_.takes_codec);
}

void GpuWorker::report_codec(bool started) {
  if (codec_reported_) return;
  codec_reported_ = true;
  if (codec_started_) codec_started_(started);
}

void GpuWorker::serve() {
  Streams s(*this);
  if (role_.starts_codec) s.codec_started();
  s.finisher.emplace([this] { session_->make_current(); },
                     [&s](StreamSlot& slot) { s.finish(slot); });
  std::vector<StackRequestPtr> stack;
  std::size_t next = 0;
  try {
    for (;;) {
      // A free slot first, then the stack: while the GPU is busy with the slots' stacks, images
      // go on gathering in the queue (for a fuller stack, whose decode calls cost less host time
      // an image) or go to another GPU that is free, rather than wait in this worker's hands.
      StreamSlot& slot = s.slots[next % s.slots.size()];
      const auto waiting = Clock::now();
      s.finisher->wait_free(slot);
      s.count(&GpuWorkerStats::slot_wait_ms, waiting);
      stack = queue_.take(false, role_.takes_codec, &stack_limit);
      if (stack.empty()) {  // nothing waits: wait for more (the finisher hands back meanwhile)
        const auto idle = Clock::now();
        stack = queue_.take(true, role_.takes_codec, &stack_limit);
        s.count(&GpuWorkerStats::idle_ms, idle);
        if (stack.empty()) break;  // closed
      }
      ++next;
      const auto launching = Clock::now();
      s.launch(slot, stack);
      if (next == 1) {
        s.count(&GpuWorkerStats::first_launch_ms, launching);
        s.mark(&GpuWorkerStats::first_stack_at);
      }
      s.count(&GpuWorkerStats::launch_ms, launching);
      stack.clear();
      if (!slot.busy.empty()) s.finisher->hand(slot);  // empty: its kernel failed to compile
    }
    if (const std::exception_ptr failed = s.finisher->stop()) std::rethrow_exception(failed);
  } catch (...) {  // the context is broken: nothing in flight will come back
    const std::exception_ptr error = std::current_exception();
    fail_all(stack, error);
    static_cast<void>(s.finisher->stop());  // it leaves what it holds once it has failed
    for (StreamSlot& slot : s.slots) fail_all(slot.busy, error);
    throw;
  }
}

}  // namespace gpublur
