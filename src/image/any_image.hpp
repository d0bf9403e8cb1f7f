// any_image.hpp — an image of whichever depth it came in: one of the 8-bit, 16-bit and
// floating-point rasters, with what every depth answers alike (shape, sample format, bytes);
// code that differs by depth visits it. A value: thread-safe as its raster is.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <variant>

#include "image/image.hpp"

namespace gpublur {

class AnyImage {
 public:
  AnyImage() = default;  // an 8-bit image of no pixels
  /// Any raster is an AnyImage: `any = make_image(...)`.
  template <typename Sample>
  AnyImage(Raster<Sample> raster) : raster_(std::move(raster)) {}  // NOLINT: implicit on purpose

  SampleFormat sample_format() const { return static_cast<SampleFormat>(raster_.index()); }
  /// 8, 16 or 32 (float): bits a sample.
  int bits() const { return 8 * static_cast<int>(sample_bytes(sample_format())); }
  int width() const {
    return std::visit([](const auto& r) { return r.width; }, raster_);
  }
  int height() const {
    return std::visit([](const auto& r) { return r.height; }, raster_);
  }
  int channels() const {
    return std::visit([](const auto& r) { return r.channels; }, raster_);
  }
  std::size_t row_bytes() const {
    return std::visit([](const auto& r) { return r.row_bytes(); }, raster_);
  }
  /// Row bytes times height, from the shape (whether the raster holds its samples yet or not).
  std::size_t byte_count() const {
    return std::visit([](const auto& r) { return r.byte_count(); }, raster_);
  }
  /// The first sample; nullptr where the raster holds none (its samples are elsewhere, e.g. to be
  /// decoded on the GPU).
  const void* data() const {
    return std::visit(
        [](const auto& r) -> const void* { return r.pixels.empty() ? nullptr : r.pixels.data(); },
        raster_);
  }
  void* data() {
    return std::visit([](auto& r) -> void* { return r.pixels.empty() ? nullptr : r.pixels.data(); },
                      raster_);
  }

  /// Whether it is a `R` (Image, Image16 or ImageF).
  template <typename R>
  bool holds() const {
    return std::holds_alternative<R>(raster_);
  }
  /// The raster as the `R` it is; std::bad_variant_access for another.
  template <typename R>
  R& get() {
    return std::get<R>(raster_);
  }
  template <typename R>
  const R& get() const {
    return std::get<R>(raster_);
  }

  /// The same depth, shape and samples.
  friend bool operator==(const AnyImage& a, const AnyImage& b) {
    const auto same = [&b](const auto& r) {
      const auto& s = std::get<std::decay_t<decltype(r)>>(b.raster_);
      return r.width == s.width && r.height == s.height && r.channels == s.channels &&
             r.pixels == s.pixels;
    };
    return a.raster_.index() == b.raster_.index() && std::visit(same, a.raster_);
  }
  friend bool operator!=(const AnyImage& a, const AnyImage& b) { return !(a == b); }

  /// `f(raster)`, `f` called with the Image, Image16 or ImageF it holds.
  template <typename F>
  decltype(auto) visit(F&& f) {
    return std::visit(std::forward<F>(f), raster_);
  }
  template <typename F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), raster_);
  }

 private:
  // In SampleFormat's order: sample_format() is the index.
  using Rasters = std::variant<Image, Image16, ImageF>;
  static_assert(std::is_same_v<std::variant_alternative_t<1, Rasters>, Image16> &&
                    static_cast<int>(SampleFormat::k16) == 1 &&
                    static_cast<int>(SampleFormat::kFloat) == 2,
                "AnyImage's rasters follow SampleFormat");
  Rasters raster_;
};

}  // namespace gpublur
