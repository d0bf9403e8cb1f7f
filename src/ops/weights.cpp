// weights.cpp — integer Gaussian taps; see weights.hpp for the arithmetic they feed.
#include "ops/weights.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "base/errors.hpp"
#include "base/number_text.hpp"

namespace gpublur {
namespace {

// Ideal (real-valued) tap for each distance 0..radius from the centre, scaled to `sum`.
std::vector<double> ideal_half_taps(int radius, double sigma, std::int64_t sum) {
  std::vector<double> g(static_cast<std::size_t>(radius) + 1);
  double total = 0;
  for (int d = 0; d <= radius; ++d) {
    const double x = static_cast<double>(d) / sigma;
    g[static_cast<std::size_t>(d)] = std::exp(-0.5 * x * x);
    total += (d == 0 ? 1.0 : 2.0) * g[static_cast<std::size_t>(d)];
  }
  for (double& v : g) v = v / total * static_cast<double>(sum);
  return g;
}

struct HalfTaps {
  std::vector<std::int64_t> q;  // distance 0..radius
  double l1 = 0;                // sum over all taps of |q - ideal|
};

// Taps with centre `centre` (even, since the off-centre taps come in pairs and the total 2^16
// is even): each pair gets floor(ideal) or floor(ideal) + 1, the +1s going to the largest
// fractional parts (largest remainder, optimal in L1 for equal multiplicities).
std::optional<HalfTaps> taps_with_centre(const std::vector<double>& ideal, std::int64_t centre,
                                         std::int64_t sum) {
  HalfTaps t;
  t.q.resize(ideal.size());
  t.q[0] = centre;
  std::int64_t remaining = (sum - centre) / 2;
  std::vector<std::size_t> order;
  for (std::size_t d = 1; d < ideal.size(); ++d) {
    t.q[d] = static_cast<std::int64_t>(std::floor(ideal[d]));
    remaining -= t.q[d];
    order.push_back(d);
  }
  if (remaining < 0 || remaining > static_cast<std::int64_t>(order.size())) return std::nullopt;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ideal[a] - std::floor(ideal[a]) > ideal[b] - std::floor(ideal[b]);
  });
  for (std::int64_t k = 0; k < remaining; ++k) ++t.q[order[static_cast<std::size_t>(k)]];
  for (std::size_t d = 0; d < ideal.size(); ++d) {
    t.l1 += (d == 0 ? 1.0 : 2.0) * std::fabs(ideal[d] - static_cast<double>(t.q[d]));
  }
  return t;
}

}  // namespace

int size_for_sigma(double sigma) { return 2 * static_cast<int>(std::ceil(3.0 * sigma)) + 1; }

double sigma_for_size(int size) { return 0.3 * ((size - 1) * 0.5 - 1.0) + 0.8; }

Weights make_weights(int size, double sigma, int bits) {
  if (size < 1 || size % 2 == 0 || size > kMaxKernelSize || !(sigma > 0) || !std::isfinite(sigma)) {
    throw InternalError("make_weights: invalid size " + std::to_string(size) + " or sigma " +
                        number_text(sigma));
  }
  if (bits != kWeightBits && bits != kWeightBits16) {
    throw InternalError("make_weights: unsupported precision " + std::to_string(bits));
  }
  const std::int64_t sum = std::int64_t{1} << bits;
  const int radius = size / 2;
  const std::vector<double> ideal = ideal_half_taps(radius, sigma, sum);

  // The centre must be even; try the two even values around its ideal, keep the closer set.
  std::optional<HalfTaps> best;
  const auto even_below = 2 * static_cast<std::int64_t>(std::floor(ideal[0] / 2));
  for (std::int64_t centre = even_below; centre <= even_below + 2; centre += 2) {
    const auto candidate = taps_with_centre(ideal, centre, sum);
    if (candidate && (!best || candidate->l1 < best->l1)) best = candidate;
  }
  if (!best) throw InternalError("make_weights: no tap set for size " + std::to_string(size));
  const std::vector<std::int64_t>& q = best->q;

  Weights w;
  w.size = size;
  w.sigma = sigma;
  w.taps.resize(static_cast<std::size_t>(size));
  for (int k = -radius; k <= radius; ++k) {
    w.taps[static_cast<std::size_t>(k + radius)] =
        static_cast<std::uint32_t>(q[static_cast<std::size_t>(std::abs(k))]);
  }
  return w;
}

std::vector<double> gaussian_taps(int size, double sigma) {
  const int radius = size / 2;
  const std::vector<double> half = ideal_half_taps(radius, sigma, 1);
  std::vector<double> taps(static_cast<std::size_t>(size));
  for (int k = -radius; k <= radius; ++k) {
    taps[static_cast<std::size_t>(k + radius)] = half[static_cast<std::size_t>(std::abs(k))];
  }
  return taps;
}

}  // namespace gpublur
