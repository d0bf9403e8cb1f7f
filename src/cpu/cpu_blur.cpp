// cpu_blur.cpp — the separable pass, one output row at a time, bands of rows on oneTBB's threads,
// with the arithmetic of kernels/arithmetic.cuh (the GPU's own source): the Gaussian, the unsharp
// mask (the Gaussian's sums, finished against the input) and a matrix of rank one (its column,
// then its row); a dense matrix goes to cpu_matrix.cpp. The inner loops run over contiguous
// samples with the tap loop outside, so they vectorise.
#include "cpu/cpu_blur.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <type_traits>
#include <vector>

#include "arithmetic.cuh"
#include "base/errors.hpp"
#include "cpu/cpu_finish.hpp"
#include "cpu/cpu_matrix.hpp"
#include "cpu/cpu_row_kernels.hpp"
#include "ops/policy_taps.hpp"

namespace gpublur {
namespace {

// Whether the policy sums the image's samples as they are (else as Policy::prepare makes them,
// premultiplied, in a wider type).
template <typename Policy>
constexpr bool kSumsSamples = std::is_same_v<typename Policy::In, typename Policy::Sample>;

// Finish: a cpu_finish functor (the policy's finish over a row of sums).
template <typename Policy, typename Finish>
class RowBlurrer {
  using Sample = typename Policy::Sample;
  using In = typename Policy::In;
  using Tap = typename Policy::Tap;
  using Mid = typename Policy::Mid;
  using Sum = typename Policy::Sum;

 public:
  RowBlurrer(const Raster<Sample>& in, const FilterSpec& spec, const std::vector<Tap>& x,
             const std::vector<Tap>& y, const Finish& finish)
      : in_(in), spec_(spec), x_(x), y_(y), finish_(finish) {
    const std::size_t row = in.row_samples();
    const auto c = static_cast<std::size_t>(in.channels);
    const std::size_t halo = (x.size() / 2) * c;
    rows_.resize(y.size());
    if constexpr (!kSumsSamples<Policy>) {
      window_.resize(y.size() * row);
      window_rows_.assign(y.size(), std::numeric_limits<int>::min());
    }
    columns_.resize(x.size());
    extended_.resize(row + 2 * halo);
    horizontal_.resize(row);
    if (spec.border == Border::kConstant) {
      const auto pixel = border_pixel<Sample>(spec);
      constant_row_.resize(row);
      for (std::size_t i = 0; i < row; ++i) {
        constant_row_[i] = Policy::prepare(pixel.data(), static_cast<int>(i % c), in.channels);
      }
      for (std::size_t k = 0; k < c; ++k) {
        constant_mid_[k] = gb_arith::constant_column<Policy>(
            y.data(), static_cast<int>(y.size()), pixel.data(), static_cast<int>(k), in.channels);
      }
    }
  }

  void blur_row(int y, Sample* out) {
    vertical_pass(y);
    extend_row();
    horizontal_pass(in_.pixels.data() + static_cast<std::size_t>(y) * in_.row_samples(), out);
  }

 private:
  // Done::apply for the fused loops: the vertical sum finished into the intermediate, or the
  // horizontal sum kept as it is for Policy::finish.
  struct VerticalDone {
    static Mid apply(Mid a) { return Policy::vertical_done(a); }
  };
  struct HorizontalDone {
    static Sum apply(Sum b) { return b; }
  };

  // The intermediate row's own samples, between the borders of extended_.
  Mid* interior() {
    return extended_.data() + (x_.size() / 2) * static_cast<std::size_t>(in_.channels);
  }

  // m = Policy::vertical_done(sum_j q_j * p(y + j - r)), for every sample of the row.
  void vertical_pass(int y) {
    const int r = static_cast<int>(y_.size() / 2);
    const std::size_t n = in_.row_samples();
    for (std::size_t j = 0; j < y_.size(); ++j) rows_[j] = source_row(y + static_cast<int>(j) - r);
    Mid* m = interior();
    if (cpu_rows::fused_symmetric<VerticalDone, Mid>(m, y_, rows_.data(), n)) return;
    std::fill(m, m + n, Mid{0});
    cpu_rows::mac_taps(
        m, y_, [&](std::size_t j) { return rows_[j]; }, n);
    for (std::size_t i = 0; i < n; ++i) m[i] = Policy::vertical_done(m[i]);
  }

  // Row y (any integer: the border rule maps it) as the policy sums it.
  const In* source_row(int y) {
    const int src = border_index(spec_.border, y, in_.height);
    if (src < 0) return constant_row_.data();
    const Sample* row = in_.pixels.data() + static_cast<std::size_t>(src) * in_.row_samples();
    if constexpr (kSumsSamples<Policy>) {
      return row;
    } else {
      return prepared_row(y, row);
    }
  }

  // Premultiplied samples are wider than the image's (twice: u16 for 8-bit, u32 for 16-bit): the
  // rows a window of the vertical taps reaches are prepared into window_ as it moves down, instead
  // of a prepared copy of the whole image. Row y goes to slot y mod (taps), so the taps' window of
  // consecutive rows never puts two rows in one slot, and each row is prepared once per band.
  const In* prepared_row(int y, const Sample* row) {
    const int taps = static_cast<int>(y_.size());
    const auto slot = static_cast<std::size_t>((y % taps + taps) % taps);
    const std::size_t n = in_.row_samples();
    In* prepared = window_.data() + slot * n;
    if (window_rows_[slot] != y) {
      const auto c = static_cast<std::size_t>(in_.channels);
      for (std::size_t i = 0; i < n; i += c) {
        for (std::size_t k = 0; k < c; ++k) {
          prepared[i + k] = Policy::prepare(&row[i], static_cast<int>(k), in_.channels);
        }
      }
      window_rows_[slot] = y;
    }
    return prepared;
  }

  // extended_'s border: rx pixels on each side of the interior, by the border rule.
  void extend_row() {
    const int rx = static_cast<int>(x_.size() / 2);
    const auto c = static_cast<std::size_t>(in_.channels);
    const Mid* m = interior();
    const auto border = [&](int x) {
      const int src = border_index(spec_.border, x, in_.width);
      Mid* dst = &extended_[static_cast<std::size_t>(x + rx) * c];
      for (std::size_t k = 0; k < c; ++k) {
        dst[k] = src < 0 ? constant_mid_[k] : m[static_cast<std::size_t>(src) * c + k];
      }
    };
    for (int x = -rx; x < 0; ++x) border(x);
    for (int x = in_.width; x < in_.width + rx; ++x) border(x);
  }

  // b = sum_i q_i * m(x + i - r), then the finish (which may read the input row `in`).
  void horizontal_pass(const Sample* in, Sample* out) {
    const std::size_t n = horizontal_.size();
    const auto c = static_cast<std::size_t>(in_.channels);
    std::vector<const Mid*>& columns = columns_;
    for (std::size_t i = 0; i < x_.size(); ++i) columns[i] = extended_.data() + i * c;
    if (!cpu_rows::fused_symmetric<HorizontalDone, Sum>(horizontal_.data(), x_, columns.data(),
                                                        n)) {
      std::fill(horizontal_.begin(), horizontal_.end(), Sum{0});
      cpu_rows::mac_taps(
          horizontal_.data(), x_, [&](std::size_t i) { return columns[i]; }, n);
    }
    finish_(horizontal_.data(), in, out, n, in_.channels);
  }

  const Raster<Sample>& in_;
  const FilterSpec& spec_;
  const std::vector<Tap>& x_;
  const std::vector<Tap>& y_;
  const Finish& finish_;
  std::vector<In> constant_row_;
  std::vector<In> window_;        // prepared rows, one slot per vertical tap (see prepared_row)
  std::vector<int> window_rows_;  // the row each slot holds
  std::array<Mid, 4> constant_mid_{};
  std::vector<const In*> rows_;      // the source rows of one output row's vertical taps
  std::vector<const Mid*> columns_;  // extended_ shifted by each horizontal tap
  std::vector<Mid> extended_;        // the intermediate row, with its borders
  std::vector<Sum> horizontal_;
};

// The separable pass with the taps `x` across and `y` down, finished by `finish`.
template <typename Policy, typename Finish>
Raster<typename Policy::Sample> separable(const Raster<typename Policy::Sample>& in,
                                          const FilterSpec& spec,
                                          const std::vector<typename Policy::Tap>& x,
                                          const std::vector<typename Policy::Tap>& y,
                                          const Finish& finish, unsigned threads) {
  using Sample = typename Policy::Sample;
  if (in.channels != spec.channels) {
    throw InternalError("blur_on_cpu: image has " + std::to_string(in.channels) +
                        " channels, spec has " + std::to_string(spec.channels));
  }
  Raster<Sample> out = make_raster<Sample>(in.width, in.height, in.channels);
  const auto blur_rows = [&](int first, int end) {
    RowBlurrer<Policy, Finish> blurrer(in, spec, x, y, finish);  // a band's scratch rows
    for (int row = first; row < end; ++row) {
      blurrer.blur_row(row, out.pixels.data() + static_cast<std::size_t>(row) * out.row_samples());
    }
  };
  // A band that prepares its rows (premultiplied) prepares its height plus the taps', so it is at
  // least as tall as the taps.
  const int min_band = kSumsSamples<Policy> ? 8 : std::max(8, static_cast<int>(y.size()));
  cpu_finish::for_bands(in.height, min_band, threads, blur_rows);
  return out;
}

// The Gaussian blur with `Policy`'s arithmetic.
template <typename Policy>
Raster<typename Policy::Sample> blur_with(const Raster<typename Policy::Sample>& in,
                                          const FilterSpec& spec, unsigned threads) {
  return separable<Policy>(in, spec, policy_taps<Policy>(spec.x), policy_taps<Policy>(spec.y),
                           cpu_finish::Blur<Policy>{}, threads);
}

// The unsharp mask: the Gaussian's sums (Unsharp's base policy), finished against the input.
template <typename Unsharp>
Raster<typename Unsharp::Sample> unsharp_with(const Raster<typename Unsharp::Sample>& in,
                                              const FilterSpec& spec, unsigned threads) {
  const cpu_finish::WithNumbers<Unsharp> finish{unsharp_finish<Unsharp>(spec.unsharp),
                                                spec.keep_alpha};
  return separable<Unsharp>(in, spec, policy_taps<Unsharp>(spec.x), policy_taps<Unsharp>(spec.y),
                            finish, threads);
}

// A matrix: of rank one, its row across and its column down; else the dense 2-D pass.
template <typename Matrix>
Raster<typename Matrix::Sample> matrix_with(const Raster<typename Matrix::Sample>& in,
                                            const FilterSpec& spec, unsigned threads) {
  const auto& m = policy_matrix<Matrix>(spec.matrix);
  if (!m.separable()) return dense_matrix_on_cpu(in, spec, threads);
  const cpu_finish::WithNumbers<Matrix> finish{matrix_finish<Matrix>(spec.matrix), spec.keep_alpha};
  return separable<Matrix>(in, spec, m.row, m.column, finish, threads);
}

template <typename Straight, typename Premultiplied>
Raster<typename Straight::Sample> blur_integer(const Raster<typename Straight::Sample>& in,
                                               const FilterSpec& spec, unsigned threads) {
  if (spec.premultiplied) {
    if (in.channels != 2 && in.channels != 4) {
      throw InternalError("premultiplied blur of an image without alpha");
    }
    return blur_with<Premultiplied>(in, spec, threads);
  }
  return blur_with<Straight>(in, spec, threads);
}

}  // namespace

ImageF blur_on_cpu(const ImageF& in, const FilterSpec& spec, unsigned threads) {
  switch (spec.operation) {
    case Operation::kMatrix:
      return matrix_with<gb_arith::MatrixFloat>(in, spec, threads);
    case Operation::kUnsharp:
      return unsharp_with<gb_arith::UnsharpFloat>(in, spec, threads);
    case Operation::kGaussian:
      break;
  }
  if (spec.premultiplied) throw InternalError("premultiplied blur of a floating-point image");
  return blur_with<gb_arith::Float>(in, spec, threads);
}

Image blur_on_cpu(const Image& in, const FilterSpec& spec, unsigned threads) {
  switch (spec.operation) {
    case Operation::kMatrix:
      return matrix_with<gb_arith::Matrix8>(in, spec, threads);
    case Operation::kUnsharp:
      return unsharp_with<gb_arith::Unsharp8>(in, spec, threads);
    case Operation::kGaussian:
      break;
  }
  return blur_integer<gb_arith::Straight8, gb_arith::Premultiplied8>(in, spec, threads);
}

Image16 blur_on_cpu(const Image16& in, const FilterSpec& spec, unsigned threads) {
  switch (spec.operation) {
    case Operation::kMatrix:
      return matrix_with<gb_arith::Matrix16>(in, spec, threads);
    case Operation::kUnsharp:
      return unsharp_with<gb_arith::Unsharp16>(in, spec, threads);
    case Operation::kGaussian:
      break;
  }
  return blur_integer<gb_arith::Straight16, gb_arith::Premultiplied16>(in, spec, threads);
}

}  // namespace gpublur
