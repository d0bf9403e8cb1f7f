// any_image_test.cpp — one image type for every depth: each raster answers the same questions
// through it, and a visit reaches the raster it holds.
#include <catch2/catch.hpp>

#include <cstdint>
#include <type_traits>
#include <variant>

#include "image/any_image.hpp"

using namespace gpublur;

TEST_CASE("an AnyImage answers for the raster it holds, at every depth", "[image]") {
  const AnyImage empty;
  CHECK(empty.sample_format() == SampleFormat::k8);
  CHECK(empty.data() == nullptr);
  struct Case {
    AnyImage image;
    SampleFormat format;
    int bits;
  };
  for (const Case& c : {Case{make_raster<std::uint8_t>(5, 3, 4), SampleFormat::k8, 8},
                        Case{make_raster<std::uint16_t>(5, 3, 4), SampleFormat::k16, 16},
                        Case{make_raster<float>(5, 3, 4), SampleFormat::kFloat, 32}}) {
    CAPTURE(c.bits);
    CHECK(c.image.sample_format() == c.format);
    CHECK(c.image.bits() == c.bits);
    CHECK(sample_bytes(c.format) * 8 == static_cast<std::size_t>(c.bits));
    CHECK(c.image.width() == 5);
    CHECK(c.image.height() == 3);
    CHECK(c.image.channels() == 4);
    CHECK(c.image.row_bytes() == 5 * 4 * sample_bytes(c.format));
    CHECK(c.image.byte_count() == 3 * c.image.row_bytes());
    CHECK(c.image.data() != nullptr);
    const SampleFormat visited = c.image.visit([](const auto& raster) {
      return sample_format_of<typename std::decay_t<decltype(raster)>::SampleType>();
    });
    CHECK(visited == c.format);
  }
}

TEST_CASE("an AnyImage gives its raster back as the type it is, and only that", "[image]") {
  AnyImage image = make_raster<std::uint16_t>(2, 2, 1);
  REQUIRE(image.holds<Image16>());
  CHECK_FALSE(image.holds<Image>());
  image.get<Image16>().pixels[3] = 65535;
  CHECK(static_cast<const std::uint16_t*>(image.data())[3] == 65535);
  CHECK_THROWS_AS(image.get<Image>(), std::bad_variant_access);
  // A shape without samples (a JPEG the GPU decodes): its bytes are known, its data not yet.
  image = Image{640, 480, 3, {}};
  CHECK(image.holds<Image>());
  CHECK(image.byte_count() == 640u * 480u * 3u);
  CHECK(image.data() == nullptr);
}

TEST_CASE("AnyImages are equal only in depth, shape and every sample", "[image]") {
  const AnyImage a = make_raster<std::uint8_t>(3, 2, 1);
  AnyImage b = a;
  CHECK(a == b);
  b.get<Image>().pixels[5] = 1;
  CHECK(a != b);
  CHECK(a != AnyImage(make_raster<std::uint16_t>(3, 2, 1)));  // the same zeros, 16 bits
  CHECK(a != AnyImage(make_raster<std::uint8_t>(2, 3, 1)));   // the same samples, another shape
  CHECK(a != AnyImage(make_raster<std::uint8_t>(1, 2, 3)));   // ... or channel count
}
