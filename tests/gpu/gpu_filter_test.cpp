// gpu_filter_test.cpp — [gpu] the convolution matrix (dense: kernels/matrix_mma.cu for byte
// weights where its reach fits, held to matrix_dp4a.cu's and matrix_dense.cu's bytes, dp4a for
// the other 8-bit matrices, matrix_dense.cu for 16-bit and HDR; of rank one,
// separable_tile.cu or blur_general.cu with the matrix's column and row, 8-bit: the tensor-core
// kernel, blur_mma.cu, with exact sums) and the unsharp mask (the same with its finish; 8-bit: the
// tensor-core kernel with mma_finish.cuh) on
// the GPU equal the CPU twin byte for byte: every border, 1-4 channels, alpha kept or
// filtered, 8-bit, 16-bit and HDR, shapes from one pixel to many tiles (4099x2161), from CUBIN
// and from PTX; and the command line's GPU runs write the CPU's files.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <optional>

#include "codecs/image_encode.hpp"
#include "cpu/cpu_blur.hpp"
#include "gpu/cli_bytes.hpp"
#include "gpu/parallel_compiler.hpp"
#include "gpu/test_gpu.hpp"
#include "ops/blur_parameters.hpp"
#include "support/reference_blur.hpp"
#include "support/temp_dir.hpp"

using namespace gpublur;
using test::session;

namespace {

const Border kBorders[] = {Border::kClamp, Border::kReflect, Border::kReflect101, Border::kWrap,
                           Border::kConstant};

// An operation as a test gives it: the parameters for BlurParameters.
struct Filter {
  std::string name;
  BlurParameters parameters;
};

Filter matrix(const std::string& text, std::optional<Decimal> divisor = {},
              std::optional<Decimal> offset = {}) {
  BlurParameters p;
  p.operation = Operation::kMatrix;
  p.matrix = parse_matrix_text(text);
  p.matrix.divisor = divisor;
  p.matrix.offset = offset;
  return {"--matrix " + text, p};
}

Filter matrix_of(const std::string& name, const std::vector<std::vector<double>>& rows,
                 std::optional<Decimal> divisor = {}) {
  BlurParameters p;
  p.operation = Operation::kMatrix;
  p.matrix = matrix_of_rows(rows);
  p.matrix.divisor = divisor;
  return {name, p};
}

// The binomial n x n: row i, column j is C(n-1, i) C(n-1, j); each row and column sums to 2^(n-1).
std::vector<std::vector<double>> binomial_rows(int n) {
  std::vector<double> line{1.0};
  for (int k = 1; k < n; ++k) line.push_back(line.back() * (n - k) / k);
  std::vector<std::vector<double>> rows;
  for (double c : line) {
    rows.emplace_back();
    for (double r : line) rows.back().push_back(c * r);
  }
  return rows;
}

// A dense w x h matrix of small integers, none of rank one.
Filter random_matrix(int w, int h, std::uint32_t seed) {
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(h));
  for (auto& row : rows) {
    for (int i = 0; i < w; ++i) {
      seed = seed * 1664525u + 1013904223u;
      row.push_back(static_cast<double>(static_cast<int>(seed >> 24) % 19 - 9));
    }
  }
  rows[0][0] += 100;  // a minor far from zero: not of rank one
  return matrix_of("random " + std::to_string(w) + "x" + std::to_string(h), rows);
}

Filter unsharp(int size, double sigma, double amount, double threshold) {
  BlurParameters p = test::make_test_parameters(size, sigma);
  p.operation = Operation::kUnsharp;
  p.unsharp = {amount, threshold};
  return {"--unsharp " + std::to_string(amount) + "," + std::to_string(threshold) + " --size " +
              std::to_string(size),
          p};
}

std::vector<Filter> filters() {
  const double ninth = 1.0 / 9;
  return {
      matrix("-1 -1 -1; -1 8 -1; -1 -1 -1"),                                 // dense, edges
      matrix("1 0 -1 0 1; 0 2 0 2 0; -1 0 4.5 0 -1; 0 2 0 2 0; 1 0 -1 0 1",  // dense, decimals
             Decimal{25, -1}, Decimal{5, -1}),
      matrix_of("fixed point", {{ninth, ninth, ninth}, {ninth, -ninth, ninth}, {ninth, ninth, 3.7}},
                Decimal{1, 0}),  // dense, fixed point
      random_matrix(31, 31, 7),  // dense, the largest
      // dense: the tensor cores' windows of 4-byte steps (RGB 9 wide: 12 bytes each side; RGBA
      // dp4a) and 16-byte ones (gray: 4 bytes)
      random_matrix(9, 3, 8),
      random_matrix(15, 15, 9),  // dense, dp4a's largest
      random_matrix(11, 7, 10),  // dense, dp4a: 3 chunks, 7 rows
      random_matrix(7, 9, 14),   // dense, the tensor cores' 9 rows (RGBA: 12 bytes each side)
      // dp4a with rows of 4k + 1 weights: the last weights of four rows at a time (5x5, 9x9), and
      // of the rows past the last four (13x7: three rows keep their chunk).
      random_matrix(5, 5, 11),
      random_matrix(9, 9, 12),
      random_matrix(13, 7, 13),
      // dp4a's byte weights at their bounds, and just past them (two byte planes); four planes
      // (2^23 is past three signed bytes; the sum of |w| at Matrix8's bound, 2^31 / 255).
      matrix("127 -128 0 5 1; 3 -7 2 0 9; 1 1 1 1 1", Decimal{3, 0}),
      matrix("128 -128 0; 3 -7 2; 1 1 1"),
      matrix("8388608 -32768 5; 3 -7 2; 1 -1000 1"),
      // dp4a's rows of tiles in a loop (more chunk words than 15x15 of bytes): 17x17 (rows of 4k
      // + 1 weights, not gathered there), 15x15 of two planes, 31x31 of three (a Laplacian of
      // Gaussian in decimals); unrolled, but wider than 15 (21x5) and taller (3x25).
      random_matrix(17, 17, 15),
      random_matrix(21, 5, 17),
      random_matrix(3, 25, 18),
      matrix_of("15x15 of two planes",
                [] {
                  std::vector<std::vector<double>> rows(15);
                  for (std::size_t j = 0; j < 15; ++j) {
                    for (std::size_t i = 0; i < 15; ++i)
                      rows[j].push_back(static_cast<double>((37 * i + 101 * j) % 4001) - 2000.0);
                  }
                  return rows;
                }()),
      matrix_of(
          "Laplacian of Gaussian 31x31",
          [] {
            std::vector<std::vector<double>> rows;
            for (int y = -15; y <= 15; ++y) {
              rows.emplace_back();
              for (int x = -15; x <= 15; ++x) {
                const double r2 = (x * x + y * y) / 32.0;
                rows.back().push_back(std::round(-1e5 * (1 - r2) * std::exp(-r2)) / 1e5);
              }
            }
            return rows;
          }(),
          Decimal{1, 0}),
      matrix("-1 0 1; -2 0 2; -1 0 1", {}, Decimal{128, 0}),  // rank one: Sobel
      matrix("1 4 6 4 1", {}, {}),                            // rank one: one row
      matrix("1; 2; 3; 2; 1; 0; -1"),                         // rank one: a column
      matrix("-1 -2 -1; 0 0 0; 1 2 1"),                       // rank one: a signed column
      // Rank one at the tensor cores' bounds: a signed column whose parts sum to 128 each and
      // 16-bit row taps (kernels/mma_geometry.cuh); a column summing to 256 (binomial 9x9);
      // and a box 31x31 (the tensor cores' wide horizontal product).
      matrix("127000 -254000 381000; 1000 -2000 3000; -128000 256000 -384000", Decimal{65536, 0},
             Decimal{128, 0}),
      matrix_of("binomial 9x9", binomial_rows(9)),
      matrix_of("box 31x31", std::vector<std::vector<double>>(31, std::vector<double>(31, 1.0))),
      unsharp(7, 1.5, 1.0, 0),
      unsharp(31, 5.0, 2.5, 3),
      unsharp(3, 0.8, 10.0, 0),
      // The narrow kernel's staged input bytes with a threshold and an amount of many bits.
      unsharp(5, 1.2, 1.7, 2.5),
      // A whole AMOUNT other than 1 with a threshold.
      unsharp(9, 2.0, 2.0, 4),
  };
}

template <typename Sample>
Raster<Sample> random_raster(int width, int height, int channels, std::uint32_t seed) {
  if constexpr (sizeof(Sample) == 1) {
    return test::random_image(width, height, channels, seed);
  } else if constexpr (sizeof(Sample) == 2) {
    return test::random_image16(width, height, channels, seed);
  } else {  // HDR: values from 0 to about 40, some exactly 0
    const Image16 base = test::random_image16(width, height, channels, seed);
    ImageF image = make_raster<float>(width, height, channels);
    for (std::size_t i = 0; i < image.pixels.size(); ++i) {
      image.pixels[i] = static_cast<float>(base.pixels[i] % 4096) / 100.0f;
    }
    return image;
  }
}

template <typename Sample>
constexpr SampleFormat format_of() {
  return sizeof(Sample) == 1   ? SampleFormat::k8
         : sizeof(Sample) == 2 ? SampleFormat::k16
                               : SampleFormat::kFloat;
}

struct Case {
  FilterSpec spec;
  std::string what;
  std::vector<std::pair<int, int>> shapes;
  bool ptx = false;  // also from PTX (every case from CUBIN)
};

// Every filter x border x channel count (alpha kept under the default, filtered with
// --alpha straight on four channels), on shapes from one pixel up; the large shape for the
// smaller filters on three channels, whose CPU twin is quick enough.
std::vector<Case> cases() {
  std::vector<Case> all;
  for (const Filter& filter : filters()) {
    for (Border border : kBorders) {
      for (int channels = 1; channels <= 5; ++channels) {
        BlurParameters p = filter.parameters;
        p.border = border;
        p.border_value = {200, 10, 128, 77};
        if (channels == 5) p.alpha = AlphaMode::kStraight;
        const int c = std::min(channels, 4);
        Case k;
        k.spec = make_blur_spec(p, c);
        k.what = filter.name + ", " + std::string(border_name(border)) +
                 (channels == 5 ? ", --alpha straight" : "");
        k.shapes = {{1, 1}, {13, 42}, {14, 9}, {176, 113}};  // 14: dp4a's last quad of two
        const bool small = p.operation == Operation::kMatrix
                               ? p.matrix.width * p.matrix.height <= 25
                               : p.size.x.size <= 7;
        if (small && c == 3 && border == Border::kReflect101) k.shapes.push_back({4099, 2161});
        k.ptx = c == 3;
        all.push_back(std::move(k));
      }
    }
  }
  return all;
}

template <typename Sample>
void require_gpu_equals_cpu() {
  constexpr SampleFormat format = format_of<Sample>();
  const std::vector<Case> all = cases();
  test::ParallelCompiler compiler;
  std::vector<GeneratedKernel> kernels;
  // Where auto takes the one-launch kernel, the two-launch one (what a tile too large for shared
  // memory takes) is held to the same bytes on three channels; where it takes the tensor cores
  // (the 8-bit unsharp mask and matrix of rank one), the one-launch kernel (what their limits
  // leave it to); where it takes a dense matrix's tensor cores, dp4a and the dense kernel (what
  // older GPUs take); where it takes dp4a, the dense kernel, and the tensor cores where they
  // could run it.
  std::vector<std::vector<GeneratedKernel>> others(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Case& c = all[i];
    kernels.push_back(
        generate_kernel(c.spec, KernelVariant::kAuto, format, test::gpu().arch.number()));
    compiler.request(kernels.back(), Target::kCubin);
    if (c.ptx) compiler.request(kernels.back(), Target::kPtx);
    // (A fixed array: GCC 12's -O3 warns of a null memmove in a vector assigned in a switch.)
    KernelVariant variants[2] = {};
    int count = 0;
    switch (kernels.back().schedule.variant) {
      case KernelVariant::kMma:
        variants[count++] = KernelVariant::kSeparable;
        break;
      case KernelVariant::kSeparable:
        variants[count++] = KernelVariant::kGeneral;
        break;
      case KernelVariant::kDenseMma:
        variants[count++] = KernelVariant::kDp4a;
        variants[count++] = KernelVariant::kDense;
        break;
      case KernelVariant::kDp4a:
        variants[count++] = KernelVariant::kDense;
        break;
      default:
        break;
    }
    for (int v = 0; v < (c.ptx ? count : 0); ++v) {
      others[i].push_back(generate_kernel(c.spec, variants[v], format));
      compiler.request(others[i].back(), Target::kCubin);
    }
    // Where auto leaves a matrix the tensor cores could take to dp4a (two and four channels), the
    // tensor cores' kernel too, on every such case: `--kernel dense-mma` runs it.
    if (kernels.back().schedule.variant == KernelVariant::kDp4a &&
        find_schedule(c.spec, KernelVariant::kDenseMma, format, test::gpu().arch.number())) {
      others[i].push_back(
          generate_kernel(c.spec, KernelVariant::kDenseMma, format, test::gpu().arch.number()));
      compiler.request(others[i].back(), Target::kCubin);
    }
  }
  std::uint32_t seed = 1;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Case& c = all[i];
    for (auto [width, height] : c.shapes) {
      const Raster<Sample> image = random_raster<Sample>(width, height, c.spec.channels, ++seed);
      const Raster<Sample> cpu = blur_on_cpu(image, c.spec);
      for (Target t : {Target::kCubin, Target::kPtx}) {
        if (t == Target::kPtx && !c.ptx) continue;
        CAPTURE(c.what, width, height, c.spec.channels, kernels[i].name, target_name(t));
        const Raster<Sample> out =
            blur_on_gpu(session(), image, kernels[i], compiler.get(kernels[i], t)).output;
        REQUIRE(out.pixels.size() == cpu.pixels.size());
        REQUIRE(std::memcmp(out.pixels.data(), cpu.pixels.data(), cpu.byte_count()) == 0);
      }
      for (const GeneratedKernel& other : others[i]) {
        CAPTURE(c.what, width, height, other.name);
        const Raster<Sample> out =
            blur_on_gpu(session(), image, other, compiler.get(other, Target::kCubin)).output;
        REQUIRE(std::memcmp(out.pixels.data(), cpu.pixels.data(), cpu.byte_count()) == 0);
      }
    }
  }
}

}  // namespace

TEST_CASE("matrix and unsharp on the GPU == CPU: 8-bit", "[gpu][filter]") {
  require_gpu_equals_cpu<std::uint8_t>();
}

TEST_CASE("matrix and unsharp on the GPU == CPU: 16-bit", "[gpu][filter]") {
  require_gpu_equals_cpu<std::uint16_t>();
}

TEST_CASE("matrix and unsharp on the GPU == CPU: floating point (HDR)", "[gpu][filter]") {
  require_gpu_equals_cpu<float>();
}

TEST_CASE(
    "a dense matrix takes the tensor cores, dp4a or the dense kernel; rank one and unsharp "
    "the tensor cores",
    "[gpu][filter]") {
  const auto variant = [](const Filter& f) {
    return generate_kernel(make_blur_spec(f.parameters, 3), KernelVariant::kAuto, SampleFormat::k8,
                           test::gpu().arch.number())
        .schedule.variant;
  };
  CHECK(variant(matrix("-1 -1 -1; -1 8 -1; -1 -1 -1")) == KernelVariant::kDenseMma);
  CHECK(variant(random_matrix(11, 3, 1)) == KernelVariant::kDp4a);  // 15 bytes each side
  CHECK(variant(matrix("128 -1 -1; -1 8 -1; -1 -1 -1")) == KernelVariant::kDp4a);
  CHECK(variant(random_matrix(31, 31, 2)) == KernelVariant::kDp4a);
  CHECK(variant(matrix("-1 0 1; -2 0 2; -1 0 1")) == KernelVariant::kMma);
  CHECK(variant(matrix("199; 59; 0")) == KernelVariant::kSeparable);  // past the 16-bit middle
  CHECK(variant(unsharp(7, 1.5, 1, 0)) == KernelVariant::kMma);
}

TEST_CASE("the CLI writes the CPU's bytes from the GPU: --matrix and --unsharp", "[gpu][filter]") {
  const test::TempDir tmp;
  write_image(test::random_image(301, 97, 4, 3), tmp.file("rgba.png"), {});
  write_image(test::random_image16(211, 89, 3, 4), tmp.file("rgb16.png"), {});
  ImageF hdr = make_raster<float>(120, 70, 3);
  for (std::size_t i = 0; i < hdr.pixels.size(); ++i)
    hdr.pixels[i] = static_cast<float>(i % 97) / 13.0f;
  write_image(hdr, tmp.file("glow.hdr"), {});
  const std::vector<std::vector<std::string>> operations = {
      {"--matrix", "-1 -1 -1; -1 8 -1; -1 -1 -1"},
      {"--matrix", "1 2 1; 2 4 2; 1 2 1", "--border", "wrap"},
      {"--matrix", "0 -1 0; -1 5 -1; 0 -1 0", "--alpha", "straight"},
      {"--unsharp", "1.5,2", "--size", "9", "--sigma", "2"},
  };
  for (const char* input : {"rgba.png", "rgb16.png", "glow.hdr"}) {
    for (const auto& operation : operations) {
      CAPTURE(input, operation[1]);
      const std::string ext = std::string(input).substr(std::string(input).rfind('.'));
      std::string bytes[2];
      for (int i = 0; i < 2; ++i) {
        std::vector<std::string> args{tmp.file(input), tmp.file(std::to_string(i) + ext),
                                      "--no-cache", "--device", i == 0 ? "gpu" : "cpu"};
        args.insert(args.end(), operation.begin(), operation.end());
        bytes[i] = test::cli_output_bytes(args);
      }
      REQUIRE(!bytes[0].empty());
      CHECK(bytes[0] == bytes[1]);
    }
  }
}
