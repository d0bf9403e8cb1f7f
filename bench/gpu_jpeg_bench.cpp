// gpu_jpeg_bench.cpp — nvJPEG alone, as gpublur drives it (gpu_jpeg.hpp), on one GPU: the batched
// decoder's images/s for each batch size (host time in the call, and wall time to the stream's
// end), and the encoder's, on a folder of same-size JPEGs; then the calls the batch's JPEG worker
// makes (gpu_pool.cpp: stacks of 16 decoded, encoded and fetched, on one slot or two in turn), on
// one thread, with the host's time in each call. What sets the GPU codec's pace in the batch when
// it is slower than expected (the pool splits these calls over two threads: --json's worker_ms).
//   gpublur_gpu_jpeg_bench DIR [quality]      (e.g. photo_set.py's hd-jpg)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench_gpu.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/jpeg_codec.hpp"
#include "codegen/launch_dims.hpp"
#include "gpu/cuda_driver.hpp"
#include "nvjpeg/gpu_jpeg.hpp"

using namespace gpublur;
using Clock = std::chrono::steady_clock;

namespace {
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
}  // namespace

std::uintptr_t handle(const cuda::Stream& s) { return reinterpret_cast<std::uintptr_t>(s.get()); }

// One slot of the worker's shape: a stream, its decoder, room for a stack.
struct ShapeSlot {
  cuda::Stream stream;
  std::unique_ptr<GpuJpegDecoder> decoder;
  cuda::DeviceBuffer buffer;
  ShapeSlot(GpuJpegEngine& engine, std::size_t bytes)
      : decoder(std::make_unique<GpuJpegDecoder>(engine, handle(stream))), buffer(bytes) {}
};

// Stacks of `stack` files decoded on `slots` slots in turn, and (with `encode`) each stack
// encoded and fetched once the next is decoding, as gpu_pool's worker and its finisher do, here
// on one thread: images/s and the host's ms per stack in each call.
void worker_shape(GpuJpegEngine& engine, GpuJpegEncoder& encoder,
                  const std::vector<std::vector<std::uint8_t>>& files, const JpegFacts& f,
                  std::size_t slots, bool encode, int quality) {
  constexpr std::size_t stack = 16;
  const std::size_t pitch = device_pitch(static_cast<std::size_t>(f.width) * 3);
  const std::size_t image_bytes = pitch * static_cast<std::size_t>(f.height);
  std::vector<std::unique_ptr<ShapeSlot>> ring;
  for (std::size_t i = 0; i < slots; ++i)
    ring.push_back(std::make_unique<ShapeSlot>(engine, image_bytes * stack * 2));
  const JpegEncodeSettings settings{quality, ChromaSubsampling::k420};
  for (int round = 0; round < 2; ++round) {  // the first warms up
    double decode_ms = 0, encode_ms = 0, wait_ms = 0;
    std::size_t stacks = 0, next = 0;
    ShapeSlot* last = nullptr;  // decoded, not yet encoded
    const auto encode_last = [&] {
      if (!last || !encode) return;
      const auto t = Clock::now();
      std::vector<ImageToEncode> images;
      for (std::size_t i = 0; i < stack; ++i)
        images.push_back(
            {last->buffer.get() + i * image_bytes, pitch, f.width, f.height, 3, settings});
      encoder.encode(handle(last->stream), images);
      encode_ms += ms_since(t);
    };
    const auto start = Clock::now();
    for (std::size_t at = 0; at + stack <= files.size(); at += stack, ++stacks) {
      ShapeSlot& s = *ring[next++ % ring.size()];
      auto t = Clock::now();
      s.stream.synchronize("the stack");
      wait_ms += ms_since(t);
      std::vector<CompressedImage> jpegs;
      for (std::size_t i = 0; i < stack; ++i) jpegs.push_back({i, &files[at + i]});
      t = Clock::now();
      s.decoder->decode(jpegs, 3, s.buffer.get(), pitch, image_bytes, stack, stack);
      decode_ms += ms_since(t);
      encode_last();
      last = &s;
    }
    encode_last();
    for (auto& s : ring) s->stream.synchronize("the stack");
    const double wall = ms_since(start);
    const double n = static_cast<double>(stacks);
    if (round == 1)
      std::printf(
          "worker shape, %zu slot%s, decode%s: %7.1f images/s (host per stack of %zu: decode "
          "%.1f ms, encode and fetch %.1f ms, waiting for a slot %.1f ms)\n",
          slots, slots == 1 ? "" : "s", encode ? " + encode + fetch" : " only",
          1000.0 * n * stack / wall, stack, decode_ms / n, encode_ms / n, wait_ms / n);
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
  const bench::BenchGpu gpu = bench::open_gpu_or_exit("gpublur_gpu_jpeg_bench");
  auto t = Clock::now();
  GpuJpegEngine engine;
  const double engine_ms = ms_since(t);
  cuda::Stream stream;
  t = Clock::now();
  GpuJpegDecoder decoder(engine, handle(stream));
  const double decoder_ms = ms_since(t);
  t = Clock::now();
  GpuJpegEncoder encoder(engine);
  const double encoder_ms = ms_since(t);
  const std::size_t pitch = device_pitch(static_cast<std::size_t>(f.width) * 3);
  const std::size_t image_bytes = pitch * static_cast<std::size_t>(f.height);
  constexpr std::size_t kMaxBatch = 64;
  cuda::DeviceBuffer buffer(image_bytes * kMaxBatch * 2);
  std::printf("%s, %s decoder, %zu files %dx%d\n", gpu.info.name.c_str(), engine.decoder().c_str(),
              files.size(), f.width, f.height);
  {  // start-up: what a batch's first stack pays
    std::vector<CompressedImage> jpegs;
    for (std::size_t i = 0; i < 16; ++i) jpegs.push_back({i, &files[i]});
    t = Clock::now();
    decoder.decode(jpegs, 3, buffer.get(), pitch, image_bytes, 16, 16);
    stream.synchronize("decoding");
    const double decode_ms = ms_since(t);
    t = Clock::now();
    std::vector<ImageToEncode> images;
    for (std::size_t i = 0; i < 16; ++i)
      images.push_back({buffer.get() + i * image_bytes, pitch, f.width, f.height, 3,
                        JpegEncodeSettings{quality, ChromaSubsampling::k420}});
    encoder.encode(handle(stream), images);
    std::printf(
        "start-up: engine %.1f ms, a decoder %.1f ms, the encoder %.1f ms, first "
        "16 decoded %.1f ms, first 16 encoded %.1f ms\n",
        engine_ms, decoder_ms, encoder_ms, decode_ms, ms_since(t));
  }
  for (const std::size_t batch :
       {std::size_t{1}, std::size_t{8}, std::size_t{16}, std::size_t{32}, kMaxBatch}) {
    for (int round = 0; round < 2; ++round) {  // the first warms up
      double host_ms = 0;
      std::size_t declined = 0;
      const auto start = Clock::now();
      for (std::size_t at = 0; at + batch <= files.size(); at += batch) {
        std::vector<CompressedImage> jpegs;
        for (std::size_t i = 0; i < batch; ++i) jpegs.push_back({i, &files[at + i]});
        const auto call = Clock::now();
        declined += decoder.decode(jpegs, 3, buffer.get(), pitch, image_bytes, batch, batch).size();
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
      std::vector<ImageToEncode> images;
      for (std::size_t i = 0; i < 16; ++i)
        images.push_back({buffer.get() + i * image_bytes, pitch, f.width, f.height, 3, settings});
      for (const EncodedImage& e : encoder.encode(handle(stream), images)) bytes += e.bytes.size();
    }
    const double wall = ms_since(start);
    if (round == 1)
      std::printf(
          "encode (16 at a time, 4 streams and threads, q%d 4:2:0): %.1f images/s, %.0f KB each\n",
          quality, 1000.0 * static_cast<double>(files.size() / 16 * 16) / wall,
          static_cast<double>(bytes) / 1024.0 / static_cast<double>(files.size() / 16 * 16));
  }
  for (const bool encode : {false, true})
    for (const std::size_t slots : {std::size_t{1}, std::size_t{2}, std::size_t{3}})
      worker_shape(engine, encoder, files, f, slots, encode, quality);
  return 0;
}
