// kernels_compile_test.cpp — every kernel codegen generates compiles with NVRTC (no GPU needed):
// to PTX and CUBIN for every architecture gpublur targets; a broken source is a CompileError
// carrying the log.
#include <catch2/catch.hpp>

#include <cstring>

#include "base/errors.hpp"
#include "codegen/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "ops/blur_parameters.hpp"
#include "support/reference_blur.hpp"

using namespace gpublur;

namespace {

// A convolution matrix (rows as the command line takes them) on `channels` channels.
FilterSpec matrix_spec(const std::string& text, int channels, Border border = Border::kClamp,
                       AlphaMode alpha = AlphaMode::kPremultiplied) {
  BlurParameters p;
  p.operation = Operation::kMatrix;
  p.matrix = parse_matrix_text(text);
  p.border = border;
  p.border_value = {10, 20, 30, 40};
  p.alpha = alpha;
  return make_blur_spec(p, channels);
}

constexpr unsigned char kElfMagic[] = {0x7f, 'E', 'L', 'F'};
constexpr std::uint16_t kEmCuda = 190;

std::uint16_t elf_machine(const std::vector<char>& elf) {
  std::uint16_t machine = 0;
  std::memcpy(&machine, elf.data() + 18, sizeof machine);
  return machine;
}

// CUDA ELF e_flags: ABI version 8 (CUDA 12.8+) keeps the SM number in bits 8..15, older ABIs
// in bits 0..7.
int elf_sm(const std::vector<char>& elf) {
  std::uint32_t flags = 0;
  std::memcpy(&flags, elf.data() + 48, sizeof flags);
  const int abi_version = static_cast<unsigned char>(elf[8]);
  return static_cast<int>(abi_version >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
}

}  // namespace

TEST_CASE("NVRTC is present and knows the architectures gpublur targets", "[nvrtc]") {
  const NvrtcVersion v = nvrtc_version();
  CHECK(v.major >= 12);
  for (int arch : {75, 80, 86, 89, 90, 120}) {
    CHECK(std::find(v.archs.begin(), v.archs.end(), arch) != v.archs.end());
  }
}

TEST_CASE("the blur kernel compiles to PTX and CUBIN without a GPU", "[nvrtc]") {
  const int arch_number = GENERATE(75, 80, 86, 89, 90, 120);
  // Auto picks the tensor-core kernel from sm_80 on, the tiled one for sm_75.
  const GeneratedKernel kernel =
      generate_kernel(test::make_test_spec(7, 1.5, 3), KernelVariant::kAuto, SampleFormat::k8,
                      arch_number);
  CHECK(kernel.schedule.variant ==
        (arch_number >= 80 ? KernelVariant::kMma : KernelVariant::kTiled));
  const Arch arch = arch_from_number(arch_number);
  CAPTURE(arch.sm());

  const CompiledKernel ptx = compile_kernel(kernel, CompilePlan{arch, Target::kPtx, ""});
  CHECK_THAT(ptx.ptx, Catch::Contains("\n.target " + arch.sm() + "\n"));
  CHECK_THAT(ptx.ptx, Catch::Contains(".entry gb_blur_kernel("));
  CHECK(ptx.cubin.empty());
  CHECK(ptx.module_image() == ptx.ptx.c_str());

  const CompiledKernel cubin = compile_kernel(kernel, CompilePlan{arch, Target::kCubin, ""});
  REQUIRE(cubin.cubin.size() > 64);
  CHECK(std::memcmp(cubin.cubin.data(), kElfMagic, sizeof kElfMagic) == 0);
  CHECK(cubin.cubin[4] == 2);  // ELFCLASS64
  CHECK(elf_machine(cubin.cubin) == kEmCuda);
  CHECK(elf_sm(cubin.cubin) == arch_number);
  CHECK_THAT(cubin.ptx, Catch::Contains(".target " + arch.sm()));  // the PTX it was built from
}

TEST_CASE("every variant and border compiles, up to the largest kernels", "[nvrtc]") {
  const auto [variant, size, channels, border] = GENERATE(
      table<KernelVariant, int, int, Border>({{KernelVariant::kMma, 7, 3, Border::kClamp},
                                              {KernelVariant::kMma, 3, 1, Border::kReflect},
                                              {KernelVariant::kMma, 31, 4, Border::kConstant},
                                              {KernelVariant::kMma, 49, 1, Border::kWrap},
                                              {KernelVariant::kMma, 101, 3, Border::kReflect101},
                                              {KernelVariant::kMma, 255, 4, Border::kClamp},
                                              {KernelVariant::kTiled, 7, 3, Border::kClamp},
                                              {KernelVariant::kTiled, 5, 2, Border::kReflect},
                                              {KernelVariant::kTiled, 3, 4, Border::kReflect101},
                                              {KernelVariant::kTiled, 9, 1, Border::kWrap},
                                              {KernelVariant::kTiled, 7, 4, Border::kConstant},
                                              {KernelVariant::kTiled, 65, 1, Border::kClamp},
                                              {KernelVariant::kTiled, 31, 4, Border::kClamp},
                                              {KernelVariant::kWide, 255, 4, Border::kReflect101},
                                              {KernelVariant::kWide, 4095, 1, Border::kConstant},
                                              {KernelVariant::kNaive, 7, 2, Border::kWrap}}));
  CAPTURE(variant_name(variant), size, channels, border_name(border));
  const GeneratedKernel kernel =
      generate_kernel(test::make_test_spec(size, size / 6.0, channels, border), variant);
  CHECK(kernel.schedule.variant == variant);
  CHECK_NOTHROW(compile_kernel(kernel, CompilePlan{Arch{9, 0}, Target::kPtx, ""}));
}

// The kernel static_asserts that codegen's shared size is its own, so a compile checks both.
TEST_CASE("the tensor-core kernel fits each architecture's shared memory", "[nvrtc]") {
  const int arch_number = GENERATE(80, 86, 90);
  const int size = GENERATE(101, 255);
  const int limit_kib = arch_number == 90 ? 227 : arch_number == 80 ? 163 : 99;
  CAPTURE(arch_number, size);
  const GeneratedKernel kernel = generate_kernel(test::make_test_spec(size, size / 6.0, 4),
                                                 KernelVariant::kMma, SampleFormat::k8, arch_number);
  CHECK(kernel.schedule.shared_bytes <= limit_kib * 1024);
  CHECK(kernel.schedule.block_threads >= 32);
  CHECK_NOTHROW(compile_kernel(kernel, CompilePlan{arch_from_number(arch_number), Target::kPtx, ""}));
}

TEST_CASE("a source NVRTC rejects is a CompileError with the log", "[nvrtc]") {
  GeneratedKernel broken = generate_kernel(test::make_test_spec(3, 0.8, 1));
  broken.source += "\nthis is not C++;\n";
  try {
    compile_kernel(broken, CompilePlan{Arch{9, 0}, Target::kCubin, ""});
    FAIL("expected a CompileError");
  } catch (const CompileError& e) {
    CHECK_THAT(e.log(), Catch::Contains("error"));
    CHECK_THAT(e.options(), Catch::Contains("--gpu-architecture=sm_90"));
    CHECK_THAT(e.what(), Catch::Contains(broken.name));
  }
}

TEST_CASE("the general kernel compiles for every sample format and alpha mode", "[nvrtc]") {
  const auto [format, channels, premultiplied, border] = GENERATE(
      table<SampleFormat, int, bool, Border>({{SampleFormat::k8, 3, false, Border::kClamp},
                                              {SampleFormat::k8, 4, true, Border::kConstant},
                                              {SampleFormat::k16, 1, false, Border::kReflect},
                                              {SampleFormat::k16, 2, true, Border::kWrap},
                                              {SampleFormat::kFloat, 3, false, Border::kConstant}}));
  CAPTURE(static_cast<int>(format), channels, premultiplied, border_name(border));
  BlurSpec spec = test::make_test_spec(9, 2.0, channels, border, {10, 20, 30, 40});
  spec.premultiplied = premultiplied;
  // 8-bit straight blurs take the fast kernels unless the general one is asked for.
  const KernelVariant requested = format == SampleFormat::k8 && !premultiplied
                                      ? KernelVariant::kGeneral
                                      : KernelVariant::kAuto;
  const GeneratedKernel kernel = generate_kernel(spec, requested, format);
  CHECK(kernel.schedule.variant == KernelVariant::kGeneral);
  const CompiledKernel ptx = compile_kernel(kernel, CompilePlan{Arch{9, 0}, Target::kPtx, ""});
  CHECK_THAT(ptx.ptx, Catch::Contains(".entry gb_vertical_kernel("));
  CHECK_THAT(ptx.ptx, Catch::Contains(".entry gb_horizontal_kernel("));
  if (format == SampleFormat::kFloat) {  // explicitly rounded: never a fused multiply-add
    CHECK_THAT(ptx.ptx, !Catch::Contains("fma.rn.f64"));
  }
}

TEST_CASE("the matrix's and the unsharp mask's kernels compile for every sample format",
          "[nvrtc]") {
  // bytes: the 8-bit weights are signed bytes (the tensor cores take the dense matrix on 8-bit
  // images).
  const auto [text, channels, straight, border, bytes_weights] = GENERATE(
      table<const char*, int, bool, Border, bool>({{"-1 -1 -1; -1 8 -1; -1 -1 -1", 3, false, Border::kClamp, true},
                                                   {"0.5 1 0.5; 1 -2.25 1; 0.5 1 0.5", 4, false, Border::kConstant, false},
                                                   {"-1 0 1; -2 0 2; -1 0 1", 2, true, Border::kWrap, true},
                                                   {"", 4, false, Border::kReflect101, false},
                                                   {"", 1, true, Border::kReflect, false}}));
  const SampleFormat format = GENERATE(SampleFormat::k8, SampleFormat::k16, SampleFormat::kFloat);
  CAPTURE(text, channels, straight, border_name(border), static_cast<int>(format));
  BlurParameters p = test::make_test_parameters(9, 2.0);
  p.operation = *text ? Operation::kMatrix : Operation::kUnsharp;
  if (*text) p.matrix = parse_matrix_text(text);
  p.unsharp = {2.0, 1.5};
  p.border = border;
  p.border_value = {10, 20, 30, 40};
  p.alpha = straight ? AlphaMode::kStraight : AlphaMode::kPremultiplied;
  const FilterSpec spec = make_blur_spec(p, channels);
  const GeneratedKernel kernel = generate_kernel(spec, KernelVariant::kAuto, format);
  const bool dense = spec.operation == Operation::kMatrix && !separable_matrix(spec, format);
  // The 8-bit unsharp mask and matrix of rank one take the tensor cores (with their finish), so
  // do the edge detector's byte weights on 8-bit images (a product a matrix row); other dense
  // matrices on 8-bit images dp4a (byte planes of their weights); the rest their own kernels.
  const bool mma = !dense && format == SampleFormat::k8;
  const bool bytes = dense && format == SampleFormat::k8 && bytes_weights;
  const bool planes = dense && format == SampleFormat::k8 && !bytes_weights;
  CHECK(kernel.schedule.variant == (bytes    ? KernelVariant::kDenseMma
                                    : planes ? KernelVariant::kDp4a
                                    : dense  ? KernelVariant::kDense
                                    : mma    ? KernelVariant::kMma
                                             : KernelVariant::kSeparable));
  const CompiledKernel ptx = compile_kernel(kernel, CompilePlan{Arch{9, 0}, Target::kPtx, ""});
  CHECK_THAT(ptx.ptx, Catch::Contains(dense ? ".entry gb_matrix_kernel("
                                      : mma ? ".entry gb_blur_kernel("
                                            : ".entry gb_separable_kernel("));
  if (mma) {  // the one-launch kernel, which the tensor cores' limits leave it to
    const GeneratedKernel tile = generate_kernel(spec, KernelVariant::kSeparable, format);
    const CompiledKernel separable = compile_kernel(tile, CompilePlan{Arch{9, 0}, Target::kPtx, ""});
    CHECK_THAT(separable.ptx, Catch::Contains(".entry gb_separable_kernel("));
  }
  if (format == SampleFormat::kFloat) {  // explicitly rounded: never a fused multiply-add
    CHECK_THAT(ptx.ptx, !Catch::Contains("fma.rn.f64"));
  }
  if (!dense) {  // the two-launch kernel, which a tile too large for shared memory takes
    const GeneratedKernel two = generate_kernel(spec, KernelVariant::kGeneral, format);
    const CompiledKernel general = compile_kernel(two, CompilePlan{Arch{9, 0}, Target::kPtx, ""});
    CHECK_THAT(general.ptx, Catch::Contains(".entry gb_horizontal_kernel("));
  }
}

TEST_CASE("the byte-weight matrix kernel compiles in each of its forms", "[nvrtc]") {
  // 1-4 channels (alpha kept on four, or filtered); a row of one chunk (3x3, before the row: its
  // chunk starts at -1), of two (5x5: the last chunk overlaps), three (9 wide, 3 tall) and four
  // (15x15: its channels one at a time); weights of one sign (two channels) or both; every border.
  // Weights scaled past a byte (two planes: 300; four: scale 0, a corner of 2^23) and matrices
  // past 15x15 (the tile's rows in a loop: 31x31, 17x5 of two planes).
  const auto [width, height, channels, straight, border, scale] =
      GENERATE(table<int, int, int, bool, Border, int>({
          {3, 3, 1, false, Border::kConstant, 1},
          {5, 5, 3, false, Border::kReflect101, 1},
          {9, 3, 2, false, Border::kWrap, 1},
          {5, 5, 4, false, Border::kClamp, 1},
          {3, 3, 4, true, Border::kReflect, 1},
          {15, 15, 3, false, Border::kConstant, 1},
          {5, 5, 3, false, Border::kClamp, 300},
          {3, 3, 2, false, Border::kWrap, 0},
          {31, 31, 4, false, Border::kReflect101, 1},
          {17, 5, 1, true, Border::kClamp, 300},
      }));
  std::string text;
  for (int j = 0; j < height; ++j) {
    for (int i = 0; i < width; ++i) {
      const int w = (i * 7 + j * 3) % 11 - (channels == 2 ? 0 : 5);
      const int corner = scale == 0 ? 1 << 23 : 100 * scale;
      text += std::to_string(i == 0 && j == 0 ? corner : w * std::max(scale, 1)) + " ";
    }
    text += ";";
  }
  const FilterSpec spec = matrix_spec(text, channels, border,
                                      straight ? AlphaMode::kStraight : AlphaMode::kPremultiplied);
  CAPTURE(width, height, channels, straight, border_name(border));
  const GeneratedKernel kernel = generate_kernel(spec, KernelVariant::kDp4a, SampleFormat::k8, 90);
  REQUIRE(kernel.schedule.variant == KernelVariant::kDp4a);
  const CompiledKernel cubin = compile_kernel(kernel, CompilePlan{Arch{9, 0}, Target::kCubin, ""});
  CHECK(elf_sm(cubin.cubin) == 90);
  const CompiledKernel ptx = compile_kernel(kernel, CompilePlan{Arch{7, 5}, Target::kPtx, ""});
  if (scale == 0) {  // 2^23 and bytes: the top plane's bytes are all 0, and cost nothing
    CHECK_THAT(ptx.ptx, !Catch::Contains("dp4a.u32.s32"));
  } else {
    CHECK_THAT(ptx.ptx, Catch::Contains("dp4a.u32.s32"));  // the top plane's signed bytes
  }
  if (scale != 1) CHECK_THAT(ptx.ptx, Catch::Contains("dp4a.u32.u32"));  // the lower planes'
}

TEST_CASE("a dense matrix compiles on the tensor cores in each of its forms", "[nvrtc]") {
  // Windows on 16-byte boundaries (ldmatrix: a reach of up to 8 bytes) and on 4-byte ones (32-bit
  // loads: 9 to 12 bytes); 1-4 channels, alpha kept (two and four) or filtered; 1 to 9 rows;
  // weights of one sign or both; every border.
  const auto [width, height, channels, straight, border, aligned] =
      GENERATE(table<int, int, int, bool, Border, bool>({
          {3, 3, 1, false, Border::kConstant, true},
          {5, 5, 3, false, Border::kReflect101, true},
          {5, 3, 2, false, Border::kWrap, true},
          {5, 5, 4, false, Border::kClamp, true},
          {9, 9, 3, false, Border::kConstant, false},
          {7, 3, 4, true, Border::kReflect, false},
          {13, 9, 1, false, Border::kClamp, true},
          {3, 9, 4, false, Border::kWrap, true},
      }));
  std::string text;
  for (int j = 0; j < height; ++j) {
    for (int i = 0; i < width; ++i) {
      const int w = (i * 7 + j * 3) % 11 - (channels == 2 ? 0 : 5);
      text += std::to_string(i == 0 && j == 0 ? 100 : i == j ? w + 1 : w) + " ";
    }
    text += ";";
  }
  const FilterSpec spec = matrix_spec(text, channels, border,
                                      straight ? AlphaMode::kStraight : AlphaMode::kPremultiplied);
  CAPTURE(width, height, channels, straight, border_name(border));
  REQUIRE_FALSE(separable_matrix(spec, SampleFormat::k8));
  const GeneratedKernel kernel =
      generate_kernel(spec, KernelVariant::kDenseMma, SampleFormat::k8, 90);
  REQUIRE(kernel.schedule.variant == KernelVariant::kDenseMma);
  const CompiledKernel cubin = compile_kernel(kernel, CompilePlan{Arch{9, 0}, Target::kCubin, ""});
  CHECK(elf_sm(cubin.cubin) == 90);
  const CompiledKernel ptx = compile_kernel(kernel, CompilePlan{Arch{8, 0}, Target::kPtx, ""});
  CHECK_THAT(ptx.ptx, Catch::Contains("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"));
  if (aligned) {
    CHECK_THAT(ptx.ptx, Catch::Contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  } else {
    CHECK_THAT(ptx.ptx, !Catch::Contains("ldmatrix"));
  }
}

TEST_CASE("a matrix of rank one compiles on the tensor cores in each of their forms", "[nvrtc]") {
  // Signed or unsigned column and row; the narrow product's k16 (gray 3x3) and k32 (RGBA 5x5,
  // alpha kept: the inputs loaded) forms, the general one with ready fragments (RGB box 31x31)
  // and with the window table and weights in shared memory (gray box 255x255); every border.
  const auto [text, channels, border] = GENERATE(table<std::string, int, Border>({
      {"-1 0 1; -2 0 2; -1 0 1", 1, Border::kConstant},
      {"-1 -2 -1; 0 0 0; 1 2 1", 4, Border::kConstant},
      {"1 4 6 4 1", 4, Border::kReflect},
      {"", 3, Border::kWrap},
      {"", 1, Border::kReflect101},
  }));
  std::string matrix = text;
  if (matrix.empty()) {  // a box: 31x31 on three channels, 255x255 on one
    const int n = channels == 3 ? 31 : 255;
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) matrix += "1 ";
      matrix += ";";
    }
  }
  const FilterSpec spec = matrix_spec(matrix, channels, border);
  CAPTURE(text, channels, border_name(border), spec.matrix.width);
  const GeneratedKernel kernel = generate_kernel(spec, KernelVariant::kAuto, SampleFormat::k8, 90);
  REQUIRE(kernel.schedule.variant == KernelVariant::kMma);
  CHECK_NOTHROW(compile_kernel(kernel, CompilePlan{Arch{9, 0}, Target::kCubin, ""}));
}

TEST_CASE("the largest tiles compile and fit a block's shared memory", "[nvrtc]") {
  std::string text;
  for (int j = 0; j < 31; ++j) {
    for (int i = 0; i < 31; ++i) text += std::to_string((i * 7 + j * 3) % 11 - 5) + " ";
    text += ";";
  }
  BlurParameters p;
  p.operation = Operation::kMatrix;
  p.matrix = parse_matrix_text(text);
  const FilterSpec spec = make_blur_spec(p, 4);
  for (SampleFormat format : {SampleFormat::k8, SampleFormat::kFloat}) {
    const GeneratedKernel kernel = generate_kernel(spec, KernelVariant::kDense, format);
    CHECK_NOTHROW(compile_kernel(kernel, CompilePlan{Arch{9, 0}, Target::kCubin, ""}));
  }
  // The separable tile: a 31x31 unsharp mask on RGB floats fits at 32 x 8 (40 KiB); a 255x255
  // mask fits no tile, so auto takes the two launches.
  for (int size : {31, 255}) {
    BlurParameters u = test::make_test_parameters(size, size / 6.0);
    u.operation = Operation::kUnsharp;
    const FilterSpec unsharp = make_blur_spec(u, 3);
    const GeneratedKernel kernel = generate_kernel(unsharp, KernelVariant::kAuto, SampleFormat::kFloat);
    CHECK(kernel.schedule.variant == (size == 31 ? KernelVariant::kSeparable : KernelVariant::kGeneral));
    CHECK_NOTHROW(compile_kernel(kernel, CompilePlan{Arch{9, 0}, Target::kCubin, ""}));
  }
}
