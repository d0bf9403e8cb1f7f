// gpu_jpeg_bench.cpp — nvJPEG alone, as gpublur drives it (gpu_jpeg.hpp), on one GPU: the batched
// decoder's images/s for each batch size (host time in the call, and wall time to the stream's
// end), and the encoder's, on a folder of same-size JPEGs. What sets the GPU codec's pace in the
// batch when it is slower than expected.
//   gpublur_gpu_jpeg_bench DIR [quality]      (e.g. batch_bench.py's 1920x1080-jpg)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cuda_driver.hpp"
#include "gpu_blur.hpp"
#include "gpu_jpeg.hpp"
#include "image_decode.hpp"
#include "jpeg_codec.hpp"
#include "launch_dims.hpp"

using namespace gpublur;
using Clock = std::chrono::steady_clock;

namespace {
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpublur_gpu_jpeg_bench DIR [quality]\n");
    return 2;
  }
  const int quality = argc > 2 ? std::stoi(argv[2]) : 95;
  std::vector<std::vector<std::uint8_t>> files;
  for (const auto& e : std::filesystem::directory_iterator(argv[1]))
    files.push_back(read_file(e.path().string()));
  std::sort(files.begin(), files.end());
  const JpegFacts f = read_jpeg_facts(files[0].data(), files[0].size(), DecodeLimits{});
  std::string why;
  const auto gpu = probe_gpu(why);
  if (!gpu) {
    std::fprintf(stderr, "no GPU: %s\n", why.c_str());
    return 77;
  }
  GpuSession session(*gpu);
  session.make_current();
  GpuJpegEngine engine;
  cuda::Stream stream;
  GpuJpegSlot slot(engine, reinterpret_cast<std::uintptr_t>(stream.get()));
  const std::size_t pitch = device_pitch(static_cast<std::size_t>(f.width) * 3);
  const std::size_t image_bytes = pitch * static_cast<std::size_t>(f.height);
  constexpr std::size_t kMaxBatch = 64;
  cuda::DeviceBuffer buffer(image_bytes * kMaxBatch * 2);
  std::printf("%s, %s decoder, %zu files %dx%d\n", gpu->name.c_str(), engine.decoder().c_str(),
              files.size(), f.width, f.height);
  for (const std::size_t batch :
       {std::size_t{1}, std::size_t{8}, std::size_t{16}, std::size_t{32}, kMaxBatch}) {
    for (int round = 0; round < 2; ++round) {  // the first warms up
      double host_ms = 0;
      std::size_t declined = 0;
      const auto start = Clock::now();
      for (std::size_t at = 0; at + batch <= files.size(); at += batch) {
        std::vector<JpegToDecode> jpegs;
        for (std::size_t i = 0; i < batch; ++i) jpegs.push_back({i, &files[at + i]});
        const auto call = Clock::now();
        declined += slot.decode(jpegs, 3, buffer.get(), pitch, image_bytes, batch, batch).size();
        host_ms += ms_since(call);
      }
      stream.synchronize("decoding");
      const double wall = ms_since(start);
      const std::size_t n = files.size() / batch * batch;
      if (round == 1)
        std::printf(
            "decode batch %2zu: %7.1f images/s (host in the call %.2f ms/image; %zu declined)\n",
            batch, 1000.0 * static_cast<double>(n) / wall, host_ms / static_cast<double>(n),
            declined);
    }
  }
  const JpegEncodeSettings settings{quality, ChromaSubsampling::k420};
  for (int round = 0; round < 2; ++round) {
    const auto start = Clock::now();
    std::size_t bytes = 0;
    for (std::size_t at = 0; at + 16 <= files.size(); at += 16) {
      for (std::size_t i = 0; i < 16; ++i)
        slot.encode(i, buffer.get() + i * image_bytes, pitch, f.width, f.height, 3, settings);
      slot.join();
      stream.synchronize("encoding");
      for (std::size_t i = 0; i < 16; ++i) bytes += slot.encoded(i).size();
    }
    const double wall = ms_since(start);
    if (round == 1)
      std::printf(
          "encode (16 at a time, 4 streams, q%d 4:2:0): %.1f images/s, %.0f KB each\n", quality,
          1000.0 * static_cast<double>(files.size() / 16 * 16) / wall,
          static_cast<double>(bytes) / 1024.0 / static_cast<double>(files.size() / 16 * 16));
  }
  return 0;
}
