// codegen_test.cpp — generated source is deterministic and pinned by golden files.
// The goldens hold the generated preludes; the templates after them are checked to be the
// embedded files unchanged. Regenerate after an intended change with:
//   GPUBLUR_UPDATE_GOLDENS=1 ./gpublur_tests "[codegen]"
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/errors.hpp"
#include "codegen/codegen.hpp"
#include "codegen/embedded_kernels.hpp"
#include "gpu/blur_launch.hpp"
#include "ops/blur_parameters.hpp"
#include "support/reference_blur.hpp"

using namespace gpublur;

namespace {

std::string read_golden(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The generated part of a kernel's source: everything before the first of kernels/' files, which
// must follow unchanged, as the next test checks.
std::string prelude_of(const std::string& source) {
  const auto end = source.find("#line 1 \"");
  REQUIRE(end != std::string::npos);
  return source.substr(0, end);
}

void check_golden(const std::string& name, const std::string& source) {
  const std::string actual = prelude_of(source);
  const std::string path = std::string(GPUBLUR_GOLDEN_DIR) + "/" + name;
  if (std::getenv("GPUBLUR_UPDATE_GOLDENS")) {
    std::ofstream(path, std::ios::binary) << actual;
    WARN("updated " << path);
  }
  const std::string expected = read_golden(path);
  REQUIRE_FALSE(expected.empty());
  CHECK(actual == expected);
}

// The edge detector, and a 7x7 unsharp mask, as the command line makes their specs.
FilterSpec edge_matrix_spec(int channels, Border border) {
  BlurParameters p;
  p.operation = Operation::kMatrix;
  p.matrix = parse_matrix_text("-1 -1 -1; -1 8 -1; -1 -1 -1");
  p.border = border;
  return make_blur_spec(p, channels);
}

FilterSpec matrix_spec(const std::string& text, int channels, Border border = Border::kClamp) {
  BlurParameters p;
  p.operation = Operation::kMatrix;
  p.matrix = parse_matrix_text(text);
  p.border = border;
  p.border_value = {10, 20, 30, 40};
  return make_blur_spec(p, channels);
}

FilterSpec unsharp_spec(int channels) {
  BlurParameters p = test::make_test_parameters(7, 1.5);
  p.operation = Operation::kUnsharp;
  p.unsharp = {1.5, 2};
  return make_blur_spec(p, channels);
}

}  // namespace

TEST_CASE("generated source matches the golden files", "[codegen]") {
  check_golden("mma_7x7_c3_clamp.cu", generate_kernel(test::make_test_spec(7, 1.5, 3)).source);
  check_golden("tiled_7x7_c3_clamp.cu",
               generate_kernel(test::make_test_spec(7, 1.5, 3), KernelVariant::kTiled).source);
  check_golden("wide_3x3_c4_constant.cu",
               generate_kernel(test::make_test_spec(3, 0.8, 4, Border::kConstant, {1, 2, 3, 255}),
                               KernelVariant::kWide)
                   .source);
  check_golden(
      "naive_5x5_c1_wrap.cu",
      generate_kernel(test::make_test_spec(5, 1.0, 1, Border::kWrap), KernelVariant::kNaive)
          .source);
  // The operations beyond the Gaussian: the matrix and the finishing numbers baked in.
  check_golden("dense_matrix_3x3_c4_reflect101.cu",
               generate_kernel(edge_matrix_spec(4, Border::kReflect101), KernelVariant::kDense)
                   .source);
  check_golden(
      "dp4a_matrix_3x3_c4_reflect101.cu",
      generate_kernel(edge_matrix_spec(4, Border::kReflect101), KernelVariant::kDp4a).source);
  check_golden(
      "dense-mma_matrix_3x3_c4_reflect101.cu",
      generate_kernel(edge_matrix_spec(4, Border::kReflect101), KernelVariant::kDenseMma).source);
  check_golden("general_unsharp_7x7_c3_16bit_clamp.cu",
               generate_kernel(unsharp_spec(3), KernelVariant::kGeneral, SampleFormat::k16).source);
  check_golden("separable_unsharp_7x7_c3_clamp.cu",
               generate_kernel(unsharp_spec(3), KernelVariant::kSeparable).source);
  check_golden("mma_unsharp_7x7_c4_clamp.cu", generate_kernel(unsharp_spec(4)).source);
  check_golden("mma_matrix_sobel_3x3_c4_constant.cu",
               generate_kernel(matrix_spec("-1 0 1; -2 0 2; -1 0 1", 4, Border::kConstant)).source);
}

TEST_CASE("an 8-bit matrix of rank one takes the tensor cores where its numbers fit", "[codegen]") {
  const auto schedule = [](const std::string& text, SampleFormat format = SampleFormat::k8,
                           int arch = 90) {
    return choose_schedule(matrix_spec(text, 3), KernelVariant::kAuto, format, arch);
  };
  // Sobel: column 1 2 1 down, row -1 0 1 across (signed: s8 high bytes).
  const KernelSchedule sobel = schedule("-1 0 1; -2 0 2; -1 0 1");
  REQUIRE(sobel.variant == KernelVariant::kMma);
  CHECK(sobel.mma->finish == MmaFinish::kMatrix);
  CHECK(sobel.mma->matrix->column == std::vector<std::int32_t>{1, 2, 1});
  CHECK(sobel.mma->matrix->row == std::vector<std::int32_t>{-1, 0, 1});
  // The column's common factor goes into the row: the intermediate as small as it can be.
  const KernelSchedule twos = schedule("4 4 4; 4 4 4; 4 4 4");
  REQUIRE(twos.mma);
  CHECK(twos.mma->matrix->column == std::vector<std::int32_t>{1, 1, 1});
  CHECK(twos.mma->matrix->row == std::vector<std::int32_t>{4, 4, 4});
  // The intermediate's 16 bits: a column of sum 257 fits (255 x 257 = 65535), 258 does not; with
  // a negative value each part may reach 128 (255 x 128 < 2^15), 129 not. (Columns without a
  // common factor, which would move into the row.)
  CHECK(schedule("200; 57; 0").variant == KernelVariant::kMma);
  CHECK(schedule("199; 59; 0").variant == KernelVariant::kSeparable);
  CHECK(schedule("100; 28; -128").variant == KernelVariant::kMma);
  CHECK(schedule("100; 29; -128").variant == KernelVariant::kSeparable);
  CHECK(schedule("100; 28; -129").variant == KernelVariant::kSeparable);
  // Row taps of 16 bits: 65535 unsigned, -32768 .. 32767 with a negative one.
  CHECK(schedule("65535 1 0").variant == KernelVariant::kMma);
  CHECK(schedule("65536 1 0").variant == KernelVariant::kSeparable);
  CHECK(schedule("32767 -32768 2").variant == KernelVariant::kMma);
  CHECK(schedule("32768 -1 0").variant == KernelVariant::kSeparable);
  // Not on 16-bit or HDR samples, nor before sm_80.
  CHECK(schedule("1 2 1", SampleFormat::k16).variant == KernelVariant::kSeparable);
  CHECK(schedule("1 2 1", SampleFormat::kFloat).variant == KernelVariant::kSeparable);
  CHECK(schedule("1 2 1", SampleFormat::k8, 75).variant == KernelVariant::kSeparable);
  CHECK_THROWS_WITH(
      choose_schedule(matrix_spec("199; 59; 0", 3), KernelVariant::kMma, SampleFormat::k8, 90),
      Catch::Contains("--kernel mma runs a matrix of rank one"));
  // Its prelude: the factors as signed literals, exact sums, Matrix8's numbers.
  const GeneratedKernel k = generate_kernel(matrix_spec("-1 0 1; -2 0 2; -1 0 1", 3));
  CHECK_THAT(k.source, Catch::Contains("#define GB_EXACT_SUMS 1\n"));
  CHECK_THAT(k.source, Catch::Contains("#define GB_TAPS_X {-1, 0, 1}\n"));
  CHECK_THAT(k.source, Catch::Contains("#define GB_TAPS_Y {1, 2, 1}\n"));
  CHECK_THAT(k.source, Catch::Contains("#define GB_FINISH_NUMBERS {"));
  CHECK(k.name == "gpublur_mma_matrix_3x3_c3.cu");
}

TEST_CASE("the dense kernel's prelude holds the matrix, its file follows unchanged", "[codegen]") {
  const GeneratedKernel k = generate_kernel(edge_matrix_spec(3, Border::kClamp), KernelVariant::kDense);
  CHECK(k.schedule.variant == KernelVariant::kDense);
  CHECK(k.entry == "gb_matrix_kernel");
  CHECK(k.horizontal_entry.empty());
  CHECK_THAT(k.source, Catch::Contains("#define GB_MATRIX {-1, -1, -1, -1, 8, -1, -1, -1, -1}\n"));
  CHECK_THAT(k.source, Catch::Contains("#define GB_POLICY Matrix8\n"));
  CHECK_THAT(k.source, Catch::Contains("#define GB_RADIUS_X 1\n"));
  CHECK(k.source.substr(k.source.size() - kMatrixDenseCu.size()) == kMatrixDenseCu);
  CHECK(blur_scratch_bytes(k, 100, 100) == 0);
}

TEST_CASE("a dense 8-bit matrix takes the tensor cores (byte weights) or dp4a, others dense",
          "[codegen]") {
  const auto variant = [](const std::string& text, SampleFormat format = SampleFormat::k8,
                          int arch = 90) {
    return choose_schedule(matrix_spec(text, 3), KernelVariant::kAuto, format, arch).variant;
  };
  const KernelSchedule edges = choose_schedule(edge_matrix_spec(3, Border::kClamp));
  CHECK(edges.variant == KernelVariant::kDenseMma);
  CHECK(edges.tile_w == 512);  // bytes
  CHECK(edges.tile_h == 16);   // a tile of 16 rows a warp
  CHECK(edges.block_threads == 128);
  const KernelSchedule bytes =
      choose_schedule(edge_matrix_spec(3, Border::kClamp), KernelVariant::kDp4a);
  CHECK(bytes.variant == KernelVariant::kDp4a);
  CHECK(bytes.tile_w == 128);  // pixels
  CHECK(bytes.tile_h == 32);
  // The tensor cores take weights as the 8-bit arithmetic scales them to signed bytes, -128 to
  // 127; dp4a any (a dp4a a byte plane of the widest).
  CHECK(variant("127 0 0; 0 -128 0; 0 0 1") == KernelVariant::kDenseMma);
  CHECK(variant("128 0 0; 0 -128 0; 0 0 1") == KernelVariant::kDp4a);
  CHECK(variant("127 0 0; 0 -129 0; 0 0 1") == KernelVariant::kDp4a);
  CHECK(variant("12.7 0 0; 0 -1 0; 0 0 1") == KernelVariant::kDenseMma);  // 127, -10, 10
  CHECK(variant("12.8 0 0; 0 -1 0; 0 0 1") == KernelVariant::kDp4a);      // 128
  CHECK(variant("8000000 0 0; 0 -1 0; 0 0 1") == KernelVariant::kDp4a);
  // 16-bit and HDR samples, and GPUs before dp4a (sm_61), take the dense kernel; before the
  // integer tensor cores (sm_80), dp4a.
  CHECK(variant("1 2 0; 3 5 0; 0 0 0", SampleFormat::k16) == KernelVariant::kDense);
  CHECK(variant("1 2 0; 3 5 0; 0 0 0", SampleFormat::kFloat) == KernelVariant::kDense);
  CHECK(variant("1 2 0; 3 5 0; 0 0 0", SampleFormat::k8, 60) == KernelVariant::kDense);
  CHECK(variant("1 2 0; 3 5 0; 0 0 0", SampleFormat::k8, 61) == KernelVariant::kDp4a);
  CHECK(variant("1 2 0; 3 5 0; 0 0 0", SampleFormat::k8, 75) == KernelVariant::kDp4a);
  CHECK(variant("1 2 0; 3 5 0; 0 0 0", SampleFormat::k8, 80) == KernelVariant::kDenseMma);
  // dp4a up to 31x31 each way, every dense matrix; the tensor cores up to 9 rows and a reach of
  // 12 bytes each side (radius 4 on three channels).
  const auto zeros = [](int width, int height) {
    std::string text;
    for (int j = 0; j < height; ++j) {
      for (int i = 0; i < width; ++i) text += (i == 0 && j == 0) ? "2 " : i == j ? "1 " : "0 ";
      text += ";";
    }
    return text;
  };
  CHECK(variant(zeros(9, 9)) == KernelVariant::kDenseMma);
  CHECK(variant(zeros(11, 9)) == KernelVariant::kDp4a);
  CHECK(variant(zeros(9, 11)) == KernelVariant::kDp4a);
  CHECK(variant(zeros(15, 15)) == KernelVariant::kDp4a);
  CHECK(variant(zeros(17, 3)) == KernelVariant::kDp4a);
  CHECK(variant(zeros(3, 17)) == KernelVariant::kDp4a);
  CHECK(variant(zeros(31, 31)) == KernelVariant::kDp4a);
  CHECK(choose_schedule(matrix_spec(zeros(31, 31), 4)).variant == KernelVariant::kDp4a);
  CHECK(choose_schedule(matrix_spec(zeros(13, 3), 1)).variant == KernelVariant::kDenseMma);
  // Auto takes them on gray and RGB, and RGBA 5 wide; on two channels and other RGBA, dp4a
  // (measured as fast or faster there), though the tensor cores take 7 wide on RGBA when asked.
  CHECK(choose_schedule(matrix_spec(zeros(7, 3), 4)).variant == KernelVariant::kDp4a);
  CHECK(choose_schedule(matrix_spec(zeros(3, 3), 4)).variant == KernelVariant::kDp4a);
  CHECK(choose_schedule(matrix_spec(zeros(5, 5), 4)).variant == KernelVariant::kDenseMma);
  CHECK(choose_schedule(matrix_spec(zeros(5, 9), 4)).variant == KernelVariant::kDenseMma);
  CHECK(choose_schedule(matrix_spec(zeros(5, 5), 2)).variant == KernelVariant::kDp4a);
  CHECK(choose_schedule(matrix_spec(zeros(7, 3), 4), KernelVariant::kDenseMma).variant ==
        KernelVariant::kDenseMma);
  CHECK_FALSE(find_schedule(matrix_spec(zeros(9, 3), 4), KernelVariant::kDenseMma));
  // Their sources: the dense kernel's prelude, their own files; asked for where they cannot
  // run, a usage error that says their bounds and what can.
  const GeneratedKernel k = generate_kernel(edge_matrix_spec(3, Border::kClamp));
  CHECK(k.entry == "gb_matrix_kernel");
  CHECK(k.name == "gpublur_dense-mma_matrix_3x3_c3.cu");
  CHECK_THAT(k.source, Catch::Contains("#define GB_MATRIX {-1, -1, -1, -1, 8, -1, -1, -1, -1}\n"));
  CHECK(k.source.substr(k.source.size() - kMatrixMmaCu.size()) == kMatrixMmaCu);
  const GeneratedKernel d =
      generate_kernel(edge_matrix_spec(3, Border::kClamp), KernelVariant::kDp4a);
  CHECK(d.entry == "gb_matrix_kernel");
  CHECK(d.name == "gpublur_dp4a_matrix_3x3_c3.cu");
  CHECK(d.source.substr(d.source.size() - kMatrixDp4aCu.size()) == kMatrixDp4aCu);
  CHECK_THROWS_WITH(choose_schedule(matrix_spec("1 2 0; 3 5 0; 0 0 0", 3), KernelVariant::kDp4a,
                                    SampleFormat::k16),
                    Catch::Contains("on 8-bit images") && Catch::Contains("--kernel dense"));
  CHECK_THROWS_WITH(
      choose_schedule(matrix_spec("128 0 0; 0 -128 0; 0 0 1", 3), KernelVariant::kDenseMma),
      Catch::Contains("from -128 to 127") && Catch::Contains("--kernel dp4a"));
  CHECK_THROWS_WITH(choose_schedule(matrix_spec("1 2 1", 3), KernelVariant::kDp4a),
                    Catch::Contains("--kernel dp4a runs a convolution matrix not of rank one") &&
                        Catch::Contains("--kernel auto"));
  CHECK_THROWS_WITH(choose_schedule(test::make_test_spec(7, 1.5, 3), KernelVariant::kDp4a),
                    Catch::Contains("--kernel dp4a"));
  CHECK_THROWS_WITH(choose_schedule(matrix_spec(zeros(11, 3), 3), KernelVariant::kDenseMma),
                    Catch::Contains("--kernel dense-mma runs") && Catch::Contains("at most 12") &&
                        Catch::Contains("--kernel dp4a or dense"));
  CHECK_THROWS_WITH(choose_schedule(matrix_spec("1 2 0; 3 5 0; 0 0 0", 3), KernelVariant::kDenseMma,
                                    SampleFormat::k8, 75),
                    Catch::Contains("sm_80"));
  CHECK_THROWS_WITH(choose_schedule(test::make_test_spec(7, 1.5, 3), KernelVariant::kDenseMma),
                    Catch::Contains("--kernel auto"));
}

TEST_CASE("each operation's kernel is its own: names and sources differ", "[codegen]") {
  const GeneratedKernel gaussian = generate_kernel(test::make_test_spec(7, 1.5, 3),
                                                   KernelVariant::kGeneral);
  const GeneratedKernel unsharp = generate_kernel(unsharp_spec(3));
  const GeneratedKernel matrix = generate_kernel(edge_matrix_spec(3, Border::kClamp));
  CHECK(gaussian.name != unsharp.name);
  CHECK(unsharp.name != matrix.name);
  CHECK_THAT(prelude_of(unsharp.source), Catch::Contains("#define GB_FINISH_NUMBERS {"));
  CHECK_THAT(prelude_of(gaussian.source), !Catch::Contains("GB_FINISH_NUMBERS"));
  // The 8-bit unsharp mask: the tensor cores with its finish; 16-bit: the separable tile.
  CHECK(unsharp.schedule.variant == KernelVariant::kMma);
  CHECK(unsharp.schedule.mma->finish == MmaFinish::kUnsharp);
  CHECK(unsharp.entry == "gb_blur_kernel");
  CHECK_FALSE(gaussian.schedule.mma);
  CHECK(generate_kernel(test::make_test_spec(7, 1.5, 3)).schedule.mma->finish ==
        MmaFinish::kGaussian);
  CHECK(generate_kernel(unsharp_spec(3), KernelVariant::kAuto, SampleFormat::k16).schedule.variant ==
        KernelVariant::kSeparable);
  CHECK(generate_kernel(unsharp_spec(3), KernelVariant::kSeparable).entry == "gb_separable_kernel");
  CHECK(generate_kernel(unsharp_spec(3), KernelVariant::kGeneral).schedule.variant ==
        KernelVariant::kGeneral);
  // Past the tensor cores' limits (sm_75), the separable tile.
  CHECK(generate_kernel(unsharp_spec(3), KernelVariant::kAuto, SampleFormat::k8, 75).schedule.variant ==
        KernelVariant::kSeparable);
  CHECK_THROWS_WITH(generate_kernel(unsharp_spec(3), KernelVariant::kMma, SampleFormat::k8, 75),
                    Catch::Contains("--kernel mma runs the unsharp mask of 8-bit images"));
  // Asked for a kernel that cannot run it: a usage error naming the one that can.
  CHECK_THROWS_WITH(generate_kernel(edge_matrix_spec(3, Border::kClamp), KernelVariant::kMma),
                    Catch::Contains("--kernel dense"));
  CHECK_THROWS_WITH(generate_kernel(unsharp_spec(3), KernelVariant::kDense),
                    Catch::Contains("--kernel auto"));
  CHECK_THROWS_WITH(generate_kernel(test::make_test_spec(7, 1.5, 3), KernelVariant::kSeparable),
                    Catch::Contains("the Gaussian takes the others"));
}

TEST_CASE("the kernel's files follow the prelude unchanged", "[codegen]") {
  const auto [variant, own_file] =
      GENERATE(table<KernelVariant, std::string_view>({{KernelVariant::kMma, kBlurMmaCu},
                                                       {KernelVariant::kTiled, kBlurTiledCu},
                                                       {KernelVariant::kWide, kBlurWideCu},
                                                       {KernelVariant::kNaive, kNaiveBlurCu},
                                                       {KernelVariant::kGeneral, kBlurGeneralCu}}));
  const GeneratedKernel k =
      generate_kernel(test::make_test_spec(5, 1.0, 1, Border::kWrap), variant);
  std::string files;
  for (const KernelFile& file : kernel_files(k.schedule)) {
    files += "#line 1 \"" + std::string(file.name) + "\"\n" + std::string(file.text);
  }
  CHECK(k.source == prelude_of(k.source) + files);
  // The shared headers first; the variant's own file last.
  const std::vector<KernelFile> list = kernel_files(k.schedule);
  REQUIRE(list.size() >= 4);
  CHECK(list[0].text == kHostDeviceCuh);
  CHECK(list[1].text == kBorderCuh);
  CHECK(list[2].text == kCommonCuh);
  CHECK(list.back().text == own_file);
  CHECK_THAT(k.source, Catch::Contains("#define GB_BORDER 3\n"));
  CHECK_THAT(k.source, Catch::Contains("#define GB_CHANNELS 1\n"));
  CHECK(k.schedule.variant == variant);
  CHECK(k.entry == (variant == KernelVariant::kGeneral ? "gb_vertical_kernel" : "gb_blur_kernel"));
  CHECK(k.channels == 1);
}

TEST_CASE("the border's number in the prelude is border.cuh's", "[codegen]") {
  for (const auto& entry : kBorderNames.entries) {
    const GeneratedKernel k = generate_kernel(test::make_test_spec(5, 1.0, 3, entry.value));
    CHECK_THAT(k.source, Catch::Contains("#define GB_BORDER " +
                                         std::to_string(static_cast<int>(entry.value)) + "\n"));
  }
}

TEST_CASE("auto picks the tensor-core kernel, else the tiled one, else the wide one", "[codegen]") {
  const auto pick = [](int size, double sigma, int channels, int arch) {
    return choose_schedule(test::make_test_spec(size, sigma, channels), KernelVariant::kAuto,
                           SampleFormat::k8, arch)
        .variant;
  };
  CHECK(pick(7, 1.5, 3, 0) == KernelVariant::kMma);   // arch not known: a current GPU
  CHECK(pick(7, 1.5, 3, 90) == KernelVariant::kMma);
  CHECK(pick(7, 1.5, 3, 80) == KernelVariant::kMma);
  CHECK(pick(7, 1.5, 3, 75) == KernelVariant::kTiled);  // no u8 mma.m16n8k32 before sm_80
  CHECK(pick(31, 5.0, 4, 90) == KernelVariant::kMma);   // halo 60 bytes
  CHECK(pick(49, 8.0, 1, 90) == KernelVariant::kMma);   // radius 24
  CHECK(pick(51, 8.0, 1, 90) == KernelVariant::kMma);
  CHECK(pick(23, 4.0, 4, 90) == KernelVariant::kMma);   // halo 44
  CHECK(pick(35, 5.5, 4, 90) == KernelVariant::kMma);   // halo 68
  CHECK(pick(3, 0.1, 3, 90) == KernelVariant::kTiled);  // centre tap 2^16: not two bytes
  CHECK(pick(1, 0.5, 3, 90) == KernelVariant::kTiled);
  CHECK(pick(101, 16.0, 3, 90) == KernelVariant::kMma);
  CHECK(pick(101, 16.0, 3, 75) == KernelVariant::kWide);
  CHECK(pick(255, 40.0, 4, 90) == KernelVariant::kMma);  // radius 127, halo 508: the limits
  CHECK(pick(255, 40.0, 4, 86) == KernelVariant::kMma);  // one warp in 99 KiB
  CHECK(pick(257, 40.0, 1, 90) == KernelVariant::kWide);
  CHECK(pick(65, 10.0, 1, 75) == KernelVariant::kTiled);
  CHECK(pick(67, 10.0, 1, 75) == KernelVariant::kWide);
  CHECK_THROWS_AS(choose_schedule(test::make_test_spec(101, 16.0, 3), KernelVariant::kTiled),
                  UsageError);
  CHECK_THROWS_AS(choose_schedule(test::make_test_spec(7, 1.5, 3), KernelVariant::kMma,
                                  SampleFormat::k8, 75),
                  UsageError);
  CHECK_THROWS_AS(choose_schedule(test::make_test_spec(3, 0.1, 3), KernelVariant::kMma),
                  UsageError);
}

TEST_CASE("launch dimensions cover the image", "[codegen]") {
  for (KernelVariant variant : {KernelVariant::kMma, KernelVariant::kTiled, KernelVariant::kWide}) {
    const GeneratedKernel k = generate_kernel(test::make_test_spec(7, 1.5, 3), variant);
    const LaunchDims d = launch_dims(k, 1000, 777);
    CHECK(static_cast<long long>(d.grid_x) * k.schedule.tile_w >= 3000);
    CHECK(static_cast<long long>(d.grid_x - 1) * k.schedule.tile_w < 3000);
    CHECK(static_cast<long long>(d.grid_y) * k.schedule.tile_h >= 777);
    CHECK(static_cast<int>(d.block) == k.schedule.block_threads);
  }
}

TEST_CASE("same spec, same bytes", "[codegen]") {
  const BlurSpec spec = test::make_test_spec(31, 5.0, 3, Border::kReflect101);
  CHECK(generate_kernel(spec).source == generate_kernel(spec).source);
}

// What the kernel computes from the grid: its tile of ceil(units / grid_x) units.
void check_mma_columns(const LaunchDims& d, long long row_units, long long max_units) {
  const long long tile_units = (row_units + d.grid_x - 1) / d.grid_x;
  CHECK(tile_units <= max_units);
  CHECK(tile_units * d.grid_x >= row_units);        // covers the row
  CHECK(tile_units * (d.grid_x - 1) < row_units);   // and no block starts past it
}

TEST_CASE("launch dimensions balance the tensor-core kernel's tiles over the SMs", "[codegen]") {
  const GeneratedKernel big = generate_kernel(test::make_test_spec(255, 40.0, 4), KernelVariant::kMma,
                                              SampleFormat::k8, 90, ChannelLayout::kInterleaved);
  const long long widest = big.schedule.tile_w / 32;  // 64 units: 1080p RGBA gets 4 x 17 blocks
  // Large kernels: more, narrower blocks where the widest leave SMs idle (1080p), never wider
  // than twice the widest or 64 units; without an SM count, the widest.
  const LaunchDims hd_big = launch_dims(big, 1920, 1080, 132);
  CHECK(hd_big.grid_x > launch_dims(big, 1920, 1080).grid_x);
  CHECK(static_cast<long long>(hd_big.grid_x) * hd_big.grid_y <= 132);  // one block per SM, one wave
  CHECK(hd_big.dynamic_shared_bytes == static_cast<unsigned>(big.schedule.shared_bytes));
  check_mma_columns(launch_dims(big, 3840, 2160), 480, widest);
  for (int width : {1, 31, 33, 1000, 5000, 7680}) {
    CAPTURE(width);
    check_mma_columns(launch_dims(big, width, 700, 132), (width * 4 + 31) / 32, 64);
  }
  const GeneratedKernel gray = generate_kernel(test::make_test_spec(101, 16.0, 1), KernelVariant::kMma,
                                               SampleFormat::k8, 90);
  for (int width : {1, 1920, 3840, 7680}) {
    CAPTURE(width);
    check_mma_columns(launch_dims(gray, width, 4320, 132), (width + 31) / 32,
                      2 * gray.schedule.tile_w / 32);
  }
  // Small kernels from 4 blocks per SM up (8K and 4K 7x7 RGB) keep their widest tiles or widen
  // them, where that saves a nearly empty last wave or a second one.
  const GeneratedKernel small = generate_kernel(test::make_test_spec(7, 1.5, 3), KernelVariant::kMma,
                                                SampleFormat::k8, 90);
  const long long small_widest = small.schedule.tile_w / 32;
  for (int width : {3840, 7680}) {
    CAPTURE(width);
    const LaunchDims d = launch_dims(small, width, width * 9 / 16, 132);
    CHECK(d.grid_x <= launch_dims(small, width, width * 9 / 16).grid_x);
    check_mma_columns(d, width * 3 / 32, small_widest * 8 / 5);
  }
  // 4K RGB 7x7: 24 x 34 = 816 blocks of the widest (15 units), a second wave of 288 after 528;
  // 24 units make 15 x 34 = 510, one wave.
  CHECK(launch_dims(small, 3840, 2160, 132).grid_x == 15);
  // 1080p RGBA 31x31: 16 x 34 = 544 blocks of the widest for 528 places; 15 x 34 fit.
  const GeneratedKernel rgba31 = generate_kernel(test::make_test_spec(31, 5.0, 4), KernelVariant::kMma,
                                                 SampleFormat::k8, 90);
  CHECK(launch_dims(rgba31, 1920, 1080, 132).grid_x == 15);
  // The same for a later wave: 8K gray and 4K RGBA 7x7 make 1088 blocks of the widest (15 units:
  // 16 x 68 and 32 x 34), 32 past two waves of 528; 16 units make 1020 (15 x 68, 30 x 34), which
  // fit in two.
  const GeneratedKernel gray7 = generate_kernel(test::make_test_spec(7, 1.5, 1), KernelVariant::kMma,
                                                SampleFormat::k8, 90);
  CHECK(launch_dims(gray7, 7680, 4320, 132).grid_x == 15);
  const GeneratedKernel rgba7 = generate_kernel(test::make_test_spec(7, 1.5, 4), KernelVariant::kMma,
                                                SampleFormat::k8, 90);
  CHECK(launch_dims(rgba7, 3840, 2160, 132).grid_x == 30);
  // 8K RGB 7x7: 48 x 68 = 3264 blocks, 96 (18% of a wave) past six: the widest.
  CHECK(launch_dims(small, 7680, 4320, 132).grid_x == 48);
  // Below (the bytes of 4K gray: 8 x 34 = 272 blocks; 1080p 7x7 RGB: 12 x 17 = 204 blocks, for
  // 132 SMs), more blocks of fewer steps.
  CHECK(launch_dims(small, 1280, 2160, 132).grid_x > launch_dims(small, 1280, 2160).grid_x);
  const LaunchDims hd = launch_dims(small, 1920, 1080, 132);
  CHECK(hd.grid_x > launch_dims(small, 1920, 1080).grid_x);
  check_mma_columns(hd, 180, small_widest);
  check_mma_columns(launch_dims(small, 1920, 1080), 180, small_widest);
}

TEST_CASE("schedules fit in shared memory for every kernel size", "[codegen]") {
  for (int channels = 1; channels <= 4; ++channels) {
    for (int size : {1, 7, 31, 255, 1023, kMaxKernelSize}) {
      CAPTURE(channels, size);
      const KernelSchedule s = choose_schedule(test::make_test_spec(size, 2.0, channels));
      CHECK(s.tile_h >= 1);
      // Static shared memory stops at 48 KiB; dynamic at the least any sm_80+ GPU opts into.
      CHECK(s.shared_bytes <= (s.mma ? 99 : 48) * 1024);
      if (s.variant == KernelVariant::kWide) {
        CHECK(s.shared_bytes == s.tile_h * (s.tile_w + 2 * (size / 2) * channels) * 2);
      } else if (s.variant == KernelVariant::kMma) {
        REQUIRE(s.mma);
        const gb_mma::Geometry& g = s.mma->geometry;
        CHECK(g.pad >= (size / 2) * (s.planes() ? 1 : channels));
        CHECK((s.planes() == 0 || s.planes() == channels));
        CHECK(g.pad % 16 == 0);
        CHECK(s.tile_h == s.block_threads / 2);  // 16 rows per warp
        CHECK(s.tile_w % 32 == 0);
        CHECK(s.shared_bytes == g.shared_bytes(s.block_threads / 32));
        CHECK(s.launch_shared_bytes() == static_cast<unsigned>(s.shared_bytes));
      } else {
        REQUIRE(s.tiled);
        CHECK(s.tiled->halo >= (size / 2) * channels);
        CHECK((s.tiled->row_stride / 2) % 2 == 1);
        CHECK(s.tile_h % s.tiled->strip_h == 0);
        CHECK(s.shared_bytes == s.tile_h * s.tiled->row_stride * 2);
      }
    }
  }
}

TEST_CASE("large kernels of several channels blur one plane per channel", "[codegen]") {
  const auto kernel = [](int size, int channels, ChannelLayout layout = ChannelLayout::kAuto) {
    return generate_kernel(test::make_test_spec(size, size / 6.0, channels), KernelVariant::kAuto,
                           SampleFormat::k8, 90, layout);
  };
  // Planes from an interleaved halo of 65 bytes (the taps of a plane are 1 byte apart, not C),
  // never for one channel.
  CHECK(kernel(255, 4).schedule.planes() == 4);
  CHECK(kernel(101, 3).schedule.planes() == 3);
  CHECK(kernel(51, 3).schedule.planes() == 3);  // halo 75
  CHECK(kernel(67, 2).schedule.planes() == 2);  // 66
  CHECK(kernel(65, 2).schedule.planes() == 0);  // 64
  CHECK(kernel(33, 4).schedule.planes() == 0);  // 64
  CHECK(kernel(7, 4).schedule.planes() == 0);
  CHECK(kernel(255, 1).schedule.planes() == 0);
  CHECK(kernel(255, 4, ChannelLayout::kInterleaved).schedule.planes() == 0);
  CHECK(kernel(7, 3, ChannelLayout::kPlanes).schedule.planes() == 3);
  CHECK(kernel(7, 1, ChannelLayout::kPlanes).schedule.planes() == 0);

  // A one-channel kernel with the image's channels as grid layers, and the split and merge.
  const GeneratedKernel k = kernel(255, 4);
  CHECK(k.channels == 4);
  CHECK(k.schedule.variant == KernelVariant::kMma);
  CHECK(k.schedule.mma->geometry.pad == 128);  // radius 127 of one channel, not 508 bytes
  CHECK(k.source.find("#define GB_CHANNELS 1\n") != std::string::npos);
  CHECK(k.source.find("#define GB_PLANES 4\n") != std::string::npos);
  CHECK(k.source.find("gb_split_planes") != std::string::npos);
  CHECK(k.split_entry == "gb_split_planes");
  CHECK(k.merge_entry == "gb_merge_planes");
  CHECK(k.name.find("_planes") != std::string::npos);
  CHECK(kernel(255, 4, ChannelLayout::kInterleaved).source.find("#define GB_PLANES") == std::string::npos);

  const LaunchDims d = launch_dims(k, 1920, 1080, 132);
  CHECK(d.grid_z == 4);
  check_mma_columns(d, 60, 2 * k.schedule.tile_w / 32);  // 1920 one-byte columns
  CHECK(launch_dims(kernel(255, 4, ChannelLayout::kInterleaved), 1920, 1080, 132).grid_z == 1);

  // The split and merge: 4 pixels a thread, every row.
  for (int width : {1, 4, 5, 1920, 1921}) {
    CAPTURE(width);
    const LaunchDims c = plane_copy_dims(width, 33);
    CHECK(static_cast<long long>(c.grid_x) * c.block * 4 >= width);
    CHECK(static_cast<long long>(c.grid_x - 1) * c.block * 4 < width);
    CHECK(c.grid_y == 33);
  }
  // Two planar buffers besides the input and output; none for an interleaved blur.
  CHECK(blur_scratch_bytes(k, 1921, 10) == 2 * 4 * 10 * device_pitch(1921));
  CHECK(blur_scratch_bytes(kernel(7, 4), 1921, 10) == 0);
}

TEST_CASE("a stack of images is one launch: a grid layer per image, per plane of each",
          "[codegen]") {
  const auto kernel = [](int size, int channels, SampleFormat format = SampleFormat::k8,
                         KernelVariant variant = KernelVariant::kAuto) {
    return generate_kernel(test::make_test_spec(size, size / 6.0, channels), variant, format, 90);
  };
  const GeneratedKernel mma = kernel(7, 3), planar = kernel(255, 4);
  REQUIRE(planar.schedule.planes() == 4);
  for (const GeneratedKernel& k :
       {mma, kernel(7, 3, SampleFormat::k8, KernelVariant::kTiled),
        kernel(7, 3, SampleFormat::k8, KernelVariant::kWide),
        kernel(7, 3, SampleFormat::k8, KernelVariant::kNaive), kernel(7, 3, SampleFormat::k16)}) {
    CAPTURE(variant_name(k.schedule.variant));
    const LaunchDims one = launch_dims(k, 1920, 1080, 132),
                     five = launch_dims(k, 1920, 1080, 132, 5);
    CHECK(one.grid_z == 1);
    CHECK(five.grid_z == 5);
    CHECK(five.grid_y == one.grid_y);  // every layer one image's rows
    CHECK(five.block == one.block);
  }
  // Planar: plane p of image i is layer p * images + i; the split and merge take a layer per image.
  CHECK(launch_dims(planar, 1920, 1080, 132, 3).grid_z == 12);
  CHECK(plane_copy_dims(1920, 1080, 3).grid_z == 3);
  CHECK(plane_copy_dims(1920, 1080, 3).grid_y == 1080);
  CHECK(blur_scratch_bytes(planar, 1921, 10, 3) == 3 * blur_scratch_bytes(planar, 1921, 10));
  const GeneratedKernel general = kernel(7, 3, SampleFormat::k16);
  CHECK(blur_scratch_bytes(general, 100, 10, 7) == 7 * blur_scratch_bytes(general, 100, 10));
  CHECK(blur_scratch_bytes(mma, 100, 10, 7) == 0);

  // The wave model sees the stack's blocks: a 1080p gray image alone takes narrowed tiles to
  // fill the SMs; sixteen of them fill the SMs many times over at the widest.
  const GeneratedKernel gray = kernel(7, 1);
  CHECK(launch_dims(gray, 1920, 1080, 132).grid_x > launch_dims(gray, 1920, 1080).grid_x);
  CHECK(launch_dims(gray, 1920, 1080, 132, 16).grid_x < launch_dims(gray, 1920, 1080, 132).grid_x);

  // CUDA's grid has at most 65535 layers: a deeper stack is refused, not launched wrong.
  CHECK(launch_dims(mma, 64, 64, 132, 65535).grid_z == 65535);
  CHECK_THROWS_AS(launch_dims(mma, 64, 64, 132, 65536), InternalError);
  CHECK_THROWS_AS(launch_dims(planar, 64, 64, 132, 16384), InternalError);  // 65536 planes
  CHECK_THROWS_AS(launch_dims(mma, 64, 64, 132, 0), InternalError);
}

TEST_CASE("small horizontal halos take the narrow product, up to 4 bytes its k16 form", "[codegen]") {
  const auto schedule = [](int size, int channels) {
    return generate_kernel(test::make_test_spec(size, size / 5.0 + 0.3, channels), KernelVariant::kMma,
                           SampleFormat::k8, 90)
        .schedule;
  };
  // blur_mma.cu decides from the same numbers (kNarrow, kTiny); codegen's cost model follows.
  CHECK(schedule(7, 1).mma->geometry.tiny());         // halo 3 bytes
  CHECK(schedule(9, 1).mma->geometry.tiny());         // 4
  CHECK(schedule(3, 4).mma->geometry.tiny());         // 4
  CHECK(schedule(5, 2).mma->geometry.tiny());         // 4
  CHECK_FALSE(schedule(11, 1).mma->geometry.tiny());  // 5: the k32 form
  CHECK(schedule(11, 1).mma->geometry.narrow());
  CHECK_FALSE(schedule(7, 3).mma->geometry.tiny());  // 9
  CHECK(schedule(7, 3).mma->geometry.narrow());
  CHECK_FALSE(schedule(7, 4).mma->geometry.tiny());  // 12
  CHECK(schedule(7, 4).mma->geometry.narrow());
  CHECK_FALSE(schedule(9, 4).mma->geometry.narrow());  // 16: the general horizontal product
  CHECK_FALSE(schedule(9, 4).mma->geometry.tiny());
}
