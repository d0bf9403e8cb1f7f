// reference_blur.cpp — the float64 reference and test images.
#include "support/reference_blur.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "ops/gaussian.hpp"

namespace gpublur::test {
namespace {

// Where sample i of an axis of n samples comes from; -1 means the constant.
int source_index(Border border, int i, int n) {
  switch (border) {
    case Border::kClamp:
      return std::clamp(i, 0, n - 1);
    case Border::kReflect:  // mirror about the pixel edges until inside
      while (i < 0 || i >= n) i = i < 0 ? -i - 1 : 2 * n - 1 - i;
      return i;
    case Border::kReflect101:  // mirror about the edge pixels until inside
      if (n == 1) return 0;
      while (i < 0 || i >= n) i = i < 0 ? -i : 2 * n - 2 - i;
      return i;
    case Border::kWrap:
      return ((i % n) + n) % n;
    case Border::kConstant:
      return i < 0 || i >= n ? -1 : i;
  }
  return -1;
}

std::vector<double> gaussian(int size, double sigma) {
  const int r = size / 2;
  std::vector<double> g(static_cast<std::size_t>(size));
  double sum = 0;
  for (int k = -r; k <= r; ++k) {
    g[static_cast<std::size_t>(k + r)] = std::exp(-(k * k) / (2 * sigma * sigma));
    sum += g[static_cast<std::size_t>(k + r)];
  }
  for (double& v : g) v /= sum;
  return g;
}

// The direct 2-D convolution; the constant border is the pixel `border_pixel`.
template <typename Sample>
std::vector<double> convolve(const Raster<Sample>& in, int size_x, double sigma_x, int size_y,
                             double sigma_y, Border border,
                             const std::array<double, 4>& border_pixel) {
  const std::vector<double> gx = gaussian(size_x, sigma_x);
  const std::vector<double> gy = gaussian(size_y, sigma_y);
  const int rx = size_x / 2, ry = size_y / 2, w = in.width, h = in.height, c = in.channels;
  std::vector<double> out(in.pixels.size());
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (int ch = 0; ch < c; ++ch) {
        double acc = 0;
        for (int dy = -ry; dy <= ry; ++dy) {
          const int sy = source_index(border, y + dy, h);
          for (int dx = -rx; dx <= rx; ++dx) {
            const int sx = source_index(border, x + dx, w);
            const double p =
                (sy < 0 || sx < 0)
                    ? border_pixel[static_cast<std::size_t>(ch)]
                    : in.pixels[(static_cast<std::size_t>(sy) * static_cast<std::size_t>(w) +
                                 static_cast<std::size_t>(sx)) *
                                    static_cast<std::size_t>(c) +
                                static_cast<std::size_t>(ch)];
            acc +=
                gy[static_cast<std::size_t>(dy + ry)] * gx[static_cast<std::size_t>(dx + rx)] * p;
          }
        }
        out[(static_cast<std::size_t>(y) * static_cast<std::size_t>(w) +
             static_cast<std::size_t>(x)) *
                static_cast<std::size_t>(c) +
            static_cast<std::size_t>(ch)] = acc;
      }
    }
  }
  return out;
}

}  // namespace

template <typename Sample>
std::vector<long double> reference_correlate(const Raster<Sample>& in,
                                             const std::vector<long double>& weights, int width,
                                             int height, Border border,
                                             const std::array<long double, 4>& constant) {
  const int rx = width / 2, ry = height / 2, w = in.width, h = in.height, c = in.channels;
  std::vector<long double> out(in.pixels.size());
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (int ch = 0; ch < c; ++ch) {
        long double acc = 0;
        for (int j = 0; j < height; ++j) {
          const int sy = source_index(border, y + j - ry, h);
          for (int i = 0; i < width; ++i) {
            const int sx = source_index(border, x + i - rx, w);
            const long double p =
                (sy < 0 || sx < 0)
                    ? constant[static_cast<std::size_t>(ch)]
                    : in.pixels[(static_cast<std::size_t>(sy) * static_cast<std::size_t>(w) +
                                 static_cast<std::size_t>(sx)) *
                                    static_cast<std::size_t>(c) +
                                static_cast<std::size_t>(ch)];
            acc += weights[static_cast<std::size_t>(j * width + i)] * p;
          }
        }
        out[(static_cast<std::size_t>(y) * static_cast<std::size_t>(w) +
             static_cast<std::size_t>(x)) *
                static_cast<std::size_t>(c) +
            static_cast<std::size_t>(ch)] = acc;
      }
    }
  }
  return out;
}

template <typename Sample>
std::vector<double> reference_blur(const Raster<Sample>& in, int size, double sigma, Border border,
                                   const std::array<std::uint8_t, 4>& border_value) {
  return reference_blur(in, size, sigma, size, sigma, border, border_value);
}

template <typename Sample>
std::vector<double> reference_blur(const Raster<Sample>& in, int size_x, double sigma_x, int size_y,
                                   double sigma_y, Border border,
                                   const std::array<std::uint8_t, 4>& border_value) {
  const double scale = sizeof(Sample) == 2 ? 257.0 : 1.0;
  std::array<double, 4> pixel{};
  for (std::size_t k = 0; k < 4; ++k) pixel[k] = scale * border_value[k];
  return convolve(in, size_x, sigma_x, size_y, sigma_y, border, pixel);
}

template <typename Sample>
PremultipliedReference premultiplied_reference(const Raster<Sample>& in, int size, double sigma,
                                               Border border,
                                               const std::array<std::uint8_t, 4>& border_value) {
  const double scale = sizeof(Sample) == 2 ? 257.0 : 1.0;
  const auto c = static_cast<std::size_t>(in.channels);
  Raster<double> weighted = make_raster<double>(in.width, in.height, in.channels);
  for (std::size_t i = 0; i < in.pixels.size(); i += c) {
    const double a = in.pixels[i + c - 1];
    for (std::size_t k = 0; k + 1 < c; ++k) weighted.pixels[i + k] = in.pixels[i + k] * a;
    weighted.pixels[i + c - 1] = a;
  }
  std::array<double, 4> pixel{};
  const double border_alpha = scale * border_value[c - 1];
  for (std::size_t k = 0; k + 1 < c; ++k) pixel[k] = scale * border_value[k] * border_alpha;
  pixel[c - 1] = border_alpha;
  const std::vector<double> sums = convolve(weighted, size, sigma, size, sigma, border, pixel);
  PremultipliedReference ref{sums, std::vector<bool>(sums.size(), true)};
  for (std::size_t i = 0; i < sums.size(); i += c) {
    const double a = sums[i + c - 1];
    for (std::size_t k = 0; k + 1 < c; ++k) {
      ref.values[i + k] = a > 0 ? sums[i + k] / a : 0.0;
      ref.meaningful[i + k] = a >= 0.5;  // colour under (nearly) zero alpha is not defined
    }
  }
  return ref;
}

template <typename Sample>
double max_abs_diff(const Raster<Sample>& image, const PremultipliedReference& reference) {
  double worst = 0;
  for (std::size_t i = 0; i < reference.values.size(); ++i) {
    if (reference.meaningful[i]) {
      worst = std::max(worst, std::fabs(image.pixels[i] - reference.values[i]));
    }
  }
  return worst;
}

template <typename Sample>
double max_abs_diff(const Raster<Sample>& image, const std::vector<double>& reference) {
  double worst = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    worst = std::max(worst, std::fabs(image.pixels[i] - reference[i]));
  }
  return worst;
}

Image random_image(int width, int height, int channels, std::uint32_t seed) {
  Image image = make_image(width, height, channels);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto& p : image.pixels) p = static_cast<std::uint8_t>(byte(rng));
  return image;
}

Image16 random_image16(int width, int height, int channels, std::uint32_t seed) {
  Image16 image = make_raster<std::uint16_t>(width, height, channels);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> sample(0, 65535);
  for (auto& p : image.pixels) p = static_cast<std::uint16_t>(sample(rng));
  return image;
}

template std::vector<long double> reference_correlate(const Image&, const std::vector<long double>&,
                                                      int, int, Border,
                                                      const std::array<long double, 4>&);
template std::vector<long double> reference_correlate(const Image16&,
                                                      const std::vector<long double>&, int, int,
                                                      Border, const std::array<long double, 4>&);
template std::vector<long double> reference_correlate(const ImageF&,
                                                      const std::vector<long double>&, int, int,
                                                      Border, const std::array<long double, 4>&);
template std::vector<double> reference_blur(const Image&, int, double, Border,
                                            const std::array<std::uint8_t, 4>&);
template std::vector<double> reference_blur(const Image16&, int, double, Border,
                                            const std::array<std::uint8_t, 4>&);
template std::vector<double> reference_blur(const Image&, int, double, int, double, Border,
                                            const std::array<std::uint8_t, 4>&);
template std::vector<double> reference_blur(const Image16&, int, double, int, double, Border,
                                            const std::array<std::uint8_t, 4>&);
template double max_abs_diff(const Image&, const std::vector<double>&);
template PremultipliedReference premultiplied_reference(const Image&, int, double, Border,
                                                        const std::array<std::uint8_t, 4>&);
template PremultipliedReference premultiplied_reference(const Image16&, int, double, Border,
                                                        const std::array<std::uint8_t, 4>&);
template double max_abs_diff(const Image&, const PremultipliedReference&);
template double max_abs_diff(const Image16&, const PremultipliedReference&);
template double max_abs_diff(const Image16&, const std::vector<double>&);

BlurSpec make_test_spec(int size, double sigma, int channels, Border border,
                        std::array<std::uint8_t, 4> border_value) {
  return make_test_spec(size, sigma, size, sigma, channels, border, border_value);
}

BlurSpec make_test_spec(int size_x, double sigma_x, int size_y, double sigma_y, int channels,
                        Border border, std::array<std::uint8_t, 4> border_value) {
  BlurSpec spec;
  spec.x = gaussian_axis(size_x, sigma_x);
  spec.y = gaussian_axis(size_y, sigma_y);
  spec.channels = channels;
  spec.border = border;
  spec.border_value = border_value;
  return spec;
}

BlurParameters make_test_parameters(int size, double sigma) {
  BlurParameters p;
  p.size.x = p.size.y = AxisSize{size, sigma, "test"};
  return p;
}

}  // namespace gpublur::test

namespace gpublur::test {
template std::vector<double> reference_blur(const Raster<double>&, int, double, Border,
                                            const std::array<std::uint8_t, 4>&);
template std::vector<double> reference_blur(const Raster<float>&, int, double, Border,
                                            const std::array<std::uint8_t, 4>&);
}  // namespace gpublur::test
