// nvjpeg_startup.cpp — where nvJPEG's start-up goes, in a fresh process: the context, loading the
// library, then the decoder's part (the hardware handle, three decoder states, the batched
// decoder initialized and its buffers allocated for 16 1080p 4:2:0 images) and the encoder's
// part (the default handle, four parameter sets, 16 states, the first 1080p encode), each step
// timed; one after the other, or the two parts on two threads at once (`parallel`), to say
// whether a batch's JPEG worker gains by starting them side by side.
//   gpublur_nvjpeg_startup [serial|parallel]
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
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

// Times each step of one part; prints them as "part: step ms, step ms, ...".
class Steps {
 public:
  explicit Steps(std::string part) : line_(std::move(part) + ":"), start_(Clock::now()) {}
  template <typename F>
  void operator()(const char* name, F&& step) {
    const auto t = Clock::now();
    step();
    line_ += std::string(" ") + name + " " + std::to_string(static_cast<int>(ms_since(t))) + " ms,";
  }
  std::string done() const {
    return line_ + " total " + std::to_string(static_cast<int>(ms_since(start_))) + " ms";
  }

 private:
  std::string line_;
  Clock::time_point start_;
};

constexpr int kWidth = 1920, kHeight = 1080, kStack = 16;

std::string decoder_part(const nvjpeg::Api& nv) {
  Steps steps("decoder");
  nvjpegHandle_t handle = nullptr;
  steps("hardware handle", [&] {
    GB_NVJPEG_CHECK(nv.nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr,
                                      NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION, &handle),
                    "hardware handle");
  });
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
  steps("buffers allocated", [&] {
    GB_NVJPEG_CHECK(nv.nvjpegDecodeBatchedPreAllocate(handle, states[0], kStack, kWidth, kHeight,
                                                      NVJPEG_CSS_420, NVJPEG_OUTPUT_RGBI),
                    "preallocate");
  });
  return steps.done();
}

std::string encoder_part(const nvjpeg::Api& nv) {
  Steps steps("encoder");
  nvjpegHandle_t handle = nullptr;
  steps("default handle", [&] {
    GB_NVJPEG_CHECK(nv.nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, nullptr, nullptr, 0, &handle),
                    "default handle");
  });
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
  const bool parallel = argc > 1 && std::string(argv[1]) == "parallel";
  const auto start = Clock::now();
  const bench::BenchGpu gpu = bench::open_gpu_or_exit("gpublur_nvjpeg_startup");
  const double context_ms = ms_since(start);
  std::string why;
  auto t = Clock::now();
  const nvjpeg::Api* nv = nvjpeg::load(why);
  if (!nv) {
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
  std::printf(
      "%s, %s: context %.0f ms, library loaded %.0f ms, nvJPEG started %.0f ms\n  %s\n  %s\n",
      gpu.info.name.c_str(), parallel ? "parts in parallel" : "parts in series", context_ms,
      load_ms, ms_since(t), decoder.c_str(), encoder.c_str());
  return 0;
}
