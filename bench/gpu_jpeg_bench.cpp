// gpu_jpeg_bench.cpp — nvJPEG alone, as gpublur drives it (gpu_jpeg.hpp), on one GPU: the batched
// decoder's images/s for each batch size (host time in the call, and wall time to the stream's
// end), and the encoder's, on a folder of same-size JPEGs; then the shape the batch's JPEG worker
// runs (gpu_pool.cpp: stacks of 16 decoded, encoded and fetched, on one slot or two in turn), with
// the host's time in each call. What sets the GPU codec's pace in the batch when it is slower than
// expected.
//   gpublur_gpu_jpeg_bench DIR [quality]      (e.g. batch_bench.py's 1920x1080-jpg)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
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

// One slot of the worker's shape: a stream, its codec state, room for a stack.
struct ShapeSlot {
  cuda::Stream stream;
  std::unique_ptr<GpuJpegSlot> codec;
  cuda::DeviceBuffer buffer;
  std::size_t busy = 0;  // images of the stack in flight
  ShapeSlot(GpuJpegEngine& engine, std::size_t bytes)
      : codec(
            std::make_unique<GpuJpegSlot>(engine, reinterpret_cast<std::uintptr_t>(stream.get()))),
        buffer(bytes) {}
};

// Stacks of `stack` files decoded, then (with `encode`) encoded and fetched, taking `slots`
// slots in turn as gpu_pool's worker does: images/s and the host's ms per stack in each call.
// `as_pool`: also as the pool's worker has it otherwise: each file's bytes a fresh copy (as the
// pipeline reads them), a device copy where the blur runs, and timing events around each part.
void worker_shape(GpuJpegEngine& engine, const std::vector<std::vector<std::uint8_t>>& files,
                  const JpegFacts& f, std::size_t slots, bool encode, int quality,
                  bool as_pool = false) {
  constexpr std::size_t stack = 16;
  const std::size_t pitch = device_pitch(static_cast<std::size_t>(f.width) * 3);
  const std::size_t image_bytes = pitch * static_cast<std::size_t>(f.height);
  std::vector<std::unique_ptr<ShapeSlot>> ring;
  for (std::size_t i = 0; i < slots; ++i)
    ring.push_back(std::make_unique<ShapeSlot>(engine, image_bytes * stack * 3));
  cuda::Event began, decoded, blurred, done;
  std::vector<std::vector<std::uint8_t>> copies(stack);
  const JpegEncodeSettings settings{quality, ChromaSubsampling::k420};
  for (int round = 0; round < 2; ++round) {  // the first warms up
    double decode_ms = 0, encode_ms = 0, fetch_ms = 0;
    std::size_t stacks = 0, next = 0;
    const auto complete = [&](ShapeSlot& s) {
      if (!s.busy) return;
      const auto t = Clock::now();
      s.stream.synchronize("the stack");
      if (encode)
        for (std::size_t i = 0; i < s.busy; ++i) s.codec->encoded(i);
      fetch_ms += ms_since(t);
      s.busy = 0;
    };
    const auto start = Clock::now();
    for (std::size_t at = 0; at + stack <= files.size(); at += stack, ++stacks) {
      ShapeSlot& s = *ring[next++ % ring.size()];
      complete(s);
      std::vector<JpegToDecode> jpegs;
      for (std::size_t i = 0; i < stack; ++i) {
        if (as_pool) copies[i] = files[at + i];
        jpegs.push_back({i, as_pool ? &copies[i] : &files[at + i]});
      }
      if (as_pool) began.record(s.stream);
      auto t = Clock::now();
      s.codec->decode(jpegs, 3, s.buffer.get(), pitch, image_bytes, stack, stack);
      decode_ms += ms_since(t);
      std::uintptr_t source = s.buffer.get();
      if (as_pool) {
        decoded.record(s.stream);
        source += 2 * stack * image_bytes;
        GB_CU_CHECK(cuda::api().cuMemcpyDtoDAsync(source, s.buffer.get(), stack * image_bytes,
                                                  s.stream.get()),
                    "standing in for the blur");
        blurred.record(s.stream);
      }
      t = Clock::now();
      if (encode) {
        for (std::size_t i = 0; i < stack; ++i)
          s.codec->encode(i, source + i * image_bytes, pitch, f.width, f.height, 3, settings);
        s.codec->join();
      }
      if (as_pool) done.record(s.stream);
      encode_ms += ms_since(t);
      s.busy = stack;
    }
    for (auto& s : ring) complete(*s);
    const double wall = ms_since(start);
    const double n = static_cast<double>(stacks);
    if (round == 1)
      std::printf(
          "worker shape%s, %zu slot%s, decode%s: %7.1f images/s (host per stack of %zu: decode "
          "%.1f ms, encode %.1f ms, wait and fetch %.1f ms)\n",
          as_pool ? " as the pool's" : "", slots, slots == 1 ? "" : "s",
          encode ? " + encode + fetch" : " only", 1000.0 * n * stack / wall, stack, decode_ms / n,
          encode_ms / n, fetch_ms / n);
  }
}

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
  auto t = Clock::now();
  GpuJpegEngine engine;
  const double engine_ms = ms_since(t);
  cuda::Stream stream;
  t = Clock::now();
  GpuJpegSlot slot(engine, reinterpret_cast<std::uintptr_t>(stream.get()));
  const double slot_ms = ms_since(t);
  const std::size_t pitch = device_pitch(static_cast<std::size_t>(f.width) * 3);
  const std::size_t image_bytes = pitch * static_cast<std::size_t>(f.height);
  constexpr std::size_t kMaxBatch = 64;
  cuda::DeviceBuffer buffer(image_bytes * kMaxBatch * 2);
  std::printf("%s, %s decoder, %zu files %dx%d\n", gpu->name.c_str(), engine.decoder().c_str(),
              files.size(), f.width, f.height);
  {  // start-up: what a batch's first stack pays
    std::vector<JpegToDecode> jpegs;
    for (std::size_t i = 0; i < 16; ++i) jpegs.push_back({i, &files[i]});
    t = Clock::now();
    slot.decode(jpegs, 3, buffer.get(), pitch, image_bytes, 16, 16);
    stream.synchronize("decoding");
    const double decode_ms = ms_since(t);
    t = Clock::now();
    for (std::size_t i = 0; i < 16; ++i)
      slot.encode(i, buffer.get() + i * image_bytes, pitch, f.width, f.height, 3,
                  JpegEncodeSettings{quality, ChromaSubsampling::k420});
    slot.join();
    stream.synchronize("encoding");
    std::printf(
        "start-up: engine %.1f ms, slot %.1f ms, first 16 decoded %.1f ms, first 16 encoded %.1f "
        "ms\n",
        engine_ms, slot_ms, decode_ms, ms_since(t));
  }
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
  for (const bool encode : {false, true})
    for (const std::size_t slots : {std::size_t{1}, std::size_t{2}})
      worker_shape(engine, files, f, slots, encode, quality);
  worker_shape(engine, files, f, 2, true, quality, true);
  return 0;
}
