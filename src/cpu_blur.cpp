// cpu_blur.cpp — separable integer blur, one output row at a time, rows split across threads.
// The inner loops run over contiguous samples with the tap loop outside, so they vectorise.
#include "cpu_blur.hpp"

#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

#include "errors.hpp"

namespace gpublur {
namespace {

// The fixed-point constants per sample type (weights.hpp derives their bit widths).
template <typename Sample>
struct Arithmetic;

template <>
struct Arithmetic<std::uint8_t> {
  using Acc = std::uint32_t;  // a < 2^24, b < 2^32
  static constexpr int kTapBits = kWeightBits;
  static constexpr int kVerticalShift = kIntermediateFracBits;                      // 8
  static constexpr int kHorizontalShift = 2 * kWeightBits - kIntermediateFracBits;  // 24
  static Acc border(const BlurSpec& spec, std::size_t channel) {
    return spec.border_value[channel];
  }
};

template <>
struct Arithmetic<std::uint16_t> {
  using Acc = std::uint64_t;  // a < 2^40, b < 2^48
  static constexpr int kTapBits = kWeightBits16;
  static constexpr int kVerticalShift = kWeightBits16 - kIntermediateFracBits;    // 16
  static constexpr int kHorizontalShift = kWeightBits16 + kIntermediateFracBits;  // 32
  static Acc border(const BlurSpec& spec, std::size_t channel) {
    if (spec.border_value16) return (*spec.border_value16)[channel];
    return Acc{spec.border_value[channel]} * 257;  // 0..255 scale -> 0..65535
  }
};

template <typename Sample>
class RowBlurrer {
  using A = Arithmetic<Sample>;
  using Acc = typename A::Acc;

 public:
  RowBlurrer(const Raster<Sample>& in, const BlurSpec& spec, const Weights& x, const Weights& y)
      : in_(in), spec_(spec), x_(x), y_(y) {
    const std::size_t row = in.row_samples();
    const std::size_t halo =
        static_cast<std::size_t>(x.radius()) * static_cast<std::size_t>(in.channels);
    vertical_.resize(row);
    extended_.resize(row + 2 * halo);
    horizontal_.resize(row);
    if (spec.border == Border::kConstant) {
      constant_row_.resize(row);
      for (std::size_t i = 0; i < row; ++i) {
        constant_row_[i] =
            static_cast<Sample>(A::border(spec, i % static_cast<std::size_t>(in.channels)));
      }
    }
  }

  void blur_row(int y, Sample* out) {
    vertical_pass(y);
    extend_row();
    horizontal_pass(out);
  }

 private:
  // m = (sum_j q_j * p(y + j - r) + round) >> vertical shift, for every sample of the row.
  void vertical_pass(int y) {
    std::fill(vertical_.begin(), vertical_.end(), Acc{0});
    const int r = y_.radius();
    const std::size_t n = vertical_.size();
    for (int j = 0; j < y_.size; ++j) {
      const Acc q = y_.taps[static_cast<std::size_t>(j)];
      const Sample* src = source_row(y + j - r);
      for (std::size_t i = 0; i < n; ++i) vertical_[i] += q * src[i];
    }
    constexpr Acc kRound = Acc{1} << (A::kVerticalShift - 1);
    for (auto& a : vertical_) a = (a + kRound) >> A::kVerticalShift;
  }

  const Sample* source_row(int y) const {
    const int src = border_index(spec_.border, y, in_.height);
    if (src < 0) return constant_row_.data();
    return in_.pixels.data() + static_cast<std::size_t>(src) * in_.row_samples();
  }

  // extended_ = the intermediate row with rx pixels of border on each side.
  void extend_row() {
    const int rx = x_.radius();
    const auto c = static_cast<std::size_t>(in_.channels);
    for (int x = -rx; x < in_.width + rx; ++x) {
      const int src = border_index(spec_.border, x, in_.width);
      Acc* dst = &extended_[static_cast<std::size_t>(x + rx) * c];
      for (std::size_t k = 0; k < c; ++k) {
        dst[k] = src < 0 ? A::border(spec_, k) << kIntermediateFracBits
                         : vertical_[static_cast<std::size_t>(src) * c + k];
      }
    }
  }

  // out = (sum_i q_i * m(x + i - r) + round) >> horizontal shift.
  void horizontal_pass(Sample* out) {
    std::fill(horizontal_.begin(), horizontal_.end(), Acc{0});
    const std::size_t n = horizontal_.size();
    const auto c = static_cast<std::size_t>(in_.channels);
    for (std::size_t i = 0; i < x_.taps.size(); ++i) {
      const Acc q = x_.taps[i];
      const Acc* src = extended_.data() + i * c;
      for (std::size_t k = 0; k < n; ++k) horizontal_[k] += q * src[k];
    }
    constexpr Acc kRound = Acc{1} << (A::kHorizontalShift - 1);
    for (std::size_t k = 0; k < n; ++k) {
      out[k] = static_cast<Sample>((horizontal_[k] + kRound) >> A::kHorizontalShift);
    }
  }

  const Raster<Sample>& in_;
  const BlurSpec& spec_;
  const Weights& x_;
  const Weights& y_;
  std::vector<Sample> constant_row_;
  std::vector<Acc> vertical_;
  std::vector<Acc> extended_;
  std::vector<Acc> horizontal_;
};

template <typename Sample>
Raster<Sample> blur(const Raster<Sample>& in, const BlurSpec& spec, const Weights& x,
                    const Weights& y, unsigned threads) {
  if (in.channels != spec.channels) {
    throw InternalError("blur_on_cpu: image has " + std::to_string(in.channels) +
                        " channels, spec has " + std::to_string(spec.channels));
  }
  Raster<Sample> out = make_raster<Sample>(in.width, in.height, in.channels);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, static_cast<unsigned>(in.height));

  // Scratch rows are allocated here, on the calling thread, so an allocation failure throws
  // to the caller instead of terminating inside a worker.
  std::vector<RowBlurrer<Sample>> blurrers;
  blurrers.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) blurrers.emplace_back(in, spec, x, y);

  // Thread t takes rows t, t + threads, ...: interleaving balances the border rows' extra work.
  auto work = [&](unsigned t) noexcept {
    for (auto row = static_cast<int>(t); row < in.height; row += static_cast<int>(threads)) {
      blurrers[t].blur_row(row,
                           out.pixels.data() + static_cast<std::size_t>(row) * out.row_samples());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& thread : pool) thread.join();
  return out;
}

// Rows [first, first + step, ...) of the floating-point blur: vertical pass into `column`, then
// horizontal pass, both in double.
void blur_float_rows(const ImageF& in, const BlurSpec& spec, const std::vector<double>& tx,
                     const std::vector<double>& ty, ImageF& out, int first, int step) {
  const auto c = static_cast<std::size_t>(in.channels);
  const std::size_t row = in.row_samples();
  std::vector<double> vertical(row);
  const int rx = spec.x.radius(), ry = spec.y.radius();
  for (int y = first; y < in.height; y += step) {
    std::fill(vertical.begin(), vertical.end(), 0.0);
    for (int j = -ry; j <= ry; ++j) {
      const int sy = border_index(spec.border, y + j, in.height);
      const double q = ty[static_cast<std::size_t>(j + ry)];
      for (std::size_t i = 0; i < row; ++i) {
        const double p = sy < 0 ? spec.border_value[i % c] / 255.0
                                : in.pixels[static_cast<std::size_t>(sy) * row + i];
        vertical[i] += q * p;
      }
    }
    float* dst = out.pixels.data() + static_cast<std::size_t>(y) * row;
    for (int x = 0; x < in.width; ++x) {
      for (std::size_t k = 0; k < c; ++k) {
        double sum = 0;
        for (int i = -rx; i <= rx; ++i) {
          const int sx = border_index(spec.border, x + i, in.width);
          const double m = sx < 0 ? spec.border_value[k] / 255.0
                                  : vertical[static_cast<std::size_t>(sx) * c + k];
          sum += tx[static_cast<std::size_t>(i + rx)] * m;
        }
        dst[static_cast<std::size_t>(x) * c + k] = static_cast<float>(sum);
      }
    }
  }
}

}  // namespace

ImageF blur_on_cpu(const ImageF& in, const BlurSpec& spec, unsigned threads) {
  if (in.channels != spec.channels) throw InternalError("blur_on_cpu: channel count mismatch");
  const std::vector<double> tx = gaussian_taps(spec.x.size, spec.x.sigma);
  const std::vector<double> ty = gaussian_taps(spec.y.size, spec.y.sigma);
  ImageF out = make_raster<float>(in.width, in.height, in.channels);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, static_cast<unsigned>(in.height));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    pool.emplace_back(blur_float_rows, std::cref(in), std::cref(spec), std::cref(tx), std::cref(ty),
                      std::ref(out), static_cast<int>(t), static_cast<int>(threads));
  }
  blur_float_rows(in, spec, tx, ty, out, 0, static_cast<int>(threads));
  for (auto& thread : pool) thread.join();
  return out;
}

Image blur_on_cpu(const Image& in, const BlurSpec& spec, unsigned threads) {
  return blur(in, spec, spec.x, spec.y, threads);
}

Image16 blur_on_cpu(const Image16& in, const BlurSpec& spec, unsigned threads) {
  const Weights x = make_weights(spec.x.size, spec.x.sigma, kWeightBits16);
  const Weights y = make_weights(spec.y.size, spec.y.sigma, kWeightBits16);
  return blur(in, spec, x, y, threads);
}

}  // namespace gpublur
