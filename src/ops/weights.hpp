// weights.hpp — Gaussian (size, sigma) -> integer taps that sum to exactly 1 << kWeightBits.
// Pure and thread-safe. The fixed-point arithmetic every blur path shares is defined here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpublur {

/// Each axis' taps sum to exactly 2^16, so a constant image stays exactly constant.
constexpr int kWeightBits = 16;
/// 16-bit images need finer taps for the same accuracy in their (256x finer) units.
constexpr int kWeightBits16 = 24;
/// Fractional bits kept in the intermediate between the vertical and the horizontal pass.
constexpr int kIntermediateFracBits = 8;
/// The largest --size accepted: radius 2047. Far beyond any useful blur, small enough that
/// one GPU block's halo row fits in shared memory.
constexpr int kMaxKernelSize = 4095;

// The arithmetic, for 8-bit samples p (0..255) and taps q with sum(q) = 2^16:
//   vertical:   a = sum_j q_j * p_j          <= 255 * 2^16           < 2^24 (exact even in FP32)
//               m = (a + 2^7) >> 8           <= 65280                 fits 16 bits
//   horizontal: b = sum_i q_i * m_i          <= 65280 * 2^16 + 2^23  < 2^32 (uint32 exact)
//               out = (b + 2^23) >> 24       <= 255
// A constant c gives a = c * 2^16, m = c * 2^8, b = c * 2^24, out = c: exactly constant.
// Both roundings are to nearest, never truncation (truncation darkens).
//
// Accuracy against the float64 convolution with the same truncated, renormalised Gaussian g:
// with taps q / 2^16 = g + e per axis, |e| < 2^-16 per off-centre tap and < 2^-15 at the centre,
//   |out - exact| <= 1/2 (final rounding) + 2^-9 (intermediate rounding; taps sum to 1)
//                   + 255/2 * (|e_x|_1 + |e_y|_1)       (the tap errors sum to 0, so at worst the
//                                                       positive half meets 255, the rest 0)
//                 <= 0.502 + 0.0039 * (size + 1).
// So every output is within 1 LSB for kernels up to 127 wide, whatever the image; wider kernels
// are within 1.5 LSB in that worst case (the tests measure <= 1 on real and random images).
//
// 16-bit samples (0..65535) use taps summing to 2^24 and 64-bit sums (src/cpu_blur.cpp):
//   vertical   a = sum_j qy_j * p        <= 65535 * 2^24 < 2^40,  m = (a + 2^15) >> 16  (< 2^24)
//   horizontal b = sum_i qx_i * m        <= 2^24 * 2^24 = 2^48,    out = (b + 2^31) >> 32
// and the same bound holds in 16-bit units: 0.502 + 65535/2 * 2 (size + 1) / 2^24 LSB.

/// Integer taps of one axis, index 0 is offset -radius. Symmetric.
struct Weights {
  int size = 1;                     // odd, 2 * radius + 1
  double sigma = 0;                 // the sigma the taps were computed from
  std::vector<std::uint32_t> taps;  // size entries, sum exactly 1 << bits
  int radius() const { return size / 2; }
};

/// Size from sigma: 2 * ceil(3 * sigma) + 1 (covers +-3 sigma, 99.7% of the mass).
int size_for_sigma(double sigma);
/// Sigma from size: OpenCV's 0.3 * ((size - 1) * 0.5 - 1) + 0.8.
double sigma_for_size(int size);

/// Taps of the Gaussian exp(-x^2 / (2 sigma^2)) truncated to |x| <= size / 2, renormalised to
/// sum 2^bits (kWeightBits or kWeightBits16), then made integers that sum to exactly that and
/// stay symmetric: each off-centre
/// tap is the floor or ceiling of its ideal value (largest remainders rounded up), the centre
/// one of the two even numbers around its ideal, whichever set is nearer the ideal in L1.
/// Preconditions (checked by the CLI; violated ones throw InternalError): size odd in
/// 1..kMaxKernelSize, sigma finite and > 0.
Weights make_weights(int size, double sigma, int bits = kWeightBits);

/// The same Gaussian as real numbers summing to 1 (for floating-point images).
std::vector<double> gaussian_taps(int size, double sigma);

}  // namespace gpublur
