// gaussian.cpp — the Gaussian's taps at each precision, made once per axis.
#include "ops/gaussian.hpp"

#include "ops/weights.hpp"

namespace gpublur {

AxisTaps gaussian_axis(int size, double sigma) {
  AxisTaps axis;
  axis.size = size;
  axis.sigma = sigma;
  const Weights q16 = make_weights(size, sigma, kWeightBits);
  const Weights q24 = make_weights(size, sigma, kWeightBits16);
  axis.q16.assign(q16.taps.begin(), q16.taps.end());
  axis.q24.assign(q24.taps.begin(), q24.taps.end());
  axis.real = gaussian_taps(size, sigma);
  return axis;
}

}  // namespace gpublur
