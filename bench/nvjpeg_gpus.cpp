// nvjpeg_gpus.cpp — nvJPEG on several GPUs at once from one process, as the batch drives it
// (gpu_jpeg.hpp): a thread per GPU starts its engine, two decoders and its encoder (timed, all
// GPUs at once), then, once every GPU has started, decodes the folder's files in stacks of 32 on
// two streams in turn, from memory, with the encodes of each stack on a second thread (the
// worker's finisher) or without. Per GPU: the start-up, images/s, and the host's time in the
// decode calls per stack. Whether the GPUs' codecs scale within one process, apart from the
// pipeline's other work (reads, writes, the CPU's codec). With THREADS 2, each GPU's stacks are
// decoded by two threads at once (each with two slots of its own, the engine shared), to say
// whether the decode calls' host time, which one thread spends one call after another, overlaps.
//   gpublur_nvjpeg_gpus DIR DEVICES [decode|encode] [passes] [threads]
//   (e.g. hd-jpg 0,1,2,3 encode 2)
// And what the start's handles cost (no files decoded; a fresh process each, as the first
// handle pays nvJPEG's own start): the hardware decoder's and the encoder's handle one after
// the other, or both at once on two threads:
//   gpublur_nvjpeg_gpus - DEVICES handles|handles-together
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "codecs/image_decode.hpp"
#include "codecs/jpeg_codec.hpp"
#include "codegen/launch_dims.hpp"
#include "gpu/cuda_driver.hpp"
#include "gpu/gpu_session.hpp"
#include "nvjpeg/gpu_jpeg.hpp"
#include "nvjpeg/nvjpeg_api.hpp"

using namespace gpublur;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kStack = 32;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::uintptr_t handle(const cuda::Stream& s) { return reinterpret_cast<std::uintptr_t>(s.get()); }

// Every thread waits here until all have arrived.
class Barrier {
 public:
  explicit Barrier(std::size_t n) : left_(n) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--left_ == 0) {
      all_.notify_all();
      return;
    }
    all_.wait(lock, [&] { return left_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_;
  std::size_t left_;
};

struct GpuResult {
  int ordinal = 0;
  double session_ms = 0, start_ms = 0, wall_ms = 0, decode_host_ms = 0, encode_ms = 0;
  double handles_ms = 0, decoders_ms = 0;  // the start's parts: the two handles, the decoders
  std::size_t images = 0, stacks = 0;
  std::string error;
};

struct Slot {
  cuda::Stream stream;
  std::unique_ptr<GpuJpegDecoder> decoder;
  std::unique_ptr<cuda::DeviceBuffer> buffer;
};

void run_gpu(const GpuInfo& gpu, const std::vector<std::vector<std::uint8_t>>& files,
             const JpegFacts& f, bool encode, int passes, int threads, Barrier& started,
             GpuResult& r) {
  r.ordinal = gpu.ordinal;
  try {
    auto t = Clock::now();
    GpuSession session(gpu);
    session.make_current();
    r.session_ms = ms_since(t);
    t = Clock::now();
    GpuJpegEngine engine;
    r.handles_ms = ms_since(t);
    std::vector<Slot> slots(2 * static_cast<std::size_t>(threads));
    const std::size_t pitch = device_pitch(static_cast<std::size_t>(f.width) * 3);
    const std::size_t image_bytes = pitch * static_cast<std::size_t>(f.height);
    for (Slot& s : slots) {
      s.decoder = std::make_unique<GpuJpegDecoder>(engine, handle(s.stream));
      s.decoder->initialize(kStack);
      s.buffer = std::make_unique<cuda::DeviceBuffer>(image_bytes * kStack * 2);
    }
    r.decoders_ms = ms_since(t) - r.handles_ms;
    GpuJpegEncoder encoder(engine);
    r.start_ms = ms_since(t);
    started.arrive_and_wait();
    // The finisher: encodes each decoded stack while the next decodes.
    std::mutex m;
    std::condition_variable changed;
    std::vector<Slot*> handed;
    bool done = false;
    std::thread finisher([&] {
      session.make_current();
      for (;;) {
        Slot* s = nullptr;
        {
          std::unique_lock<std::mutex> lock(m);
          changed.wait(lock, [&] { return done || !handed.empty(); });
          if (handed.empty()) return;
          s = handed.front();
        }
        const auto e = Clock::now();
        if (encode) {
          std::vector<ImageToEncode> images;
          for (std::size_t i = 0; i < kStack; ++i)
            images.push_back({s->buffer->get() + i * image_bytes, pitch, f.width, f.height, 3,
                              JpegEncodeSettings{95, ChromaSubsampling::k420}});
          encoder.encode(handle(s->stream), images);
        }
        s->stream.synchronize("the stack");
        {
          const std::lock_guard<std::mutex> lock(m);
          r.encode_ms += ms_since(e);
          handed.erase(handed.begin());
        }
        changed.notify_all();
      }
    });
    const auto start = Clock::now();
    // Decoder thread d takes stacks d, d + threads, ... on its own two slots in turn.
    const auto decode_stacks = [&](int d) {
      session.make_current();
      std::size_t next = 0, index = 0;
      for (int pass = 0; pass < passes; ++pass) {
        for (std::size_t at = 0; at + kStack <= files.size(); at += kStack, ++index) {
          if (index % static_cast<std::size_t>(threads) != static_cast<std::size_t>(d)) continue;
          Slot& s = slots[2 * static_cast<std::size_t>(d) + next++ % 2];
          {
            std::unique_lock<std::mutex> lock(m);
            changed.wait(lock, [&] {
              for (const Slot* h : handed)
                if (h == &s) return false;
              return true;
            });
          }
          std::vector<CompressedImage> jpegs;
          for (std::size_t i = 0; i < kStack; ++i) jpegs.push_back({i, &files[at + i]});
          const auto call = Clock::now();
          s.decoder->decode(jpegs, 3, s.buffer->get(), pitch, image_bytes, kStack, kStack);
          const double call_ms = ms_since(call);
          {
            const std::lock_guard<std::mutex> lock(m);
            r.decode_host_ms += call_ms;
            r.images += kStack;
            ++r.stacks;
            handed.push_back(&s);
          }
          changed.notify_all();
        }
      }
    };
    std::vector<std::thread> decoders;
    for (int d = 1; d < threads; ++d) decoders.emplace_back(decode_stacks, d);
    decode_stacks(0);
    for (std::thread& th : decoders) th.join();
    {
      const std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    changed.notify_all();
    finisher.join();
    r.wall_ms = ms_since(start);
  } catch (const std::exception& e) {
    r.error = e.what();
    started.arrive_and_wait();
  }
}

// One GPU's two handles (gpu_jpeg.cpp's engine: the hardware decoder's, the default backend's for
// the encoder), timed each, one after the other or at once.
void time_handles(const GpuInfo& gpu, bool together, Barrier& started) {
  GpuSession session(gpu);
  session.make_current();
  std::string why;
  const nvjpeg::Api* nv = nvjpeg::load(why);
  started.arrive_and_wait();
  const auto t = Clock::now();
  double hardware_ms = 0, default_ms = 0;
  nvjpegHandle_t hardware = nullptr, other = nullptr;
  const auto make = [&](nvjpegBackend_t backend, unsigned flags, nvjpegHandle_t& h, double& ms) {
    session.make_current();
    const auto start = Clock::now();
    const nvjpegStatus_t status = nv->nvjpegCreateEx(backend, nullptr, nullptr, flags, &h);
    ms = ms_since(start);
    if (status != NVJPEG_STATUS_SUCCESS) h = nullptr;
  };
  const unsigned flags = NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION;
  if (together) {
    std::thread second(make, NVJPEG_BACKEND_DEFAULT, 0U, std::ref(other), std::ref(default_ms));
    make(NVJPEG_BACKEND_HARDWARE, flags, hardware, hardware_ms);
    second.join();
  } else {
    make(NVJPEG_BACKEND_HARDWARE, flags, hardware, hardware_ms);
    make(NVJPEG_BACKEND_DEFAULT, 0U, other, default_ms);
  }
  const double both_ms = ms_since(t);
  std::printf(
      "GPU %d (%s): hardware decoder's handle %.0f ms%s, encoder's %.0f ms; %.0f ms in all\n",
      gpu.ordinal, together ? "at once" : "one after the other", hardware_ms,
      hardware ? "" : " (refused)", default_ms, both_ms);
  if (hardware) nv->nvjpegDestroy(hardware);
  if (other) nv->nvjpegDestroy(other);
}

std::vector<int> ordinals_of(const std::string& list) {
  std::vector<int> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoi(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: gpublur_nvjpeg_gpus DIR DEVICES [decode|encode] [passes] [threads]\n"
                 "       gpublur_nvjpeg_gpus - DEVICES handles|handles-together\n");
    return 2;
  }
  const std::string mode = argc > 3 ? argv[3] : "decode";
  if (mode == "handles" || mode == "handles-together") {
    std::string why;
    const std::vector<GpuInfo> all = probe_gpus(why);
    if (all.empty() || !nvjpeg::load(why)) {
      std::fprintf(stderr, "gpublur_nvjpeg_gpus: %s\n", why.c_str());
      return 77;
    }
    const std::vector<int> ordinals = ordinals_of(argv[2]);
    Barrier started(ordinals.size());
    std::vector<std::thread> threads;
    for (const int o : ordinals) {
      threads.emplace_back(time_handles, std::cref(all.at(static_cast<std::size_t>(o))),
                           mode == "handles-together", std::ref(started));
    }
    for (std::thread& th : threads) th.join();
    return 0;
  }
  const bool encode = mode == "encode";
  const int passes = argc > 4 ? std::stoi(argv[4]) : 2;
  const int decoding_threads = argc > 5 ? std::stoi(argv[5]) : 1;
  if (passes < 1 || decoding_threads < 1) return 2;
  std::vector<std::vector<std::uint8_t>> files;
  for (const auto& e : std::filesystem::directory_iterator(argv[1]))
    files.push_back(read_file(e.path().string()));
  const JpegFacts f = read_jpeg_facts(files[0].data(), files[0].size(), DecodeLimits{});
  std::string why;
  const std::vector<GpuInfo> all = probe_gpus(why);
  if (all.empty()) {
    std::fprintf(stderr, "gpublur_nvjpeg_gpus: no GPU: %s\n", why.c_str());
    return 77;
  }
  const std::vector<int> ordinals = ordinals_of(argv[2]);
  std::vector<GpuResult> results(ordinals.size());
  Barrier started(ordinals.size());
  std::vector<std::thread> threads;
  const auto t = Clock::now();
  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    threads.emplace_back(run_gpu, std::cref(all.at(static_cast<std::size_t>(ordinals[i]))),
                         std::cref(files), std::cref(f), encode, passes, decoding_threads,
                         std::ref(started), std::ref(results[i]));
  }
  for (std::thread& th : threads) th.join();
  const double total = ms_since(t);
  std::size_t images = 0;
  double slowest = 0;
  for (const GpuResult& r : results) {
    if (!r.error.empty()) {
      std::printf("GPU %d: %s\n", r.ordinal, r.error.c_str());
      continue;
    }
    images += r.images;
    slowest = std::max(slowest, r.wall_ms);
    std::printf(
        "GPU %d (%s, %zu GPUs at once, %d decoding threads each): context %.0f ms, nvJPEG start "
        "%.0f ms (handles %.0f, "
        "decoders %.0f, encoder %.0f); %.0f images/s, decode calls %.1f ms a stack of %zu, "
        "finisher %.1f ms a stack\n",
        r.ordinal, encode ? "decode + encode" : "decode", ordinals.size(), decoding_threads,
        r.session_ms, r.start_ms, r.handles_ms, r.decoders_ms,
        r.start_ms - r.handles_ms - r.decoders_ms,
        1000.0 * static_cast<double>(r.images) / r.wall_ms,
        r.decode_host_ms / static_cast<double>(r.stacks), kStack,
        r.encode_ms / static_cast<double>(r.stacks));
  }
  std::printf("all: %.0f images/s once started; %.0f ms in all\n",
              1000.0 * static_cast<double>(images) / slowest, total);
  return 0;
}
