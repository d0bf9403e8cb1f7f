// reference_blur.hpp — test support: an independent float64 Gaussian (direct 2-D convolution,
// its own border code) to hold gpublur's integer blur against, the same for any matrix, and
// deterministic test images.
#pragma once

#include <cstdint>
#include <vector>

#include "image/image.hpp"
#include "ops/blur_parameters.hpp"
#include "ops/blur_spec.hpp"

namespace gpublur::test {

/// Exact real-valued blur of `in` with the truncated, renormalised Gaussian of (size, sigma),
/// one value per byte of the image. Written without gpublur's weights or border code.
/// For 16-bit images the constant border value v reads as v * 257, as in gpublur.
template <typename Sample>
std::vector<double> reference_blur(const Raster<Sample>& in, int size, double sigma, Border border,
                                   const std::array<std::uint8_t, 4>& border_value);
/// The same with different horizontal (x) and vertical (y) kernels.
template <typename Sample>
std::vector<double> reference_blur(const Raster<Sample>& in, int size_x, double sigma_x, int size_y,
                                   double sigma_y, Border border,
                                   const std::array<std::uint8_t, 4>& border_value);

/// The matrix's correlation, sum_j sum_i w[j * width + i] * in(y + j - height/2, x + i - width/2)
/// per sample, direct, with its own border code; `constant` is the constant border's pixel in the
/// samples' scale. Exact for integer weights whose sums stay below 2^64 (long double's 64 bits).
template <typename Sample>
std::vector<long double> reference_correlate(const Raster<Sample>& in,
                                             const std::vector<long double>& weights, int width,
                                             int height, Border border,
                                             const std::array<long double, 4>& constant);

/// The float64 premultiplied blur: alpha = blur(a); colour = blur(c * a) / blur(a), meaningful
/// where the blurred alpha is at least half a unit (below, the colour of a nearly transparent
/// pixel is not defined). The constant border pixel is premultiplied the same way.
struct PremultipliedReference {
  std::vector<double> values;
  std::vector<bool> meaningful;
};
template <typename Sample>
PremultipliedReference premultiplied_reference(const Raster<Sample>& in, int size, double sigma,
                                               Border border,
                                               const std::array<std::uint8_t, 4>& border_value);
template <typename Sample>
double max_abs_diff(const Raster<Sample>& image, const PremultipliedReference& reference);

/// The largest |a - b| over all samples.
template <typename Sample>
double max_abs_diff(const Raster<Sample>& image, const std::vector<double>& reference);

/// Uniform random samples from a fixed seed.
Image random_image(int width, int height, int channels, std::uint32_t seed);
Image16 random_image16(int width, int height, int channels, std::uint32_t seed);

/// A spec with different taps per axis.
BlurSpec make_test_spec(int size_x, double sigma_x, int size_y, double sigma_y, int channels,
                        Border border = Border::kClamp,
                        std::array<std::uint8_t, 4> border_value = {});

/// A spec with the same taps on both axes.
BlurSpec make_test_spec(int size, double sigma, int channels, Border border = Border::kClamp,
                        std::array<std::uint8_t, 4> border_value = {});

/// The command line's blur parameters for a size and sigma on both axes, as the pipeline and
/// the GPU pool take them.
BlurParameters make_test_parameters(int size, double sigma);

}  // namespace gpublur::test
