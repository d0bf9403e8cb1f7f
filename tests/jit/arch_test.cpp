// arch_test.cpp — architecture names and compile planning (no NVRTC needed).
#include <catch2/catch.hpp>

#include "base/errors.hpp"
#include "jit/nvrtc.hpp"

using namespace gpublur;

TEST_CASE("architecture names", "[arch]") {
  CHECK(parse_arch("sm_90")->number() == 90);
  CHECK(parse_arch("sm_120")->major == 12);
  CHECK(parse_arch("compute_86")->minor == 6);
  CHECK(parse_arch("sm_90")->compute() == "compute_90");
  CHECK_FALSE(parse_arch("sm90"));
  CHECK_FALSE(parse_arch("sm_9"));
  CHECK_FALSE(parse_arch("sm_9x"));
  CHECK_FALSE(parse_arch("gfx90a"));
}

TEST_CASE("compile planning against NVRTC's list", "[arch]") {
  NvrtcVersion nvrtc{13, 0, {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121}};
  SECTION("a supported GPU gets what was asked for") {
    const CompilePlan plan = plan_compile(Arch{9, 0}, Target::kCubin, nvrtc);
    CHECK(plan.arch.number() == 90);
    CHECK(plan.target == Target::kCubin);
    CHECK(plan.note.empty());
  }
  SECTION("a GPU newer than NVRTC gets PTX for the newest architecture, and a note") {
    const CompilePlan plan = plan_compile(Arch{13, 0}, Target::kCubin, nvrtc);
    CHECK(plan.arch.number() == 121);
    CHECK(plan.target == Target::kPtx);
    CHECK_THAT(plan.note, Catch::Contains("sm_130") && Catch::Contains("compute_121"));
  }
  SECTION("an architecture older than NVRTC's oldest is a usage error") {
    CHECK_THROWS_AS(plan_compile(Arch{6, 1}, Target::kCubin, nvrtc), UsageError);
  }
}
