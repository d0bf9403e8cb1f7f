// cpu_matrix.cpp — the dense 2-D pass: each output row sums every weight of the matrix times the
// source rows it reaches (rows of the matrix outer, its columns inner, the order the kernels and
// MatrixFloat's roundings follow), then the policy's finish. The source rows a band reaches are
// extended by the border once each and kept in a ring, one slot per row of the matrix; the inner
// loops run over contiguous samples, so they vectorise.
#include "cpu/cpu_matrix.hpp"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "arithmetic.cuh"
#include "base/errors.hpp"
#include "cpu/cpu_finish.hpp"
#include "cpu/cpu_row_kernels.hpp"
#include "ops/policy_taps.hpp"

namespace gpublur {
namespace {

template <typename Policy>
class DenseRows {
  using Sample = typename Policy::Sample;
  using Tap = typename Policy::Tap;
  using Sum = typename Policy::Sum;

 public:
  DenseRows(const Raster<Sample>& in, const FilterSpec& spec)
      : in_(in),
        spec_(spec),
        matrix_(policy_matrix<Policy>(spec.matrix)),
        finish_{matrix_finish<Policy>(spec.matrix), spec.keep_alpha},
        width_(static_cast<std::size_t>(spec.matrix.width)),
        height_(static_cast<std::size_t>(spec.matrix.height)),
        channels_(static_cast<std::size_t>(in.channels)),
        extended_samples_((static_cast<std::size_t>(in.width) + width_ - 1) * channels_),
        ring_(height_ * extended_samples_),
        ring_rows_(height_, std::numeric_limits<int>::min()),
        sums_(in.row_samples()) {
    constant_ = border_pixel<Sample>(spec);
  }

  void filter_row(int y, Sample* out) {
    const std::size_t n = sums_.size();
    std::fill(sums_.begin(), sums_.end(), Sum{0});
    const int ry = spec_.matrix.radius_y();
    for (std::size_t j = 0; j < height_; ++j) {
      const Sample* row = extended_row(y + static_cast<int>(j) - ry);
      for (std::size_t i = 0; i < width_; ++i) {
        const Tap q = matrix_.weights[j * width_ + i];
        // An integer weight of 0 adds nothing; a real one is summed as the kernels sum it.
        if (std::is_integral_v<Tap> && q == 0) continue;
        cpu_rows::mac_row(sums_.data(), q, row + i * channels_, n);
      }
    }
    finish_(sums_.data(), in_.pixels.data() + static_cast<std::size_t>(y) * in_.row_samples(), out,
            n, in_.channels);
  }

 private:
  // Source row y (any integer: the border rule maps it), with rx pixels of border on each side,
  // in slot y mod height of the ring: the matrix's window of consecutive rows never puts two rows
  // in one slot, and each row is extended once per band.
  const Sample* extended_row(int y) {
    const int taps = static_cast<int>(height_);
    const auto slot = static_cast<std::size_t>((y % taps + taps) % taps);
    Sample* row = ring_.data() + slot * extended_samples_;
    if (ring_rows_[slot] == y) return row;
    ring_rows_[slot] = y;
    const int rx = spec_.matrix.radius_x();
    const int source = border_index(spec_.border, y, in_.height);
    for (int x = -rx; x < in_.width + rx; ++x) {
      const int column = source < 0 ? -1 : border_index(spec_.border, x, in_.width);
      const Sample* pixel = column < 0 ? constant_.data()
                                       : in_.pixels.data() +
                                             static_cast<std::size_t>(source) * in_.row_samples() +
                                             static_cast<std::size_t>(column) * channels_;
      std::copy(pixel, pixel + channels_, row + static_cast<std::size_t>(x + rx) * channels_);
    }
    return row;
  }

  const Raster<Sample>& in_;
  const FilterSpec& spec_;
  const std::remove_reference_t<decltype(policy_matrix<Policy>(std::declval<MatrixNumbers>()))>&
      matrix_;
  const cpu_finish::WithNumbers<Policy> finish_;
  const std::size_t width_, height_, channels_;
  const std::size_t extended_samples_;  // a source row with its borders
  std::array<Sample, 4> constant_{};
  std::vector<Sample> ring_;    // extended source rows, one slot per row of the matrix
  std::vector<int> ring_rows_;  // the row each slot holds
  std::vector<Sum> sums_;       // one output row's sums
};

template <typename Policy>
Raster<typename Policy::Sample> dense_with(const Raster<typename Policy::Sample>& in,
                                           const FilterSpec& spec, unsigned threads) {
  if (spec.operation != Operation::kMatrix || in.channels != spec.channels) {
    throw InternalError("dense_matrix_on_cpu: not a matrix of the image's channels");
  }
  Raster<typename Policy::Sample> out =
      make_raster<typename Policy::Sample>(in.width, in.height, in.channels);
  const auto rows = [&](int first, int end) {
    DenseRows<Policy> dense(in, spec);  // a band's ring of source rows
    for (int y = first; y < end; ++y) {
      dense.filter_row(y, out.pixels.data() + static_cast<std::size_t>(y) * out.row_samples());
    }
  };
  // A band extends its height plus the matrix's rows, so it is at least as tall as the matrix.
  cpu_finish::for_bands(in.height, std::max(8, spec.matrix.height), threads, rows);
  return out;
}

}  // namespace

Image dense_matrix_on_cpu(const Image& in, const FilterSpec& spec, unsigned threads) {
  return dense_with<gb_arith::Matrix8>(in, spec, threads);
}

Image16 dense_matrix_on_cpu(const Image16& in, const FilterSpec& spec, unsigned threads) {
  return dense_with<gb_arith::Matrix16>(in, spec, threads);
}

ImageF dense_matrix_on_cpu(const ImageF& in, const FilterSpec& spec, unsigned threads) {
  return dense_with<gb_arith::MatrixFloat>(in, spec, threads);
}

}  // namespace gpublur
