// cli.hpp — the command line: parsing with CLI11 into Options, and validating them into
// what the pipeline needs. Usage problems throw UsageError (exit code 2).
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "arch.hpp"
#include "border.hpp"
#include "codegen.hpp"

namespace gpublur {

enum class DeviceChoice { kAuto, kGpu, kCpu };
/// How an alpha channel (the last of gray+alpha and RGBA) takes part in the blur.
enum class AlphaMode { kPremultiplied, kStraight };

struct Options {
  std::string input;   // empty: no image (compile-and-dump only)
  std::string output;  // empty: no image written (dump only)
  std::optional<int> size;
  std::optional<double> sigma;
  std::optional<int> size_y;  // vertical axis; both unset: same as horizontal
  std::optional<double> sigma_y;
  Target target = Target::kCubin;
  KernelVariant kernel = KernelVariant::kAuto;
  std::optional<std::string> dump_ptx;     // "-" is stdout
  std::optional<std::string> dump_source;  // "-" is stdout
  std::optional<Arch> arch;
  DeviceChoice device = DeviceChoice::kAuto;
  Border border = Border::kClamp;
  std::array<std::uint8_t, 4> border_value{};
  int channels = 3;  // for compiling without an input image
  int png_level = 4;
  int jpeg_quality = 95;
  bool linear = false;  // blur in linear light (sRGB decoded first, encoded after)
  AlphaMode alpha = AlphaMode::kPremultiplied;
  bool no_cache = false;
  std::string cache_dir;  // empty: default_cache_dir()
  bool timings = false;
  bool json = false;
  bool verbose = false;
  bool version = false;
  bool no_detach = false;  // wait for the GPU's teardown before exiting (detached_exit.hpp)
};

/// Parses argv. Returns Options to run, or an exit code when parsing ended the program
/// (--help printed to `out`: 0; a CLI11 parse error printed to `err` as one line: 2).
/// Semantic checks are in validate_options, so they can throw UsageError with a hint.
struct ParseResult {
  std::optional<Options> options;
  int exit_code = 0;
};
ParseResult parse_command_line(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err);

/// One axis' effective kernel size and sigma after applying the derivation rules.
struct AxisSize {
  int size = 0;
  double sigma = 0;
  std::string rule;  // how they were obtained, for --verbose
};

struct KernelSize {
  AxisSize x;  // horizontal
  AxisSize y;  // vertical
};

/// Checks everything the CLI11 layer cannot (odd size, finite sigma, known extension, ...).
/// Throws UsageError saying what to do instead.
void validate_options(const Options& options);

/// Applies "size from sigma: 2*ceil(3*sigma)+1" / "sigma from size: OpenCV's rule" per axis;
/// the vertical axis copies the horizontal unless --size-y or --sigma-y is given.
KernelSize resolve_kernel_size(const Options& options);

}  // namespace gpublur
