// codegen_test.cpp — generated source is deterministic and pinned by golden files.
// Regenerate after an intended change with: GPUBLUR_UPDATE_GOLDENS=1 ./gpublur_tests "[codegen]"
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "codegen.hpp"
#include "embedded_kernels.hpp"
#include "reference_blur.hpp"

using namespace gpublur;

namespace {

std::string read_golden(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(GPUBLUR_GOLDEN_DIR) + "/" + name;
  if (std::getenv("GPUBLUR_UPDATE_GOLDENS")) {
    std::ofstream(path, std::ios::binary) << actual;
    WARN("updated " << path);
  }
  const std::string expected = read_golden(path);
  REQUIRE_FALSE(expected.empty());
  CHECK(actual == expected);
}

}  // namespace

TEST_CASE("generated source matches the golden files", "[codegen]") {
  check_golden("blur_7x7_c3_clamp.cu", generate_kernel(test::make_test_spec(7, 1.5, 3)).source);
  check_golden(
      "blur_3x3_c4_constant.cu",
      generate_kernel(test::make_test_spec(3, 0.8, 4, Border::kConstant, {1, 2, 3, 255})).source);
}

TEST_CASE("the template is appended unchanged after the prelude", "[codegen]") {
  const GeneratedKernel k = generate_kernel(test::make_test_spec(5, 1.0, 1, Border::kWrap));
  REQUIRE(k.source.size() > kBlurCu.size());
  CHECK(k.source.compare(k.source.size() - kBlurCu.size(), kBlurCu.size(), kBlurCu) == 0);
  CHECK_THAT(k.source, Catch::Contains("#define GB_BORDER 3\n"));
  CHECK_THAT(k.source, Catch::Contains("#define GB_CHANNELS 1\n"));
  CHECK(k.entry == "gb_blur_kernel");
  CHECK(k.channels == 1);
}

TEST_CASE("same spec, same bytes", "[codegen]") {
  const BlurSpec spec = test::make_test_spec(31, 5.0, 3, Border::kReflect101);
  CHECK(generate_kernel(spec).source == generate_kernel(spec).source);
}

TEST_CASE("schedules fit in shared memory for every kernel size", "[codegen]") {
  for (int channels = 1; channels <= 4; ++channels) {
    for (int size : {1, 7, 31, 255, 1023, kMaxKernelSize}) {
      CAPTURE(channels, size);
      const KernelSchedule s = choose_schedule(test::make_test_spec(size, 2.0, channels));
      CHECK(s.tile_h >= 1);
      CHECK(s.shared_bytes <= 48 * 1024);
      CHECK(s.shared_bytes == s.tile_h * (s.tile_w + 2 * (size / 2) * channels) * 2);
    }
  }
}
