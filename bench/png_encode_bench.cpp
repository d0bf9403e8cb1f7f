// png_encode_bench.cpp — PNG encoding time and size: stock stb_image_write (its own deflate)
// against gpublur's writer (png_encode.cpp: Paeth and zlib in parallel bands, libpng's chunks),
// on the same image, in one run.
//   gpublur_png_bench IMAGE [--repeat N]     (any image stb reads; e.g. a blurred 1080p PNG)
#define STB_IMAGE_WRITE_STATIC  // a private copy of stock stb_image_write
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#include <stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "image_io.hpp"
#include "png_encode.hpp"

namespace {

using Clock = std::chrono::steady_clock;

template <typename Fn>
double median_ms(int repeat, Fn fn) {
  std::vector<double> ms;
  for (int i = 0; i < repeat; ++i) {
    const auto start = Clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpublur_png_bench IMAGE [repeat]\n");
    return 2;
  }
  const int repeat = argc > 2 ? std::stoi(argv[2]) : 5;
  const gpublur::Image image = gpublur::read_image(argv[1]).image;
  std::vector<unsigned char> stock;
  const double stock_ms = median_ms(repeat, [&] {
    stock.clear();
    stbi_write_png_to_func(
        [](void* ctx, void* data, int size) {
          auto* out = static_cast<std::vector<unsigned char>*>(ctx);
          out->insert(out->end(), static_cast<unsigned char*>(data),
                      static_cast<unsigned char*>(data) + size);
        },
        &stock, image.width, image.height, image.channels, image.pixels.data(),
        static_cast<int>(image.row_bytes()));
  });
  std::printf("%dx%d, %d channels; median of %d\n", image.width, image.height, image.channels,
              repeat);
  std::printf("| encoder | ms | bytes | speed-up | size vs stock |\n|---|---|---|---|---|\n");
  std::printf("| stock stb_image_write | %.1f | %zu | 1.00 | 1.000 |\n", stock_ms, stock.size());
  for (int level : {1, 2, 4, 6, 9}) {
    std::vector<std::uint8_t> ours;
    gpublur::WriteOptions options;
    options.png_level = level;
    const double ms = median_ms(
        repeat, [&] { ours = gpublur::encode_image(image, gpublur::ImageFormat::kPng, options); });
    std::printf("| gpublur --png-level %d | %.1f | %zu | %.2f | %.3f |\n", level, ms, ours.size(),
                stock_ms / ms,
                static_cast<double>(ours.size()) / static_cast<double>(stock.size()));
  }
  // How the default level scales with bands (one thread each, up to one per core): whether a
  // host's cores, not the encoder, set the encode time there.
  std::printf("\n| bands (level 4) | ms | bytes |\n|---|---|---|\n");
  for (int bands : {1, 2, 4, 8, 16, 32}) {
    std::vector<std::uint8_t> ours;
    gpublur::PngEncoding encoding;
    encoding.bands = bands;
    const double ms = median_ms(repeat, [&] { ours = gpublur::encode_png(image, encoding); });
    std::printf("| %d | %.1f | %zu |\n", bands, ms, ours.size());
  }
  return 0;
}
