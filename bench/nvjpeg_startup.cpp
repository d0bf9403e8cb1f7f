// nvjpeg_startup.cpp — where nvJPEG's start-up goes, in a fresh process: the context, loading the
// library, then the decoder's part (the hardware handle, three decoder states, the batched
// decoder initialized and its buffers allocated for 16 1080p 4:2:0 images) and the encoder's
// part (the default handle, four parameter sets, 16 states, the first 1080p encode), each step
// timed; one after the other, or the two parts on two threads at once (`parallel`), to say
// whether a batch's JPEG worker gains by starting them side by side. `counted` and `registered`
// run in series with nvJPEG's memory taken through allocators of our own that count each step's
// allocations and their time: the driver's cuMemAlloc and cuMemHostAlloc (`counted`, what
// nvJPEG's defaults do), or host memory mapped here and pinned where it lies with
// cuMemHostRegister (`registered`), to say how much of the start is allocating pinned memory.
// BACKEND and FLAGS choose the decoder's handle (hardware, as the batch's, by default; gpu_hybrid,
// hybrid or default) and the flags it is made with (by default the batch's: upsampling with
// interpolation), to say whether another backend or nvJPEG's flags start sooner.
// `early` makes the decoder's handle on a thread from the process's start, beside the context.
//   gpublur_nvjpeg_startup [serial|parallel|counted|registered|early] [BACKEND [FLAGS]]
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_gpu.hpp"
#include "codegen/launch_dims.hpp"
#include "gpu/cuda_driver.hpp"
#include "nvjpeg/nvjpeg_api.hpp"

using namespace gpublur;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// What the allocators below have done: calls, bytes and nanoseconds, pinned and device.
struct Tally {
  std::atomic<long> pinned_calls{0}, pinned_bytes{0}, pinned_ns{0};
  std::atomic<long> device_calls{0}, device_bytes{0}, device_ns{0};
};
Tally tally;
bool register_pinned = false;  // `registered`: map and register instead of cuMemHostAlloc
std::mutex mapped_mutex;
std::map<void*, std::size_t> mapped;  // registered blocks and their mapped sizes

long ns_since(Clock::time_point t) {
  return static_cast<long>(std::chrono::duration<double, std::nano>(Clock::now() - t).count());
}

int device_malloc(void** p, std::size_t size) {
  const auto t = Clock::now();
  CUdeviceptr d = 0;
  const CUresult r = cuda::api().cuMemAlloc(&d, size);
  *p = reinterpret_cast<void*>(d);
  tally.device_calls++, tally.device_bytes += static_cast<long>(size),
      tally.device_ns += ns_since(t);
  return r == CUDA_SUCCESS ? 0 : 2;
}
int device_free(void* p) {
  return cuda::api().cuMemFree(reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS ? 0 : 1;
}

int pinned_malloc(void** p, std::size_t size, unsigned) {
  const auto t = Clock::now();
  CUresult r = CUDA_SUCCESS;
  if (register_pinned) {
    const std::size_t mapped_size = (std::max<std::size_t>(size, 1) + 4095) / 4096 * 4096;
    void* m =
        mmap(nullptr, mapped_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 2;
    r = cuda::api().cuMemHostRegister(m, mapped_size, CU_MEMHOSTREGISTER_PORTABLE);
    *p = m;
    const std::lock_guard<std::mutex> lock(mapped_mutex);
    mapped[m] = mapped_size;
  } else {
    r = cuda::api().cuMemHostAlloc(p, size, CU_MEMHOSTALLOC_PORTABLE);
  }
  tally.pinned_calls++, tally.pinned_bytes += static_cast<long>(size),
      tally.pinned_ns += ns_since(t);
  return r == CUDA_SUCCESS ? 0 : 2;
}
int pinned_free(void* p) {
  if (!register_pinned) return cuda::api().cuMemFreeHost(p) == CUDA_SUCCESS ? 0 : 1;
  std::size_t size = 0;
  {
    const std::lock_guard<std::mutex> lock(mapped_mutex);
    size = mapped[p];
    mapped.erase(p);
  }
  cuda::api().cuMemHostUnregister(p);
  munmap(p, size);
  return 0;
}

nvjpegDevAllocator_t device_allocator{device_malloc, device_free};
nvjpegPinnedAllocator_t pinned_allocator{pinned_malloc, pinned_free};
bool own_allocators = false;  // `counted` and `registered`

nvjpegStatus_t create(const nvjpeg::Api& nv, nvjpegBackend_t backend, unsigned flags,
                      nvjpegHandle_t* handle) {
  return own_allocators
             ? nv.nvjpegCreateEx(backend, &device_allocator, &pinned_allocator, flags, handle)
             : nv.nvjpegCreateEx(backend, nullptr, nullptr, flags, handle);
}

// Times each step of one part; prints them as "part: step ms, step ms, ..." and, with our own
// allocators, "[pinned N calls, MB, ms; device N calls, MB, ms]" of the step.
class Steps {
 public:
  explicit Steps(std::string part) : line_(std::move(part) + ":"), start_(Clock::now()) {}
  template <typename F>
  void operator()(const char* name, F&& step) {
    const long pc = tally.pinned_calls, pb = tally.pinned_bytes, pn = tally.pinned_ns;
    const long dc = tally.device_calls, db = tally.device_bytes, dn = tally.device_ns;
    const auto t = Clock::now();
    step();
    line_ += std::string(" ") + name + " " + std::to_string(static_cast<int>(ms_since(t))) + " ms";
    if (own_allocators) {
      char counts[160];
      std::snprintf(
          counts, sizeof counts, " [pinned %ld, %.1f MB, %.1f ms; device %ld, %.1f MB, %.1f ms]",
          tally.pinned_calls - pc, (tally.pinned_bytes - pb) / 1e6, (tally.pinned_ns - pn) / 1e6,
          tally.device_calls - dc, (tally.device_bytes - db) / 1e6, (tally.device_ns - dn) / 1e6);
      line_ += counts;
    }
    line_ += ",";
  }
  std::string done() const {
    return line_ + " total " + std::to_string(static_cast<int>(ms_since(start_))) + " ms";
  }

 private:
  std::string line_;
  Clock::time_point start_;
};

constexpr int kWidth = 1920, kHeight = 1080, kStack = 16;

struct DecoderChoice {
  const char* name = "hardware";
  nvjpegBackend_t backend = NVJPEG_BACKEND_HARDWARE;
  unsigned flags = NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION;
};
DecoderChoice decoder_choice;

bool choose_backend(const std::string& name) {
  static const std::pair<const char*, nvjpegBackend_t> kBackends[] = {
      {"hardware", NVJPEG_BACKEND_HARDWARE},
      {"gpu_hybrid", NVJPEG_BACKEND_GPU_HYBRID},
      {"hybrid", NVJPEG_BACKEND_HYBRID},
      {"default", NVJPEG_BACKEND_DEFAULT}};
  for (const auto& [n, b] : kBackends) {
    if (name == n) {
      decoder_choice.name = n;
      decoder_choice.backend = b;
      return true;
    }
  }
  return false;
}

// `early`: the decoder's handle made on a thread of its own from the process's start, before the
// context is ours (nvJPEG's runtime then starts the device's primary context, the one we share).
// (Never destroyed: a process that exits early, no GPU, must not abort on a joinable thread.)
std::thread& early_thread = *new std::thread;
nvjpegHandle_t early_handle = nullptr;
nvjpegStatus_t early_status = NVJPEG_STATUS_SUCCESS;
double early_ready_ms = 0;

std::string decoder_part(const nvjpeg::Api& nv) {
  Steps steps("decoder");
  nvjpegHandle_t handle = nullptr;
  const std::string handle_step = std::string(decoder_choice.name) + " handle";
  if (early_thread.joinable()) {
    steps((handle_step + " (made early) waited for").c_str(), [&] { early_thread.join(); });
    GB_NVJPEG_CHECK(early_status, "decoder handle");
    handle = early_handle;
  } else {
    steps(handle_step.c_str(), [&] {
      GB_NVJPEG_CHECK(create(nv, decoder_choice.backend, decoder_choice.flags, &handle),
                      "decoder handle");
    });
  }
  std::vector<nvjpegJpegState_t> states(3);
  std::vector<nvjpegJpegStream_t> parsed(3);
  for (std::size_t i = 0; i < states.size(); ++i) {
    const std::string name = "state " + std::to_string(i + 1);
    steps(name.c_str(), [&] {
      GB_NVJPEG_CHECK(nv.nvjpegJpegStateCreate(handle, &states[i]), "state");
      GB_NVJPEG_CHECK(nv.nvjpegJpegStreamCreate(handle, &parsed[i]), "stream");
    });
  }
  steps("batch initialized", [&] {
    GB_NVJPEG_CHECK(
        nv.nvjpegDecodeBatchedInitialize(handle, states[0], kStack, 1, NVJPEG_OUTPUT_RGBI),
        "initialize");
  });
  nvjpegStatus_t preallocated = NVJPEG_STATUS_SUCCESS;
  steps("buffers allocated", [&] {
    preallocated = nv.nvjpegDecodeBatchedPreAllocate(handle, states[0], kStack, kWidth, kHeight,
                                                     NVJPEG_CSS_420, NVJPEG_OUTPUT_RGBI);
  });
  // Only the hardware backend allocates beforehand; the others say so and allocate as they go.
  if (preallocated != NVJPEG_STATUS_SUCCESS) {
    return steps.done() + " (buffers: status " + std::to_string(preallocated) + ")";
  }
  return steps.done();
}

std::string encoder_part(const nvjpeg::Api& nv) {
  Steps steps("encoder");
  nvjpegHandle_t handle = nullptr;
  steps("default handle",
        [&] { GB_NVJPEG_CHECK(create(nv, NVJPEG_BACKEND_DEFAULT, 0, &handle), "default handle"); });
  cuda::Stream stream;
  const auto raw = reinterpret_cast<cudaStream_t>(stream.get());
  std::vector<nvjpegEncoderParams_t> params(4);
  steps("4 parameter sets", [&] {
    for (auto& p : params) GB_NVJPEG_CHECK(nv.nvjpegEncoderParamsCreate(handle, &p, raw), "params");
  });
  std::vector<nvjpegEncoderState_t> states(kStack);
  steps("16 states", [&] {
    for (auto& s : states) GB_NVJPEG_CHECK(nv.nvjpegEncoderStateCreate(handle, &s, raw), "state");
  });
  const std::size_t pitch = device_pitch(std::size_t{kWidth} * 3);
  cuda::DeviceBuffer image(pitch * kHeight);  // whatever it holds: only the time matters
  steps("first encode", [&] {
    GB_NVJPEG_CHECK(nv.nvjpegEncoderParamsSetQuality(params[0], 95, raw), "quality");
    GB_NVJPEG_CHECK(nv.nvjpegEncoderParamsSetSamplingFactors(params[0], NVJPEG_CSS_420, raw),
                    "sampling");
    nvjpegImage_t source{};
    source.channel[0] = reinterpret_cast<unsigned char*>(image.get());
    source.pitch[0] = pitch;
    GB_NVJPEG_CHECK(nv.nvjpegEncodeImage(handle, states[0], params[0], &source, NVJPEG_INPUT_RGBI,
                                         kWidth, kHeight, raw),
                    "encode");
    std::size_t length = 0;
    GB_NVJPEG_CHECK(nv.nvjpegEncodeRetrieveBitstream(handle, states[0], nullptr, &length, raw),
                    "retrieve");
    stream.synchronize("encoding");
  });
  return steps.done();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "serial";
  const bool backend_ok = argc <= 2 || choose_backend(argv[2]);
  bool flags_ok = true;
  if (argc > 3) {
    char* end = nullptr;
    decoder_choice.flags = static_cast<unsigned>(std::strtoul(argv[3], &end, 0));
    flags_ok = end != argv[3] && *end == '\0';
  }
  if ((mode != "serial" && mode != "parallel" && mode != "counted" && mode != "registered" &&
       mode != "early") ||
      !backend_ok || !flags_ok || argc > 4) {
    std::fprintf(stderr,
                 "usage: gpublur_nvjpeg_startup [serial|parallel|counted|registered|early] "
                 "[hardware|gpu_hybrid|hybrid|default [FLAGS]]\n");
    return 2;
  }
  const bool parallel = mode == "parallel";
  own_allocators = mode == "counted" || mode == "registered";
  register_pinned = mode == "registered";
  const auto start = Clock::now();
  if (mode == "early") {
    early_thread = std::thread([start] {
      std::string why;
      const nvjpeg::Api* api = nvjpeg::load(why);
      early_status = api ? create(*api, decoder_choice.backend, decoder_choice.flags, &early_handle)
                         : NVJPEG_STATUS_NOT_INITIALIZED;
      early_ready_ms = ms_since(start);
    });
  }
  const bench::BenchGpu gpu = bench::open_gpu_or_exit("gpublur_nvjpeg_startup");
  const double context_ms = ms_since(start);
  std::string why;
  auto t = Clock::now();
  const nvjpeg::Api* nv = nvjpeg::load(why);
  if (!nv) {
    if (early_thread.joinable()) early_thread.join();
    std::fprintf(stderr, "no nvJPEG: %s\n", why.c_str());
    return 77;
  }
  const double load_ms = ms_since(t);
  t = Clock::now();
  std::string decoder, encoder;
  if (parallel) {
    std::thread other([&] {
      gpu.session->make_current();
      encoder = encoder_part(*nv);
    });
    decoder = decoder_part(*nv);
    other.join();
  } else {
    decoder = decoder_part(*nv);
    encoder = encoder_part(*nv);
  }
  if (mode == "early") {
    std::printf("handle made early: ready %.0f ms after the start; all started %.0f ms after\n",
                early_ready_ms, ms_since(start));
  }
  std::printf(
      "%s, %s, decoder %s flags %#x: context %.0f ms, library loaded %.0f ms, nvJPEG started "
      "%.0f ms\n  %s\n  %s\n",
      gpu.info.name.c_str(), parallel ? "parts in parallel" : ("parts in series, " + mode).c_str(),
      decoder_choice.name, decoder_choice.flags, context_ms, load_ms, ms_since(t), decoder.c_str(),
      encoder.c_str());
  return 0;
}
