// cli.cpp — CLI11 option definitions, help text and validation into a Request.
#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <ostream>
#include <sstream>
#include <vector>

#include "errors.hpp"
#include "png_encode.hpp"
#include "version.hpp"
#include "weights.hpp"

namespace gpublur {
namespace {

constexpr const char* kSizeHelp = R"(Size and sigma:
  --size is the full odd kernel width (OpenCV's ksize; ImageMagick's radius r is --size 2r+1).
  Give either or both. Size from sigma: 2*ceil(3*sigma)+1. Sigma from size (OpenCV's rule):
  0.3*((size-1)*0.5-1)+0.8. --size-y/--sigma-y set the vertical axis by the same rules (default:
  the horizontal one). --verbose prints the values used and the integer taps.
)";

constexpr const char* kMoreHelp = R"(Alpha (gray+alpha and RGBA images):
  premultiplied (default): colours are weighted by their alpha, so the colour hidden under
  transparent pixels never bleeds into visible ones, and fully transparent areas stay fully
  transparent. Each output colour is the alpha-weighted mean of its neighbourhood, from exact
  integer sums.
  straight (--alpha straight): every channel blurred on its own, as OpenCV and SciPy do.
  An image whose pixels are all opaque is blurred the same either way.

Depth:
  16-bit PNG/PNM in and PNG out stay 16-bit; HDR in and .hdr out stay floating-point. Other
  outputs get 8 bits (said with --verbose for 16-bit, with a warning for HDR).

Linear light:
  --linear decodes the sRGB curve to 16-bit linear light, blurs, and encodes again, so bright
  and dark regions mix as light does (no darkened edges).

Devices:
  auto (default) blurs on the first NVIDIA GPU, or on the CPU (saying why on stderr) when there is
  none. The CPU and GPU results are byte-identical.
  The driver takes 45-70 ms to tear a GPU context down at exit. gpublur does its work in a child
  process and exits as soon as the output is written, leaving that child to release the GPU
  unwaited (not on a GPU in an exclusive compute mode; --no-detach waits).

Exit codes:
  0 success, 1 runtime error (file, GPU, compiler), 2 usage error.

Examples:
  gpublur in.png out.png --size 7 --sigma 1.5
  gpublur in.png out.png --sigma 3 --border reflect101
  gpublur in.png out.png --size 7 --target ptx --dump-ptx kernel.ptx
  gpublur --arch sm_90 --size 7 --sigma 1.5 --dump-ptx -      (no image or GPU needed)
)";

// "Borders (...):" and one line per mode, from the border's own name table.
std::string border_help() {
  std::string s = "Borders (the row abcd extended to the left):\n";
  for (const auto& entry : kBorderNames.entries) {
    std::string name(entry.name);
    name.resize(12, ' ');
    s += "  " + name + std::string(entry.help) + "\n";
  }
  return s;
}

// "a: what a does; b: what b does" for an option's description.
template <typename Enum, std::size_t N>
std::string choices_help(const NameTable<Enum, N>& table) {
  std::string s;
  for (const auto& entry : table.entries) {
    s += (s.empty() ? "" : "; ") + std::string(entry.name) + ": " + std::string(entry.help);
  }
  return s;
}

// Parses an enum option by its name table: the value becomes the enum's number, which CLI11 then
// converts; anything else is a one-line parse error listing the choices.
template <typename Enum, std::size_t N>
CLI::Validator choice_of(const NameTable<Enum, N>& table) {
  return CLI::Validator(
      [&table](std::string& value) -> std::string {
        const std::optional<Enum> parsed = table.parse(value);
        if (!parsed) return "unknown value '" + value + "'; choose one of " + table.choices(", ");
        value = std::to_string(static_cast<int>(*parsed));
        return {};
      },
      "");
}

template <typename Enum, std::size_t N>
CLI::Option* add_choice(CLI::App& app, const std::string& flag, Enum& value,
                        const NameTable<Enum, N>& table, const std::string& description) {
  return app.add_option(flag, value, description)
      ->transform(choice_of(table))
      ->type_name(table.choices("|"))
      ->default_str(std::string(table.name(value)));
}

// Values that are checked after parsing (they need each other, or a hint), as given.
struct Given {
  std::optional<int> size, size_y;
  std::optional<double> sigma, sigma_y;
  std::vector<int> border_value;
  std::string arch;
};

// What to blur and how: images, kernel size, borders.
void define_blur_options(CLI::App& app, Request& r, Given& g) {
  app.add_option("input", r.input, "Image to blur (PNG, JPEG, BMP, TGA, PNM, GIF, PSD, HDR)");
  app.add_option("output", r.output,
                 "Where to write the result; format from the extension "
                 "(.png .jpg .jpeg .bmp .tga .hdr)");
  app.add_option("--size", g.size, "Kernel width in pixels, odd (e.g. 7)");
  app.add_option("--sigma", g.sigma, "Gaussian standard deviation in pixels, > 0 (e.g. 1.5)");
  app.add_option("--size-y", g.size_y, "Vertical kernel size, if it differs from --size");
  app.add_option("--sigma-y", g.sigma_y, "Vertical sigma, if it differs from --sigma");
  app.add_flag("--linear", r.blur.linear,
               "Blur in linear light: decode sRGB first, encode after (alpha untouched)");
  add_choice(app, "--alpha", r.blur.alpha, kAlphaNames,
             "Alpha channel: " + choices_help(kAlphaNames));
  add_choice(app, "--border", r.blur.border, kBorderNames,
             "Border mode: " + kBorderNames.choices("|") + " (pictures below)");
  app.add_option(
         "--border-value", g.border_value,
         "Constant border value 0..255, one for all channels or one per channel (0,0,0,255)")
      ->delimiter(',');
}

// Where it runs and what gets compiled and shown.
void define_gpu_options(CLI::App& app, Request& r, Given& g) {
  add_choice(app, "--device", r.device, kDeviceNames,
             "Where to blur: " + choices_help(kDeviceNames));
  add_choice(app, "--target", r.target, kTargetNames, "GPU code: " + choices_help(kTargetNames));
  app.add_option("--arch", g.arch,
                 "Compile for this architecture (sm_75 ... sm_120) instead of the GPU's");
  add_choice(app, "--kernel", r.kernel, kVariantNames,
             "GPU kernel: " + choices_help(kVariantNames) + ". All give the same bytes");
  app.add_flag("--no-detach", r.no_detach,
               "Exit only once the GPU is released (45-70 ms after the output is written)");
  app.add_option("--dump-ptx", r.dump_ptx,
                 "Write the PTX that ran to FILE (default or '-': stdout)")
      ->expected(0, 1);
  app.add_option("--dump-source", r.dump_source,
                 "Write the generated CUDA C++ to FILE (default or '-': stdout)")
      ->expected(0, 1);
  app.add_option("--channels", r.channels,
                 "Channel count to compile for when no input image is given")
      ->default_str("3");
}

// Output encoding, caching and reporting.
void define_output_options(CLI::App& app, Request& r) {
  app.add_option("--png-level", r.write.png_level,
                 "PNG compression 0..9 (zlib on all cores; 1 fastest, 9 smallest)")
      ->default_str(std::to_string(r.write.png_level));
  app.add_option("--jpeg-quality", r.write.jpeg_quality, "JPEG quality 1..100")
      ->default_str(std::to_string(r.write.jpeg_quality));
  app.add_flag("--no-cache", r.no_cache, "Compile the kernel even if the kernel cache has it");
  app.add_option("--cache-dir", r.cache_dir,
                 "Kernel cache directory (default: $GPUBLUR_CACHE_DIR, $XDG_CACHE_HOME/gpublur or "
                 "~/.cache/gpublur)");
  app.add_flag("--timings", r.timings, "Print the wall time of each stage on stderr");
  app.add_flag("--json", r.json,
               "Print parameters, device, image facts and timings as JSON on stdout");
  app.add_flag("-v,--verbose", r.verbose, "Say what was used: sizes, taps, device, compile target");
}

// Checks one axis' --size/--sigma pair (flags named with `suffix`, "" or "-y").
void validate_axis(const std::optional<int>& size, const std::optional<double>& sigma,
                   const std::string& suffix) {
  const std::string size_flag = "--size" + suffix, sigma_flag = "--sigma" + suffix;
  if (size && (*size < 1 || *size % 2 == 0 || *size > kMaxKernelSize)) {
    const int s = *size;
    const std::string hint = s >= 1 && s % 2 == 0 && s < kMaxKernelSize
                                 ? "; try " + size_flag + " " + std::to_string(s - 1) + " or " +
                                       size_flag + " " + std::to_string(s + 1)
                                 : "; e.g. " + size_flag + " 7";
    throw UsageError(size_flag + " must be an odd number from 1 to " +
                     std::to_string(kMaxKernelSize) + " (got " + std::to_string(s) + ")" + hint);
  }
  if (sigma && !(std::isfinite(*sigma) && *sigma > 0)) {
    std::ostringstream got;
    got << *sigma;
    throw UsageError(sigma_flag + " must be a finite number > 0 (got " + got.str() + "); e.g. " +
                     sigma_flag + " 1.5");
  }
  if (!size && sigma && *sigma > (kMaxKernelSize - 1) / 6.0) {
    throw UsageError(sigma_flag + " " + std::to_string(*sigma) +
                     " would need a kernel wider than " + std::to_string(kMaxKernelSize) +
                     "; give a smaller " + sigma_flag + " or an explicit " + size_flag);
  }
}

// Applies "size from sigma: 2*ceil(3*sigma)+1" / "sigma from size: OpenCV's rule" to one axis.
AxisSize resolve_axis(const std::optional<int>& size, const std::optional<double>& sigma) {
  if (size && sigma) return {*size, *sigma, "size and sigma as given"};
  if (size) {
    return {*size, sigma_for_size(*size),
            "sigma from size by OpenCV's rule 0.3*((size-1)*0.5-1)+0.8"};
  }
  return {size_for_sigma(*sigma), *sigma, "size from sigma by 2*ceil(3*sigma)+1"};
}

// The vertical axis copies the horizontal unless --size-y or --sigma-y is given.
KernelSize resolve_kernel_size(const Given& g) {
  validate_axis(g.size, g.sigma, "");
  validate_axis(g.size_y, g.sigma_y, "-y");
  if (!g.size && !g.sigma) {
    throw UsageError("give --size, --sigma or both; e.g. --size 7 --sigma 1.5");
  }
  const AxisSize x = resolve_axis(g.size, g.sigma);
  if (!g.size_y && !g.sigma_y) return {x, x};
  return {x, resolve_axis(g.size_y, g.sigma_y)};
}

std::array<std::uint8_t, 4> border_value_of(const std::vector<int>& values) {
  if (values.empty()) return {};
  if (values.size() > 4) {
    throw UsageError("--border-value takes 1 to 4 values, e.g. 0 or 0,0,0,255");
  }
  std::array<std::uint8_t, 4> out{};
  for (std::size_t c = 0; c < 4; ++c) {
    const int v = values.size() == 1 ? values[0] : (c < values.size() ? values[c] : 0);
    if (v < 0 || v > 255) {
      throw UsageError("--border-value must be 0..255 (got " + std::to_string(v) + ")");
    }
    out[c] = static_cast<std::uint8_t>(v);
  }
  return out;
}

// What the images and dumps on the command line ask for.
Request::Action action_of(const Request& r) {
  const bool dumping = r.dump_ptx || r.dump_source;
  if (r.input.empty() && !dumping) {
    throw UsageError("missing input and output images; e.g. gpublur in.png out.png --size 7");
  }
  if (!r.input.empty() && r.output.empty() && !dumping) {
    throw UsageError("missing the output image after '" + r.input + "'");
  }
  return r.output.empty() ? Request::Action::kCompile : Request::Action::kBlur;
}

void validate_outputs(const Request& r) {
  if (r.channels < 1 || r.channels > 4) throw UsageError("--channels must be 1 to 4");
  if (r.write.png_level < kMinPngLevel || r.write.png_level > kMaxPngLevel) {
    throw UsageError("--png-level must be " + std::to_string(kMinPngLevel) + " to " +
                     std::to_string(kMaxPngLevel) + " (got " + std::to_string(r.write.png_level) +
                     ")");
  }
  if (r.write.jpeg_quality < 1 || r.write.jpeg_quality > 100) {
    throw UsageError("--jpeg-quality must be 1 to 100 (got " +
                     std::to_string(r.write.jpeg_quality) + ")");
  }
  if (!r.output.empty() && !format_for_path(r.output)) {
    throw UsageError("cannot write '" + r.output +
                     "': unknown extension; use .png, .jpg, .jpeg, .bmp, .tga or .hdr");
  }
  if (r.json && ((r.dump_ptx && *r.dump_ptx == "-") || (r.dump_source && *r.dump_source == "-"))) {
    throw UsageError("--json writes to stdout; send --dump-ptx or --dump-source to a file");
  }
  if (r.dump_ptx && r.device == DeviceChoice::kCpu && !r.arch) {
    throw UsageError(
        "--dump-ptx with --device cpu needs --arch (e.g. --arch sm_90): no GPU to compile for");
  }
}

// Everything CLI11 could not check; fills the fields that need the given values together.
Request validated(Request r, const Given& g) {
  r.blur.size = resolve_kernel_size(g);
  r.blur.border_value = border_value_of(g.border_value);
  if (!g.arch.empty()) {
    r.arch = parse_arch(g.arch);
    if (!r.arch) {
      throw UsageError("--arch: '" + g.arch + "' is not an architecture; write it like sm_90");
    }
  }
  if (r.dump_ptx && r.dump_ptx->empty()) r.dump_ptx = "-";
  if (r.dump_source && r.dump_source->empty()) r.dump_source = "-";
  r.action = action_of(r);
  validate_outputs(r);
  return r;
}

}  // namespace

ParseResult parse_command_line(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err) {
  CLI::App app{
      "gpublur " + std::string(kVersion) +
          " - Gaussian blur on NVIDIA GPUs, with kernels generated and compiled at run time",
      "gpublur"};
  Request r;
  Given g;
  bool version = false;
  define_blur_options(app, r, g);
  define_gpu_options(app, r, g);
  define_output_options(app, r);
  app.add_flag("--version", version, "Print gpublur, NVRTC and driver versions and the GPU");
  app.footer(std::string(kSizeHelp) + "\n" + border_help() + "\n" + kMoreHelp);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return {std::nullopt, kExitOk};
  } catch (const CLI::ParseError& e) {
    err << "gpublur: error: " << e.what() << " (see gpublur --help)\n";
    return {std::nullopt, kExitUsage};
  }
  if (version) {
    r.action = Request::Action::kVersion;
    return {r, kExitOk};
  }
  return {validated(std::move(r), g), kExitOk};
}

}  // namespace gpublur
