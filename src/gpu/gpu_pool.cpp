// gpu_pool.cpp — the queue, and each GPU's worker: stacks on two streams, kernels loaded per
// context, and a second thread that finishes each stack (JPEG encodes, hand-back).
#include "gpu/gpu_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "base/errors.hpp"
#include "gpu/blur_launch.hpp"
#include "gpu/cuda_driver.hpp"

namespace gpublur {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// At most this many images, and bytes, in one launch: enough to amortise a launch over small
// images, little enough that a slot's buffers stay a small part of any GPU's memory.
// Stacks of up to 64 made the JPEG batch slower on an H100, not faster (bench/RESULTS.md: the
// decoder's re-initialization for each new stack size is the cost, not the batch size).
constexpr std::size_t kMaxStack = 16;
constexpr std::size_t kMaxStackBytes = std::size_t{256} << 20;

// How many images of `bytes` each one stack holds at most.
std::size_t stack_limit(std::size_t bytes) {
  return std::clamp<std::size_t>(kMaxStackBytes / std::max<std::size_t>(bytes, 1), 1, kMaxStack);
}

// One image handed to the GPUs: its samples (blurred in place) and what stacks with what.
struct Request {
  PreparedImage* image = nullptr;
  std::string key;
  void* pixels = nullptr;
  std::size_t row_bytes = 0;
  int width = 0, height = 0;
  int channels = 0;
  GpuJpegWork* jpeg = nullptr;
  Clock::time_point queued;
  std::promise<GpuBlurTimes> done;

  std::optional<JpegEncodeSettings> encode() const { return jpeg ? jpeg->encode : std::nullopt; }
  // One stack is encoded with one setting of the encoder's parameters.
  bool stacks_with(const Request& r) const {
    return r.key == key && r.width == width && r.height == height && r.row_bytes == row_bytes &&
           r.encode() == encode();
  }
};
using RequestPtr = std::shared_ptr<Request>;

// The images waiting for a GPU. Workers take the oldest they may and those that stack with it.
// With JPEG workers (GpuPool's `jpeg_workers`), images with nvJPEG work go only to those, so that
// the others blur host images beside them instead of behind a JPEG stack.
class Queue {
 public:
  void push(RequestPtr r) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (live_ == 0) throw Error("no usable GPU: " + failure_);
      if (r->jpeg && live_jpeg_ == 0)
        throw GpuJpegError("no GPU worker left for JPEG: " + failure_);
      waiting_.push_back(std::move(r));
    }
    ready_.notify_all();  // all: the one woken must be one that may take it
  }

  // The next stack for a worker (`takes_jpeg`: one that may take nvJPEG work): the oldest image
  // it may take and up to kMaxStack - 1 queued ones that stack with it. Blocks while there is
  // none and the queue is open (when `wait`); empty once closed and drained.
  std::vector<RequestPtr> take(bool wait, bool takes_jpeg) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto may = [&](const RequestPtr& r) { return takes_jpeg || !r->jpeg; };
    const auto first = [&] { return std::find_if(waiting_.begin(), waiting_.end(), may); };
    if (wait) ready_.wait(lock, [&] { return first() != waiting_.end() || closed_; });
    std::vector<RequestPtr> stack;
    auto it = first();
    if (it == waiting_.end()) return stack;
    stack.push_back(*it);
    it = waiting_.erase(it);
    const std::size_t limit =
        stack_limit(stack[0]->row_bytes * static_cast<std::size_t>(stack[0]->height));
    while (it != waiting_.end() && stack.size() < limit) {
      if (may(*it) && (*it)->stacks_with(*stack[0])) {
        stack.push_back(*it);
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
    return stack;
  }

  void close() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

  // A JPEG worker is starting nvJPEG (its engine, its slots' decoders, the encoder).
  void jpeg_starting(bool starting) { jpeg_starting_ = starting; }
  bool jpeg_starting() const { return jpeg_starting_; }

  void worker_started(bool takes_jpeg) {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++live_;
    if (takes_jpeg) ++live_jpeg_;
  }

  // A worker stopped for good; the last one fails whatever still waits, and the last JPEG worker
  // hands the JPEG work back to the CPU.
  void worker_stopped(const std::string& why, bool takes_jpeg) {
    std::deque<RequestPtr> orphans;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (failure_.empty()) failure_ = why;
      if (takes_jpeg) --live_jpeg_;
      if (--live_ == 0) {
        orphans.swap(waiting_);
      } else if (live_jpeg_ == 0) {
        const auto jpeg = std::stable_partition(waiting_.begin(), waiting_.end(),
                                                [](const RequestPtr& r) { return !r->jpeg; });
        orphans.assign(jpeg, waiting_.end());
        waiting_.erase(jpeg, waiting_.end());
      }
    }
    for (const RequestPtr& r : orphans) {
      r->done.set_exception(
          r->jpeg && live_any()
              ? std::make_exception_ptr(GpuJpegError("no GPU worker left for JPEG: " + why))
              : std::make_exception_ptr(Error("no usable GPU: " + why)));
    }
  }

 private:
  bool live_any() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return live_ > 0;
  }
  std::mutex mutex_;  // guards everything below
  std::condition_variable ready_;
  std::deque<RequestPtr> waiting_;
  bool closed_ = false;
  int live_ = 0;       // workers that opened their GPU and have not stopped
  int live_jpeg_ = 0;  // those of them that take nvJPEG work
  std::string failure_;
  std::atomic<bool> jpeg_starting_{false};  // read without the mutex
};

// A kernel loaded into one worker's context.
struct LoadedKernel {
  std::shared_ptr<const CompiledBlur> blur;
  cuda::Module module;
  BlurFunctions functions;
};

// A worker's nvJPEG, started at its first JPEG (a batch's JPEG worker: before its first stack);
// where it cannot start, why (each JPEG it is given then goes back to the CPU's codec). Made on
// the worker's thread; the encoder is then used by its finisher (Finisher, below) only.
struct JpegEngine {
  std::optional<GpuJpegEngine> engine;
  std::unique_ptr<GpuJpegEncoder> encoder;
  std::string failure;
  bool tried = false;

  GpuJpegEngine& get() {
    if (!tried) {
      tried = true;
      try {
        engine.emplace();
      } catch (const GpuJpegError& e) {
        failure = e.what();
      }
    }
    if (!engine) throw GpuJpegError(failure);
    return *engine;
  }
  GpuJpegEncoder& make_encoder() {
    if (!encoder) encoder = std::make_unique<GpuJpegEncoder>(get());
    return *encoder;
  }
};

// One stream's share of a worker: its buffers, its events, its JPEG decoder, and the stack in
// flight on it (an image nvJPEG declined leaves a null in its place), with the shape of its
// images in the buffers.
struct Slot {
  cuda::Stream stream;
  cuda::Event start, uploaded, computed, done;
  std::optional<cuda::DeviceBuffer> in, out, scratch;
  std::unique_ptr<GpuJpegDecoder> decoder;
  std::vector<RequestPtr> busy;
  int width = 0, height = 0;
  std::size_t pitch = 0, image_bytes = 0;

  GpuJpegDecoder& jpeg_decoder(JpegEngine& engine) {
    if (!decoder) {
      decoder = std::make_unique<GpuJpegDecoder>(engine.get(),
                                                 reinterpret_cast<std::uintptr_t>(stream.get()));
    }
    return *decoder;
  }
};

// A worker's second thread: it finishes each stack the worker's thread has enqueued, in the order
// given (nvJPEG's encodes, waiting for the stack, handing its images back), while the worker's
// thread enqueues the next ones. nvJPEG's encoder returns only once its images are encoded, so on
// one thread the next stack's decode waited behind this one's encodes: on an H100 a stack of 16
// 1080p JPEGs spent 6 ms in decode calls, 9 ms in encode calls and 2.6 ms handing back, one
// after another (bench/RESULTS.md).
class Finisher {
 public:
  /// `finish` runs on the finisher's thread for each slot handed to it, after `started` once.
  /// Where it throws, the first exception is kept, and thrown to the worker's thread.
  Finisher(std::function<void()> started, std::function<void(Slot&)> finish)
      : started_(std::move(started)), finish_(std::move(finish)), thread_([this] { run(); }) {}
  ~Finisher() { static_cast<void>(stop()); }
  Finisher(const Finisher&) = delete;
  Finisher& operator=(const Finisher&) = delete;

  /// Hands over `slot`, whose stack is enqueued: it is the finisher's until it is finished.
  void hand(Slot& slot) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      rethrow();
      waiting_.push_back(&slot);
    }
    changed_.notify_all();
  }

  /// Waits until `slot` is not the finisher's. Throws what the finisher threw.
  void wait_free(const Slot& slot) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] {
      return failure_ || std::find(waiting_.begin(), waiting_.end(), &slot) == waiting_.end();
    });
    rethrow();
  }

  /// Finishes every slot handed over, then ends the thread; what it threw, if anything.
  std::exception_ptr stop() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
    return failure_;
  }

 private:
  void rethrow() const {
    if (failure_) std::rethrow_exception(failure_);
  }

  void run() {
    try {
      started_();
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex_);
      failure_ = std::current_exception();
    }
    for (;;) {
      Slot* slot = nullptr;
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

  std::function<void()> started_;
  std::function<void(Slot&)> finish_;
  std::mutex mutex_;  // guards waiting_, stopping_ and failure_ (written under it)
  std::condition_variable changed_;
  std::deque<Slot*> waiting_;  // handed over, in order; the front one is being finished
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::thread thread_;  // last: it starts once every member above exists
};

// Hands `r` back to the CPU's codec.
void decline(RequestPtr& r, const std::string& why) {
  r->done.set_exception(std::make_exception_ptr(GpuJpegError(why)));
  r.reset();
}

void ensure(std::optional<cuda::DeviceBuffer>& buffer, std::size_t bytes) {
  if (bytes == 0 || (buffer && buffer->size() >= bytes)) return;
  buffer.reset();  // free before allocating: the old one is no longer in use
  buffer.emplace(bytes);
}

CUDA_MEMCPY2D host_copy(const Request& r, CUdeviceptr device, std::size_t pitch, bool upload) {
  CUDA_MEMCPY2D copy{};
  if (upload) {
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = r.pixels;
    copy.srcPitch = r.row_bytes;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = device;
    copy.dstPitch = pitch;
  } else {
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = device;
    copy.srcPitch = pitch;
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = r.pixels;
    copy.dstPitch = r.row_bytes;
  }
  copy.WidthInBytes = r.row_bytes;
  copy.Height = static_cast<std::size_t>(r.height);
  return copy;
}

void fail(std::vector<RequestPtr>& stack, const std::exception_ptr& error) {
  for (const RequestPtr& r : stack)
    if (r) r->done.set_exception(error);
  stack.clear();
}

class Worker {
 public:
  /// `starts_jpeg`: a JPEG worker of a batch, which starts nvJPEG before it takes any work.
  Worker(const GpuInfo& gpu, int index, KernelLibrary& kernels, Queue& queue, bool release_context,
         bool takes_jpeg, bool starts_jpeg)
      : gpu_(gpu),
        index_(index),
        kernels_(kernels),
        queue_(queue),
        release_context_(release_context),
        takes_jpeg_(takes_jpeg),
        starts_jpeg_(starts_jpeg) {
    thread_ = std::thread([this] { run(); });
  }
  ~Worker() {
    if (thread_.joinable()) thread_.join();
    // Given up on purpose, so nothing releases it before the driver's exit handler does.
    if (!release_context_) static_cast<void>(session_.release());
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Empty once the context is open; else why it could not be.
  std::string wait_ready() { return ready_.get(); }
  const GpuSession* session() const { return session_.get(); }
  GpuWorkerStats stats() const {
    const std::lock_guard<std::mutex> lock(stats_mutex_);
    return stats_;
  }

 private:
  void run() {
    {
      const std::lock_guard<std::mutex> lock(stats_mutex_);
      stats_.gpu = gpu_;
      stats_.takes_jpeg = takes_jpeg_;
    }
    try {
      session_ = std::make_unique<GpuSession>(gpu_);
    } catch (const Error& e) {
      record_failure(std::string("GPU ") + std::to_string(gpu_.ordinal) +
                     " is not usable: " + e.what());
      ready_promise_.set_value(stats_.failure);
      return;
    }
    queue_.worker_started(takes_jpeg_);
    ready_promise_.set_value("");
    std::string why;
    try {
      serve();
    } catch (const std::exception& e) {
      why = std::string("GPU ") + std::to_string(gpu_.ordinal) + " failed: " + e.what();
      record_failure(why);
    }
    queue_.worker_stopped(why.empty() ? "the GPUs were released" : why, takes_jpeg_);
  }

  // Owners in dependency order: the session (held by the worker) outlives the kernels loaded into
  // its context, nvJPEG, and the slots' streams and buffers, declared here and destroyed first;
  // the finisher, last, ends before them.
  void serve() {
    std::map<std::string, LoadedKernel> loaded;
    JpegEngine jpeg;  // before the slots, whose decoders it outlives
    // Two stacks in flight: one decoding while the finisher encodes the other. A third did not
    // help on an H100 (nvJPEG's decoder was then the limit), and each costs 130 ms of start-up.
    std::vector<Slot> slots(2);
    if (starts_jpeg_) start_jpeg(slots, jpeg);
    Finisher finisher([this] { session_->make_current(); },
                      [this, &jpeg](Slot& slot) { finish(slot, jpeg); });
    std::vector<RequestPtr> stack;
    std::size_t next = 0;
    try {
      for (;;) {
        stack = queue_.take(false, takes_jpeg_);
        if (stack.empty()) {  // nothing waits: wait for more (the finisher hands back meanwhile)
          const auto idle = Clock::now();
          stack = queue_.take(true, takes_jpeg_);
          count(&GpuWorkerStats::idle_ms, idle);
          if (stack.empty()) break;  // closed
        }
        Slot& slot = slots[next++ % slots.size()];
        const auto waiting = Clock::now();
        finisher.wait_free(slot);
        count(&GpuWorkerStats::slot_wait_ms, waiting);
        const auto launching = Clock::now();
        launch(slot, stack, loaded, jpeg);
        if (next == 1) count(&GpuWorkerStats::first_launch_ms, launching);
        count(&GpuWorkerStats::launch_ms, launching);
        stack.clear();
        if (!slot.busy.empty()) finisher.hand(slot);  // empty: its kernel failed to compile
      }
      if (const std::exception_ptr failed = finisher.stop()) std::rethrow_exception(failed);
    } catch (...) {  // the context is broken: nothing in flight will come back
      const std::exception_ptr error = std::current_exception();
      fail(stack, error);
      static_cast<void>(finisher.stop());  // it leaves what it holds once it has failed
      for (Slot& s : slots) fail(s.busy, error);
      throw;
    }
  }

  // nvJPEG's start-up (about 1 s on an H100: its handles, then each slot's decoder and the
  // encoder's states), done before the first stack instead of in it, while the pipeline reads the
  // first files. Where nvJPEG cannot start, JpegEngine keeps why, and each stack that asks for it
  // hands its JPEGs back to the CPU with that reason.
  void start_jpeg(std::vector<Slot>& slots, JpegEngine& jpeg) {
    const auto start = Clock::now();
    queue_.jpeg_starting(true);
    try {
      for (Slot& s : slots) s.jpeg_decoder(jpeg);
      jpeg.make_encoder().reserve(kMaxStack);
    } catch (const GpuJpegError&) {
      queue_.jpeg_starting(false);
      return;
    }
    queue_.jpeg_starting(false);
    count(&GpuWorkerStats::jpeg_start_ms, start);
  }

  LoadedKernel& kernel_for(const Request& r, std::map<std::string, LoadedKernel>& loaded) {
    const auto it = loaded.find(r.key);
    if (it != loaded.end()) return it->second;
    const PreparedImage& image = *r.image;
    std::shared_ptr<const CompiledBlur> blur =
        kernels_.get(r.key, image.spec, image.format, gpu_.arch);
    std::optional<cuda::Module> module;
    const auto what = [&] { return "the kernel " + blur->kernel.name; };
    try {
      module.emplace(blur->cache.compiled.module_image(), what());
    } catch (const CudaError&) {
      // A cached kernel the driver rejects (written by a build it no longer accepts) is a miss.
      if (!blur->cache.hit) throw;
      blur = kernels_.recompile(r.key, image.spec, image.format, gpu_.arch);
      module.emplace(blur->cache.compiled.module_image(), what());
    }
    LoadedKernel k{blur, std::move(*module), {}};
    k.functions = blur_functions(k.module, k.blur->kernel);
    return loaded.emplace(r.key, std::move(k)).first->second;
  }

  // Enqueues the stack on the slot's stream: copies in (or nvJPEG's decode), the blur, copies
  // out of what is not encoded on the GPU. The finisher enqueues the encodes (finish()).
  void launch(Slot& slot, std::vector<RequestPtr>& stack,
              std::map<std::string, LoadedKernel>& loaded, JpegEngine& jpeg) {
    // Copied: a declined image's request may be gone once handed back.
    const int width = stack[0]->width, height = stack[0]->height;
    const std::size_t row_bytes = stack[0]->row_bytes;
    LoadedKernel* kernel = nullptr;
    try {
      kernel = &kernel_for(*stack[0], loaded);
    } catch (const CudaError&) {
      throw;         // the GPU, not the kernel: the worker stops
    } catch (...) {  // the kernel (a compile error): these images fail, the GPU goes on
      fail(stack, std::current_exception());
      return;
    }
    const GeneratedKernel& k = kernel->blur->kernel;
    const int n = static_cast<int>(stack.size());
    const LaunchDims dims = launch_dims(k, width, height, gpu_.sm_count, n);
    const std::size_t pitch = device_pitch(row_bytes);
    const std::size_t image_bytes = checked_mul(pitch, static_cast<std::size_t>(height));
    const bool decodes = std::any_of(
        stack.begin(), stack.end(), [](const RequestPtr& r) { return r->jpeg && r->jpeg->decode; });
    // nvJPEG decodes a full stack every time (GpuJpegDecoder::decode), filled up into places
    // after this one's: room for two full stacks. With nvJPEG the buffers are sized for full
    // stacks at once, not as stacks grow, as allocating synchronizes the GPU.
    const std::size_t full_stack = stack_limit(row_bytes * static_cast<std::size_t>(height));
    const std::size_t room = decodes || stack[0]->jpeg ? full_stack : stack.size();
    ensure(slot.in, image_bytes * (decodes ? 2 * full_stack : room));
    ensure(slot.out, image_bytes * room);
    ensure(slot.scratch, blur_scratch_bytes(k, width, height, static_cast<int>(room)));
    slot.width = width, slot.height = height, slot.pitch = pitch, slot.image_bytes = image_bytes;
    const auto& driver = cuda::api();
    slot.start.record(slot.stream);
    std::vector<JpegToDecode> to_decode;
    for (std::size_t i = 0; i < stack.size(); ++i) {
      if (stack[i]->jpeg && stack[i]->jpeg->decode) {
        to_decode.push_back({i, stack[i]->jpeg->decode});
        continue;
      }
      const CUDA_MEMCPY2D copy =
          host_copy(*stack[i], slot.in->get() + i * image_bytes, pitch, true);
      GB_CU_CHECK(driver.cuMemcpy2DAsync(&copy, slot.stream.get()), "copying an image to the GPU");
    }
    if (!to_decode.empty()) {
      const auto decoding = Clock::now();
      decode_jpegs(slot, stack, to_decode, jpeg, pitch, image_bytes, full_stack);
      count(&GpuWorkerStats::decode_call_ms, decoding);
    }
    slot.uploaded.record(slot.stream);
    const int device_pitch_arg = static_cast<int>(pitch);
    launch_blur(k, kernel->functions, dims, {slot.in->get(), device_pitch_arg},
                {slot.out->get(), device_pitch_arg}, width, height, n,
                slot.scratch ? slot.scratch->get() : 0, slot.stream.get());
    slot.computed.record(slot.stream);
    for (std::size_t i = 0; i < stack.size(); ++i) {
      if (!stack[i] || stack[i]->encode()) continue;
      const CUDA_MEMCPY2D copy =
          host_copy(*stack[i], slot.out->get() + i * image_bytes, pitch, false);
      GB_CU_CHECK(driver.cuMemcpy2DAsync(&copy, slot.stream.get()),
                  "copying a result from the GPU");
    }
    // The encoder is made here, on the thread that made nvJPEG, and used by the finisher.
    const auto encodes = [](const RequestPtr& r) { return r && r->encode(); };
    if (std::any_of(stack.begin(), stack.end(), encodes)) {
      try {
        jpeg.make_encoder();
      } catch (const GpuJpegError& e) {
        for (RequestPtr& r : stack)
          if (encodes(r)) decline(r, e.what());
      }
    }
    slot.busy = std::move(stack);
  }

  // Enqueues nvJPEG's decode of the stack's JPEGs into their places; those it does not take go
  // back to the CPU (their places are blurred too, and their results dropped).
  void decode_jpegs(Slot& slot, std::vector<RequestPtr>& stack,
                    const std::vector<JpegToDecode>& jpegs, JpegEngine& jpeg, std::size_t pitch,
                    std::size_t image_bytes, std::size_t full_stack) {
    std::vector<std::size_t> declined;
    std::string why = "nvJPEG does not decode it";
    try {
      GpuJpegDecoder& decoder = slot.jpeg_decoder(jpeg);
      declined = decoder.decode(jpegs, stack[0]->channels, slot.in->get(), pitch, image_bytes,
                                full_stack, stack.size());
      for (const JpegToDecode& j : jpegs) stack[j.index]->jpeg->decoder = jpeg.get().decoder();
    } catch (const GpuJpegError& e) {
      why = e.what();
      for (const JpegToDecode& j : jpegs) declined.push_back(j.index);
    }
    for (const std::size_t i : declined) decline(stack[i], why);
  }

  // On the finisher's thread: encodes the slot's JPEG outputs on the GPU and fetches them (the
  // encoder returns once they are done), then waits for the stack and hands its images back.
  // Where the GPU fails, the images not yet handed back get the error.
  void finish(Slot& slot, JpegEngine& jpeg) {
    try {
      std::vector<JpegToEncode> images;
      std::vector<std::size_t> places;
      for (std::size_t i = 0; i < slot.busy.size(); ++i) {
        const RequestPtr& r = slot.busy[i];
        if (!r || !r->encode()) continue;
        images.push_back({slot.out->get() + i * slot.image_bytes, slot.pitch, slot.width,
                          slot.height, r->channels, *r->encode()});
        places.push_back(i);
      }
      if (!images.empty()) {
        const auto encoding = Clock::now();
        std::vector<EncodedJpeg> encoded =
            jpeg.encoder->encode(reinterpret_cast<std::uintptr_t>(slot.stream.get()), images);
        count(&GpuWorkerStats::encode_call_ms, encoding);
        for (std::size_t k = 0; k < places.size(); ++k) {
          RequestPtr& r = slot.busy[places[k]];
          if (encoded[k].error.empty()) {
            r->jpeg->encoded = std::move(encoded[k].bytes);
          } else {
            decline(r, encoded[k].error);
          }
        }
      }
      slot.done.record(slot.stream);
      complete(slot);
    } catch (...) {
      fail(slot.busy, std::current_exception());
      throw;
    }
  }

  // Waits for the slot's stack and hands its images back (each one's place then emptied).
  void complete(Slot& slot) {
    const auto waiting = Clock::now();
    slot.done.synchronize("running the blur on the GPU");
    count(&GpuWorkerStats::gpu_wait_ms, waiting);
    const auto handing_back = Clock::now();
    GpuBlurTimes t;
    t.upload_ms = slot.uploaded.elapsed_since(slot.start);
    t.kernel_ms = slot.computed.elapsed_since(slot.uploaded);
    t.download_ms = slot.done.elapsed_since(slot.computed);
    t.stacked = static_cast<int>(slot.busy.size());
    t.gpu = index_;
    {
      const std::lock_guard<std::mutex> lock(stats_mutex_);
      stats_.images += static_cast<long>(
          std::count_if(slot.busy.begin(), slot.busy.end(), [](const RequestPtr& r) { return r; }));
      stats_.launches += 1;
      stats_.busy_ms += slot.done.elapsed_since(slot.start);
    }
    for (std::size_t i = 0; i < slot.busy.size(); ++i) {
      RequestPtr& r = slot.busy[i];
      if (!r) continue;
      GpuBlurTimes mine = t;
      mine.wait_ms = ms_since(r->queued);
      r->done.set_value(mine);
      r.reset();
    }
    slot.busy.clear();
    count(&GpuWorkerStats::hand_back_ms, handing_back);
  }

  // Adds the time since `start` to one of the worker's clocks.
  void count(double GpuWorkerStats::*clock, Clock::time_point start) {
    const double ms = ms_since(start);
    const std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.*clock += ms;
  }

  void record_failure(const std::string& why) {
    const std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.failure = why;
  }

  const GpuInfo gpu_;
  const int index_;
  KernelLibrary& kernels_;
  Queue& queue_;
  const bool release_context_;
  const bool takes_jpeg_;
  const bool starts_jpeg_;
  std::unique_ptr<GpuSession> session_;  // opened by the thread; kept until the worker ends
  std::promise<std::string> ready_promise_;
  std::future<std::string> ready_ = ready_promise_.get_future();
  mutable std::mutex stats_mutex_;  // guards stats_
  GpuWorkerStats stats_;
  std::thread thread_;  // last: it starts once every member above exists
};

// The image's samples, for the copies.
void* pixels_of(PreparedImage& image, std::size_t& row_bytes, int& width, int& height) {
  switch (image.format) {
    case SampleFormat::k8:
      row_bytes = image.image.row_bytes(), width = image.image.width, height = image.image.height;
      return image.image.pixels.data();
    case SampleFormat::k16:
      row_bytes = image.image16.row_bytes(), width = image.image16.width,
      height = image.image16.height;
      return image.image16.pixels.data();
    case SampleFormat::kFloat:
      row_bytes = image.imagef.row_bytes(), width = image.imagef.width,
      height = image.imagef.height;
      return image.imagef.pixels.data();
  }
  throw InternalError("unknown sample format");
}

}  // namespace

struct GpuPool::Impl {
  std::vector<GpuInfo> gpus;
  Queue queue;
  std::vector<std::unique_ptr<Worker>> workers;
  std::once_flag ready_once;
  std::string ready_why;
  const GpuSession* pinning_session = nullptr;  // any open context: cuMemHostRegister needs one

  void wait_ready() {
    std::call_once(ready_once, [&] {
      for (const auto& w : workers) {
        const std::string why = w->wait_ready();
        if (why.empty() && !pinning_session) pinning_session = w->session();
        if (!why.empty() && ready_why.empty()) ready_why = why;
      }
    });
  }
};

GpuPool::GpuPool(const std::vector<GpuInfo>& gpus, KernelLibrary& kernels, bool release_contexts,
                 bool jpeg_workers)
    : impl_(std::make_unique<Impl>()) {
  impl_->gpus = gpus;
  // With JPEG workers, each GPU's first worker blurs host images only, and a second takes the
  // nvJPEG work (and anything else waiting).
  if (jpeg_workers) impl_->gpus.insert(impl_->gpus.end(), gpus.begin(), gpus.end());
  for (std::size_t i = 0; i < impl_->gpus.size(); ++i) {
    const bool jpeg_worker = jpeg_workers && i >= gpus.size();
    impl_->workers.push_back(std::make_unique<Worker>(impl_->gpus[i], static_cast<int>(i), kernels,
                                                      impl_->queue, release_contexts,
                                                      !jpeg_workers || jpeg_worker, jpeg_worker));
  }
}

GpuPool::~GpuPool() {
  impl_->queue.close();
  impl_->workers.clear();  // joins them: each finishes what it holds
}

bool GpuPool::wait_ready(std::string& why) {
  impl_->wait_ready();
  why = impl_->ready_why;
  return impl_->pinning_session != nullptr;
}

const std::vector<GpuInfo>& GpuPool::gpus() const { return impl_->gpus; }

std::vector<GpuWorkerStats> GpuPool::stats() const {
  std::vector<GpuWorkerStats> all;
  for (const auto& w : impl_->workers) all.push_back(w->stats());
  return all;
}

GpuBlurTimes GpuPool::blur(PreparedImage& image, const std::string& key, GpuJpegWork* jpeg) {
  impl_->wait_ready();
  auto r = std::make_shared<Request>();
  r->image = &image;
  r->key = key;
  r->jpeg = jpeg;
  r->channels = image.spec.channels;
  // Decoded on the GPU and brought back: the samples' host memory, which decoding left out.
  if (jpeg && jpeg->decode && !jpeg->encode && image.format == SampleFormat::k8 &&
      image.image.pixels.empty()) {
    image.image.pixels.resize(image.image.row_bytes() *
                              static_cast<std::size_t>(image.image.height));
  }
  r->pixels = pixels_of(image, r->row_bytes, r->width, r->height);
  std::future<GpuBlurTimes> done = r->done.get_future();
  // Pinned memory lets the copies run asynchronously at the link's speed; pinning it here, on the
  // caller's thread, keeps that work off the GPU's worker (about 0.06 ms per MB). Not while a
  // JPEG worker starts nvJPEG: pinning and nvJPEG's start-up allocations wait for each other in
  // the driver, and together took 4 s where nvJPEG alone starts in 1 (bench/RESULTS.md).
  const auto pin_start = Clock::now();
  std::optional<cuda::PinnedHostRange> pinned;
  if (impl_->pinning_session && r->pixels && !impl_->queue.jpeg_starting()) {
    impl_->pinning_session->make_current();
    pinned.emplace(r->pixels, r->row_bytes * static_cast<std::size_t>(r->height));
  }
  const double pin_ms = ms_since(pin_start);
  r->queued = Clock::now();
  impl_->queue.push(r);
  GpuBlurTimes times = done.get();
  times.pin_ms = pin_ms;
  return times;
}

}  // namespace gpublur
