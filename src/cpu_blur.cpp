// cpu_blur.cpp — separable integer blur, one output row at a time, rows split across threads.
// The inner loops run over contiguous bytes with the tap loop outside, so they vectorise.
#include "cpu_blur.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "errors.hpp"

namespace gpublur {
namespace {

constexpr std::uint32_t kVerticalRound = 1u << (kIntermediateFracBits - 1);
constexpr int kVerticalShift = kIntermediateFracBits;
constexpr int kHorizontalShift = 2 * kWeightBits - kIntermediateFracBits;
constexpr std::uint32_t kHorizontalRound = 1u << (kHorizontalShift - 1);

class RowBlurrer {
 public:
  RowBlurrer(const Image& in, const BlurSpec& spec) : in_(in), spec_(spec) {
    const std::size_t row = in.row_bytes();
    const std::size_t halo =
        static_cast<std::size_t>(spec.x.radius()) * static_cast<std::size_t>(in.channels);
    vertical_.resize(row);
    extended_.resize(row + 2 * halo);
    horizontal_.resize(row);
    if (spec.border == Border::kConstant) {
      constant_row_.resize(row);
      for (std::size_t i = 0; i < row; ++i)
        constant_row_[i] = spec.border_value[i % static_cast<std::size_t>(in.channels)];
    }
  }

  void blur_row(int y, std::uint8_t* out) {
    vertical_pass(y);
    extend_row();
    horizontal_pass(out);
  }

 private:
  // m = (sum_j q_j * p(y + j - r) + 2^7) >> 8 for every byte of the row; a < 2^24.
  void vertical_pass(int y) {
    std::fill(vertical_.begin(), vertical_.end(), 0u);
    const int r = spec_.y.radius();
    const std::size_t n = vertical_.size();
    for (int j = 0; j < spec_.y.size; ++j) {
      const std::uint32_t q = spec_.y.taps[static_cast<std::size_t>(j)];
      const std::uint8_t* src = source_row(y + j - r);
      for (std::size_t i = 0; i < n; ++i) vertical_[i] += q * src[i];
    }
    for (auto& a : vertical_) a = (a + kVerticalRound) >> kVerticalShift;
  }

  const std::uint8_t* source_row(int y) const {
    const int src = border_index(spec_.border, y, in_.height);
    if (src < 0) return constant_row_.data();
    return in_.pixels.data() + static_cast<std::size_t>(src) * in_.row_bytes();
  }

  // extended_ = the intermediate row with rx pixels of border on each side.
  void extend_row() {
    const int rx = spec_.x.radius();
    const auto c = static_cast<std::size_t>(in_.channels);
    for (int x = -rx; x < in_.width + rx; ++x) {
      const int src = border_index(spec_.border, x, in_.width);
      std::uint32_t* dst = &extended_[static_cast<std::size_t>(x + rx) * c];
      for (std::size_t k = 0; k < c; ++k) {
        dst[k] = src < 0 ? std::uint32_t{spec_.border_value[k]} << kIntermediateFracBits
                         : vertical_[static_cast<std::size_t>(src) * c + k];
      }
    }
  }

  // out = (sum_i q_i * m(x + i - r) + 2^23) >> 24; b < 2^32 (weights.hpp).
  void horizontal_pass(std::uint8_t* out) {
    std::fill(horizontal_.begin(), horizontal_.end(), 0u);
    const std::size_t n = horizontal_.size();
    const auto c = static_cast<std::size_t>(in_.channels);
    for (std::size_t i = 0; i < spec_.x.taps.size(); ++i) {
      const std::uint32_t q = spec_.x.taps[i];
      const std::uint32_t* src = extended_.data() + i * c;
      for (std::size_t k = 0; k < n; ++k) horizontal_[k] += q * src[k];
    }
    for (std::size_t k = 0; k < n; ++k) {
      out[k] = static_cast<std::uint8_t>((horizontal_[k] + kHorizontalRound) >> kHorizontalShift);
    }
  }

  const Image& in_;
  const BlurSpec& spec_;
  std::vector<std::uint8_t> constant_row_;
  std::vector<std::uint32_t> vertical_;
  std::vector<std::uint32_t> extended_;
  std::vector<std::uint32_t> horizontal_;
};

}  // namespace

Image blur_on_cpu(const Image& in, const BlurSpec& spec, unsigned threads) {
  if (in.channels != spec.channels) {
    throw InternalError("blur_on_cpu: image has " + std::to_string(in.channels) +
                        " channels, spec has " + std::to_string(spec.channels));
  }
  Image out = make_image(in.width, in.height, in.channels);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, static_cast<unsigned>(in.height));

  // Scratch rows are allocated here, on the calling thread, so an allocation failure throws
  // to the caller instead of terminating inside a worker.
  std::vector<RowBlurrer> blurrers;
  blurrers.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) blurrers.emplace_back(in, spec);

  // Thread t takes rows t, t + threads, ...: interleaving balances the border rows' extra work.
  auto work = [&](unsigned t) noexcept {
    for (auto y = static_cast<int>(t); y < in.height; y += static_cast<int>(threads)) {
      blurrers[t].blur_row(y, out.pixels.data() + static_cast<std::size_t>(y) * out.row_bytes());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& thread : pool) thread.join();
  return out;
}

}  // namespace gpublur
