// cli.cpp — CLI11 option definitions, help text and validation.
#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <ostream>
#include <sstream>

#include "errors.hpp"
#include "image_io.hpp"
#include "png_encode.hpp"
#include "version.hpp"
#include "weights.hpp"

namespace gpublur {
namespace {

constexpr const char* kFooter = R"(Size and sigma:
  --size is the full odd kernel width (OpenCV's ksize; ImageMagick's radius r is --size 2r+1).
  Give either or both. Size from sigma: 2*ceil(3*sigma)+1. Sigma from size (OpenCV's rule):
  0.3*((size-1)*0.5-1)+0.8. --size-y/--sigma-y set the vertical axis by the same rules (default:
  the horizontal one). --verbose prints the values used and the integer taps.

Borders (the row abcd extended to the left):
  clamp       aaa|abcd   default; OpenCV BORDER_REPLICATE, SciPy 'nearest', ImageMagick, vips
  reflect     cba|abcd   OpenCV BORDER_REFLECT, SciPy 'reflect'
  reflect101  dcb|abcd   OpenCV BORDER_REFLECT_101 (OpenCV's default), SciPy 'mirror'
  wrap        bcd|abcd   OpenCV BORDER_WRAP, SciPy 'wrap'
  constant    vvv|abcd   OpenCV BORDER_CONSTANT, SciPy 'constant'; v from --border-value

Alpha (gray+alpha and RGBA images):
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

std::string describe_list(std::initializer_list<const char*> names) {
  std::string s;
  for (const char* n : names) s += (s.empty() ? "" : "|") + std::string(n);
  return s;
}

// Option values that need checking after parsing, kept as text until then.
struct RawChoices {
  std::string target = "cubin";
  std::string device = "auto";
  std::string border = "clamp";
  std::string kernel = "auto";
  std::string alpha = "premultiplied";
  std::string arch;
  std::vector<int> border_value;
};

// What to blur and how: images, kernel size, borders.
void define_blur_options(CLI::App& app, Options& o, RawChoices& raw) {
  app.add_option("input", o.input, "Image to blur (PNG, JPEG, BMP, TGA, PNM, GIF, PSD, HDR)");
  app.add_option("output", o.output,
                 "Where to write the result; format from the extension "
                 "(.png .jpg .jpeg .bmp .tga .hdr)");
  app.add_option("--size", o.size, "Kernel width in pixels, odd (e.g. 7)");
  app.add_option("--sigma", o.sigma, "Gaussian standard deviation in pixels, > 0 (e.g. 1.5)");
  app.add_option("--size-y", o.size_y, "Vertical kernel size, if it differs from --size");
  app.add_flag("--linear", o.linear,
               "Blur in linear light: decode sRGB first, encode after (alpha untouched)");
  app.add_option("--alpha", raw.alpha,
                 "Alpha channel: premultiplied (colours weighted by alpha) or straight")
      ->default_str("premultiplied");
  app.add_option("--sigma-y", o.sigma_y, "Vertical sigma, if it differs from --sigma");
  app.add_option(
         "--border", raw.border,
         "Border mode: " + describe_list({"clamp", "reflect", "reflect101", "wrap", "constant"}))
      ->default_str("clamp");
  app.add_option(
         "--border-value", raw.border_value,
         "Constant border value 0..255, one for all channels or one per channel (0,0,0,255)")
      ->delimiter(',');
}

// Where it runs and what gets compiled and shown.
void define_gpu_options(CLI::App& app, Options& o, RawChoices& raw) {
  app.add_option("--device", raw.device, "Where to blur: auto|gpu|cpu")->default_str("auto");
  app.add_option("--target", raw.target,
                 "GPU code: cubin (compiled for the GPU) or ptx (JIT by the driver)")
      ->default_str("cubin");
  app.add_option("--arch", raw.arch,
                 "Compile for this architecture (sm_75 ... sm_120) instead of the GPU's");
  app.add_option(
         "--kernel", raw.kernel,
         "GPU kernel: auto (fastest that applies), mma (tensor cores, sm_80+), tiled, wide, naive "
         "(the seed's 2-D loop), or "
         "general (two passes; the one for 16-bit, HDR and premultiplied blurs)")
      ->default_str("auto");
  app.add_flag("--no-detach", o.no_detach,
               "Exit only once the GPU is released (45-70 ms after the output is written)");
  app.add_option("--dump-ptx", o.dump_ptx,
                 "Write the PTX that ran to FILE (default or '-': stdout)")
      ->expected(0, 1);
  app.add_option("--dump-source", o.dump_source,
                 "Write the generated CUDA C++ to FILE (default or '-': stdout)")
      ->expected(0, 1);
  app.add_option("--channels", o.channels,
                 "Channel count to compile for when no input image is given")
      ->default_str("3");
}

// Output encoding, caching and reporting.
void define_output_options(CLI::App& app, Options& o) {
  app.add_option("--png-level", o.png_level,
                 "PNG compression 0..9 (zlib on all cores; 1 fastest, 9 smallest)")
      ->default_str("4");
  app.add_option("--jpeg-quality", o.jpeg_quality, "JPEG quality 1..100")->default_str("95");
  app.add_flag("--no-cache", o.no_cache, "Compile the kernel even if the kernel cache has it");
  app.add_option("--cache-dir", o.cache_dir,
                 "Kernel cache directory (default: $GPUBLUR_CACHE_DIR, $XDG_CACHE_HOME/gpublur or "
                 "~/.cache/gpublur)");
  app.add_flag("--timings", o.timings, "Print the wall time of each stage on stderr");
  app.add_flag("--json", o.json,
               "Print parameters, device, image facts and timings as JSON on stdout");
  app.add_flag("-v,--verbose", o.verbose, "Say what was used: sizes, taps, device, compile target");
  app.add_flag("--version", o.version, "Print gpublur, NVRTC and driver versions and the GPU");
}

void define_options(CLI::App& app, Options& o, RawChoices& raw) {
  define_blur_options(app, o, raw);
  define_gpu_options(app, o, raw);
  define_output_options(app, o);
  app.footer(kFooter);
}

template <typename T>
T parse_choice(const std::string& flag, const std::string& value, std::optional<T> parsed,
               const char* choices) {
  if (!parsed) throw UsageError(flag + ": unknown value '" + value + "'; choose one of " + choices);
  return *parsed;
}

std::optional<DeviceChoice> parse_device(const std::string& s) {
  if (s == "auto") return DeviceChoice::kAuto;
  if (s == "gpu") return DeviceChoice::kGpu;
  if (s == "cpu") return DeviceChoice::kCpu;
  return std::nullopt;
}

std::array<std::uint8_t, 4> parse_border_value(const std::vector<int>& values) {
  if (values.empty()) return {};
  if (values.size() > 4)
    throw UsageError("--border-value takes 1 to 4 values, e.g. 0 or 0,0,0,255");
  std::array<std::uint8_t, 4> out{};
  for (std::size_t c = 0; c < 4; ++c) {
    const int v = values.size() == 1 ? values[0] : (c < values.size() ? values[c] : 0);
    if (v < 0 || v > 255)
      throw UsageError("--border-value must be 0..255 (got " + std::to_string(v) + ")");
    out[c] = static_cast<std::uint8_t>(v);
  }
  return out;
}

// Finishes parsing: string choices to enums. Throws UsageError.
void apply_choices(Options& o, const RawChoices& raw) {
  o.target = parse_choice("--target", raw.target, parse_target(raw.target), "cubin, ptx");
  o.device = parse_choice("--device", raw.device, parse_device(raw.device), "auto, gpu, cpu");
  o.border = parse_choice("--border", raw.border, kBorderNames.parse(raw.border),
                          "clamp, reflect, reflect101, wrap, constant");
  o.kernel = parse_choice("--kernel", raw.kernel, kVariantNames.parse(raw.kernel),
                          "auto, mma, tiled, wide, naive, general");
  const std::optional<AlphaMode> alpha =
      raw.alpha == "premultiplied" ? std::optional(AlphaMode::kPremultiplied)
      : raw.alpha == "straight"    ? std::optional(AlphaMode::kStraight)
                                   : std::nullopt;
  o.alpha = parse_choice("--alpha", raw.alpha, alpha, "premultiplied, straight");
  if (!raw.arch.empty()) {
    o.arch = parse_arch(raw.arch);
    if (!o.arch) {
      throw UsageError("--arch: '" + raw.arch + "' is not an architecture; write it like sm_90");
    }
  }
  o.border_value = parse_border_value(raw.border_value);
  if (o.dump_ptx && o.dump_ptx->empty()) o.dump_ptx = "-";
  if (o.dump_source && o.dump_source->empty()) o.dump_source = "-";
}

}  // namespace

ParseResult parse_command_line(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err) {
  CLI::App app{
      "gpublur " + std::string(kVersion) +
          " - Gaussian blur on NVIDIA GPUs, with kernels generated and compiled at run time",
      "gpublur"};
  Options o;
  RawChoices raw;
  define_options(app, o, raw);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return {std::nullopt, kExitOk};
  } catch (const CLI::ParseError& e) {
    err << "gpublur: error: " << e.what() << " (see gpublur --help)\n";
    return {std::nullopt, kExitUsage};
  }
  apply_choices(o, raw);
  return {o, kExitOk};
}

namespace {

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

AxisSize resolve_axis(const std::optional<int>& size, const std::optional<double>& sigma) {
  if (size && sigma) return {*size, *sigma, "size and sigma as given"};
  if (size) {
    return {*size, sigma_for_size(*size),
            "sigma from size by OpenCV's rule 0.3*((size-1)*0.5-1)+0.8"};
  }
  return {size_for_sigma(*sigma), *sigma, "size from sigma by 2*ceil(3*sigma)+1"};
}

}  // namespace

void validate_options(const Options& o) {
  if (o.version) return;
  validate_axis(o.size, o.sigma, "");
  validate_axis(o.size_y, o.sigma_y, "-y");
  if (!o.size && !o.sigma) {
    throw UsageError("give --size, --sigma or both; e.g. --size 7 --sigma 1.5");
  }
  if (o.channels < 1 || o.channels > 4) throw UsageError("--channels must be 1 to 4");
  if (o.png_level < kMinPngLevel || o.png_level > kMaxPngLevel) {
    throw UsageError("--png-level must be " + std::to_string(kMinPngLevel) + " to " +
                     std::to_string(kMaxPngLevel) + " (got " + std::to_string(o.png_level) + ")");
  }
  if (o.jpeg_quality < 1 || o.jpeg_quality > 100) {
    throw UsageError("--jpeg-quality must be 1 to 100 (got " + std::to_string(o.jpeg_quality) +
                     ")");
  }
  const bool dumping = o.dump_ptx || o.dump_source;
  if (o.input.empty() && !dumping) {
    throw UsageError("missing input and output images; e.g. gpublur in.png out.png --size 7");
  }
  if (!o.input.empty() && o.output.empty() && !dumping) {
    throw UsageError("missing the output image after '" + o.input + "'");
  }
  if (!o.output.empty() && !format_for_path(o.output)) {
    throw UsageError("cannot write '" + o.output +
                     "': unknown extension; use .png, .jpg, .jpeg, .bmp, .tga or .hdr");
  }
  if (o.json && ((o.dump_ptx && *o.dump_ptx == "-") || (o.dump_source && *o.dump_source == "-"))) {
    throw UsageError("--json writes to stdout; send --dump-ptx or --dump-source to a file");
  }
  if (o.dump_ptx && o.device == DeviceChoice::kCpu && !o.arch) {
    throw UsageError(
        "--dump-ptx with --device cpu needs --arch (e.g. --arch sm_90): no GPU to compile for");
  }
}

KernelSize resolve_kernel_size(const Options& o) {
  const AxisSize x = resolve_axis(o.size, o.sigma);
  if (!o.size_y && !o.sigma_y) return {x, x};
  return {x, resolve_axis(o.size_y, o.sigma_y)};
}

}  // namespace gpublur
