// codec_bench.cpp — one core's time to decode an image file and to encode its pixels in each
// writable format (PNG at every level), and the sizes written: what --png-level's default and the
// batch's codec budget are chosen from (bench/HISTORY.md).
//   gpublur_codec_bench IMAGE [repeat]      (e.g. a blurred 1080p photo as PNG)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"

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
  using namespace gpublur;
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpublur_codec_bench IMAGE [repeat]\n");
    return 2;
  }
  const int repeat = argc > 2 ? std::stoi(argv[2]) : 5;
  const std::vector<std::uint8_t> file = read_file(argv[1]);
  DecodedImage decoded;
  const double decode_ms = median_ms(repeat, [&] { decoded = decode_image(file, argv[1]); });
  const Image image = decoded.image.visit([](const auto& raster) -> Image {
    if constexpr (std::is_same_v<std::decay_t<decltype(raster)>, Image>) {
      return raster;
    } else {
      return to_8_bit(raster);
    }
  });
  std::printf("%s: %dx%d, %d channels, %s, %zu bytes; decode %.2f ms (median of %d)\n\n", argv[1],
              image.width, image.height, image.channels,
              std::string(format_name(decoded.format)).c_str(), file.size(), decode_ms, repeat);
  std::printf("| encoder | ms | bytes |\n|---|---|---|\n");
  for (int level = kMinPngLevel; level <= kMaxPngLevel; ++level) {
    EncodeOptions options;
    options.png_level = level;
    std::size_t bytes = 0;
    const double ms =
        median_ms(repeat, [&] { bytes = encode_image(image, ImageFormat::kPng, options).size(); });
    std::printf("| PNG level %d%s | %.2f | %zu |\n", level,
                level == EncodeOptions{}.png_level ? " (default)" : "", ms, bytes);
  }
  for (ImageFormat format :
       {ImageFormat::kJpeg, ImageFormat::kWebp, ImageFormat::kTiff, ImageFormat::kBmp}) {
    std::size_t bytes = 0;
    const double ms = median_ms(repeat, [&] { bytes = encode_image(image, format).size(); });
    std::printf("| %s (defaults) | %.2f | %zu |\n", std::string(format_name(format)).c_str(), ms,
                bytes);
  }
  return 0;
}
