// operation_options.cpp — the operation's options, their checks and their help.
#include "app/operation_options.hpp"

#include <cmath>
#include <string_view>

#include "app/cli_choices.hpp"
#include "base/errors.hpp"
#include "base/number_text.hpp"
#include "base/regular_file.hpp"
#include "ops/weights.hpp"

namespace gpublur {
namespace {

// A matrix file is a few kilobytes; 255x255 long decimals stay far below this.
constexpr std::size_t kMaxMatrixFileBytes = 4 << 20;

constexpr const char* kOperationHelp = R"(Operations (one a command):
  Gaussian blur (default): --size, --sigma or both.
  Convolution matrix: --matrix "ROWS" or --matrix @FILE. Rows are separated by ';' or newlines,
  values by spaces or commas; the width and height are odd, up to 31x31, or 255x255 for a matrix
  of rank one (a box, a binomial, Sobel), which runs as two 1-D passes (-v says which). The
  matrix is centred on each pixel and not flipped (correlation, as OpenCV's filter2D and libvips
  compute it; for ImageMagick's -morphology Convolve, give it rotated 180 degrees). Each output
  is clamp(round(sum(w*p) / D + O)), halves away from zero, exact for decimals (past the sums'
  bounds: fixed point, within 1 LSB): --divisor D (default: the sum of the values, or 1 where
  they sum to 0), --offset O (default 0; in the image's own levels). @FILE is libvips' matrix
  format: a first line WIDTH HEIGHT [SCALE [OFFSET]] (SCALE the divisor), then the rows.
  Unsharp mask: --unsharp AMOUNT[,THRESHOLD] with --size/--sigma for its Gaussian:
  out = in + AMOUNT*(in - blur) where |in - blur| > THRESHOLD, else in. AMOUNT 0 to 10, THRESHOLD
  in levels of the image's depth (default 0); within 1 LSB of the same in float64.
  gpublur in.png edges.png --matrix "-1 -1 -1; -1 8 -1; -1 -1 -1"
  gpublur in.png sobel.png --matrix "-1 0 1; -2 0 2; -1 0 1" --offset 128
  gpublur in.png sharp.png --unsharp 1.5 --sigma 2

)";

constexpr const char* kSizeHelp = R"(Size and sigma:
  --size is the full odd kernel width (OpenCV's ksize; ImageMagick's radius r is --size 2r+1).
  Give either or both. Size from sigma: 2*ceil(3*sigma)+1. Sigma from size (OpenCV's rule):
  0.3*((size-1)*0.5-1)+0.8. --size-y/--sigma-y set the vertical axis by the same rules (default:
  the horizontal one). --verbose prints the values used and the integer taps.
)";

constexpr const char* kAlphaHelp = R"(Alpha (gray+alpha and RGBA images):
  premultiplied (default): colours are weighted by their alpha, so the colour hidden under
  transparent pixels never bleeds into visible ones, and fully transparent areas stay fully
  transparent. Each output colour is the alpha-weighted mean of its neighbourhood, from exact
  integer sums. An image whose pixels are all opaque is blurred the same either way.
  --matrix and --unsharp keep alpha as it is and filter the colours.
  straight (--alpha straight): every channel filtered on its own, alpha too, as OpenCV and SciPy
  do.
)";

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
    throw UsageError(sigma_flag + " must be a finite number > 0 (got " + number_text(*sigma) +
                     "); e.g. " + sigma_flag + " 1.5");
  }
  if (!size && sigma && *sigma > (kMaxKernelSize - 1) / 6.0) {
    throw UsageError(sigma_flag + " " + number_text(*sigma) + " would need a kernel wider than " +
                     std::to_string(kMaxKernelSize) + "; give a smaller " + sigma_flag +
                     " or an explicit " + size_flag);
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

}  // namespace

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

KernelSize resolve_kernel_size(const std::optional<int>& size, const std::optional<double>& sigma,
                               const std::optional<int>& size_y,
                               const std::optional<double>& sigma_y) {
  validate_axis(size, sigma, "");
  validate_axis(size_y, sigma_y, "-y");
  if (!size && !sigma) throw UsageError("give --size, --sigma or both; e.g. --size 7 --sigma 1.5");
  const AxisSize x = resolve_axis(size, sigma);
  if (!size_y && !sigma_y) return {x, x};  // the vertical axis copies the horizontal
  return {x, resolve_axis(size_y, sigma_y)};
}

MatrixParameters matrix_option(const std::string& value) {
  if (value.empty() || value[0] != '@') return parse_matrix_text(value);
  const std::string path = value.substr(1);
  const std::optional<FileStart> file = read_regular_file(path, kMaxMatrixFileBytes);
  if (!file) throw UsageError("--matrix @" + path + ": cannot read it as a regular file");
  if (!file->whole) {
    throw UsageError("--matrix @" + path + ": larger than " +
                     std::to_string(kMaxMatrixFileBytes >> 20) + " MiB; a matrix file is smaller");
  }
  const std::string text(file->bytes.begin(), file->bytes.end());
  return parse_matrix_file(text, path);
}

UnsharpParameters unsharp_option(const std::string& value) {
  const std::size_t comma = value.find(',');
  const auto number = [&](std::string_view text, const char* name) {
    std::string why;
    const std::optional<Decimal> d = parse_decimal(text, &why);
    if (!d) {
      throw UsageError("--unsharp: " + std::string(name) + " '" + std::string(text) + "' is " +
                       why + "; write AMOUNT[,THRESHOLD], e.g. --unsharp 1.5 or 1.5,3");
    }
    return d->value();
  };
  UnsharpParameters p;
  p.amount = number(std::string_view(value).substr(0, comma), "AMOUNT");
  if (comma != std::string::npos) {
    p.threshold = number(std::string_view(value).substr(comma + 1), "THRESHOLD");
  }
  check_unsharp(p, "--unsharp");
  return p;
}

void define_operation_options(CLI::App& app, BlurParameters& blur, OperationGiven& g) {
  app.add_option("--size", g.size, "Kernel width in pixels, odd (e.g. 7)");
  app.add_option("--sigma", g.sigma, "Gaussian standard deviation in pixels, > 0 (e.g. 1.5)");
  app.add_option("--size-y", g.size_y, "Vertical kernel size, if it differs from --size");
  app.add_option("--sigma-y", g.sigma_y, "Vertical sigma, if it differs from --sigma");
  app.add_option("--matrix", g.matrix,
                 "Convolve with this matrix instead of blurring: rows by ';', values by spaces "
                 "(\"1 2 1; 2 4 2; 1 2 1\"), or @FILE (libvips' matrix file); below")
      ->type_name("ROWS|@FILE");
  app.add_option("--divisor", g.divisor,
                 "--matrix: divide the sums by D (default: the values' sum, or 1 where it is 0)")
      ->type_name("D");
  app.add_option("--offset", g.offset, "--matrix: add O after dividing (default 0)")
      ->type_name("O");
  app.add_option("--unsharp", g.unsharp,
                 "Sharpen instead of blurring: out = in + AMOUNT x (in - blur) where |in - blur| > "
                 "THRESHOLD; the blur is --size/--sigma's Gaussian")
      ->type_name("AMOUNT[,THRESHOLD]");
  app.add_flag("--linear", blur.linear,
               "Filter in linear light: decode sRGB first, encode after (alpha untouched)");
  cli::add_choice(app, "--alpha", blur.alpha, kAlphaNames,
                  "Alpha channel: " + cli::choices_help(kAlphaNames));
  cli::add_choice(app, "--border", blur.border, kBorderNames,
                  "Border mode: " + kBorderNames.choices("|") + " (pictures below)");
  app.add_option(
         "--border-value", g.border_value,
         "Constant border value 0..255, one for all channels or one per channel (0,0,0,255)")
      ->delimiter(',');
}

void validate_operation(BlurParameters& blur, const OperationGiven& g) {
  blur.border_value = border_value_of(g.border_value);
  if (g.matrix && g.unsharp) {
    throw UsageError("--matrix and --unsharp are two operations; give one of them");
  }
  if (!g.matrix && (g.divisor || g.offset)) {
    throw UsageError(std::string(g.divisor ? "--divisor" : "--offset") +
                     " goes with --matrix; e.g. --matrix \"1 2 1; 2 4 2; 1 2 1\" --divisor 16");
  }
  if (!g.matrix) {
    blur.size = resolve_kernel_size(g.size, g.sigma, g.size_y, g.sigma_y);
    if (g.unsharp) {
      blur.operation = Operation::kUnsharp;
      blur.unsharp = unsharp_option(*g.unsharp);
    }
    return;
  }
  if (g.size || g.sigma || g.size_y || g.sigma_y) {
    throw UsageError("--matrix takes its size from the matrix; leave out --size and --sigma");
  }
  blur.operation = Operation::kMatrix;
  blur.matrix = matrix_option(*g.matrix);
  const auto decimal = [](const std::string& text, const char* flag) {
    std::string why;
    const std::optional<Decimal> d = parse_decimal(text, &why);
    if (!d) {
      throw UsageError(std::string(flag) + ": '" + text + "' is " + why + "; e.g. " + flag + " 16");
    }
    return *d;
  };
  if (g.divisor) {
    blur.matrix.divisor = decimal(*g.divisor, "--divisor");
    blur.matrix.divisor_from = "--divisor";
  }
  if (g.offset) blur.matrix.offset = decimal(*g.offset, "--offset");
  make_matrix_numbers(blur.matrix);  // its refusals (a zero divisor, the bounds) now, not per image
}

std::string operation_help() {
  std::string borders = "Borders (the row abcd extended to the left):\n";
  for (const auto& entry : kBorderNames.entries) {
    std::string name(entry.name);
    name.resize(12, ' ');
    borders += "  " + name + std::string(entry.help) + "\n";
  }
  return std::string(kOperationHelp) + kSizeHelp + "\n" + borders + "\n" + kAlphaHelp;
}

}  // namespace gpublur
