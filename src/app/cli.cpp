// cli.cpp — CLI11 option definitions, help text and validation into a Request.
#include "app/cli.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <ostream>
#include <sstream>
#include <vector>

#include "app/cli_choices.hpp"
#include "app/operation_options.hpp"
#include "base/errors.hpp"
#include "base/standard_output.hpp"
#include "base/version.hpp"
#include "batch/job_plan.hpp"
#include "batch/shard.hpp"
#include "codecs/codec_registry.hpp"
#include "codecs/encode_options.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_format.hpp"

namespace gpublur {
namespace {

using cli::add_choice;
using cli::choices_help;

// Threads the pipeline may be given: more are refused, since oneTBB aborts the process (134) when
// it cannot create one (100000 did), and a count that large would not make a batch faster.
constexpr unsigned kMaxThreads = 1024;

constexpr const char* kMoreHelp = R"(Depth:
  16-bit PNG, TIFF and PNM in and PNG, TIFF or PNM out stay 16-bit; HDR in and .hdr out stay
  floating-point. Other outputs get 8 bits (said with --verbose for 16-bit, with a warning for
  HDR).

Linear light:
  --linear decodes the sRGB curve to 16-bit linear light, blurs, and encodes again, so bright
  and dark regions mix as light does (no darkened edges).

Devices:
  auto (default) blurs on the first NVIDIA GPU, or on the CPU (saying why on stderr) when there is
  none. The CPU and GPU results are byte-identical.
  The driver takes 45-70 ms to tear a GPU context down at exit. gpublur does its work in a child
  process and exits as soon as the output is written, leaving that child to release the GPU
  unwaited (not on a GPU in an exclusive compute mode; --no-detach waits).

Batches (gpublur IN... -o DIR):
  Inputs are files and directories (their images; --recursive: below them too) and the paths
  --from-list names. A file goes to DIR/its name; a directory's images to DIR/their path below it,
  as listed: a symbolic link found there is read through and its output named by the link (-P
  skips such links), so every output lies inside DIR. DIR itself is never listed as an input.
  Each output keeps its input's format unless --format says otherwise. Two inputs that would
  write one output, or an output that would replace its input, stop the command before it starts.
  One process decodes and encodes on every core, blurs on the GPU (images of one shape stacked
  into one launch) and writes each output atomically: a file that cannot be read or written is
  reported on one line and the rest goes on (a message repeated word for word is said once, with
  its count at the end; no GPU for --device gpu or --codec gpu is one error before any work). A
  progress line shows on a terminal (not with --quiet); --json writes a line per file and a
  summary. --skip-existing resumes a batch.
  Ctrl-C or SIGTERM stops it at once, cleanly (a read waiting on a pipe or FIFO gives up):
  finished files are whole, no temporary file is left.

Outputs:
  A regular file is replaced atomically (a temporary beside it, renamed); a symbolic link is
  written through (its target replaced so, the link kept); a character device (/dev/null) or FIFO
  is written into; block devices and sockets are refused. An output that is its own input is
  refused (exit 2).
)";

constexpr const char* kLastHelp = R"(Metadata:
  ICC profiles, EXIF, XMP and pixel density are copied to the output where its format holds
  them (--verbose says what was not kept); --strip writes none.

Limits:
  An image's size is checked before any pixels are decoded: at most 65535 pixels a side,
  --max-pixels pixels (default 134217728, 2^27: 11585 x 11585) and --max-bytes bytes of decoded
  samples (default 1073741824, 1 GiB: width x height x channels x bytes a sample). A file whose
  header claims more than its data can hold is refused as truncated, a JPEG of more than 100
  scans (progressive files have about 10) as damaged. A file's first bytes are read alone: one
  that is no image is refused before the rest is read. A pipe or device is read up to
  --max-bytes plus 64 MiB, a --from-list file up to 64 MiB.

Exit codes:
  0 success, 1 runtime error (file, GPU, compiler; in a batch: some file failed),
  2 usage error, 130, 143 or 129 stopped by SIGINT, SIGTERM or SIGHUP (one signal stops a
  single image too, even one waiting on its input), 141 standard output closed by its reader
  (gpublur ... --json | head); a write to standard output that fails otherwise (a full disk) is
  a runtime error, 1. Either stops a batch there, cleanly.

Examples:
  gpublur in.png out.png --size 7 --sigma 1.5
  gpublur in.png out.png --sigma 3 --border reflect101
  gpublur in.png edges.png --matrix "-1 -1 -1; -1 8 -1; -1 -1 -1"
  gpublur in.png sharp.png --unsharp 1.5,2 --sigma 2
  gpublur photos/ -o blurred/ --recursive --sigma 2
  gpublur a.jpg b.png -o out/ --format webp --sigma 2
  curl -s https://example.com/x.jpg | gpublur - - --format png --sigma 2 > x.png
  gpublur in.png out.png --size 7 --target ptx --dump-ptx kernel.ptx
  gpublur --arch sm_90 --size 7 --sigma 1.5 --dump-ptx -      (no image or GPU needed)
)";

// `text` as lines of at most 96 columns, each indented by two spaces, as the help's other
// paragraphs are wrapped by hand.
std::string wrapped(const std::string& text) {
  std::istringstream words(text);
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > 96) out += line + "\n", line.clear();
    line += (line.empty() ? "  " : " ") + word;
  }
  return out + line + "\n";
}

// "Formats:", from the codecs' registry: what is read, and what written.
std::string formats_help() {
  std::string reads, writes;
  for (const Codec& codec : codecs()) {
    reads +=
        (reads.empty() ? "" : ", ") + std::string(codec.reads.empty() ? codec.label : codec.reads);
    if (!codec.traits.writable) continue;
    writes += (writes.empty() ? "" : " ") +
              std::string(codec.writes.empty() ? default_extension(codec.format) : codec.writes);
  }
  return "Formats:\n" + wrapped("Read (by content, not name): " + reads +
                                ". Written (by extension, or --format): " + writes +
                                ". '-' as input reads stdin; as output writes stdout (needs "
                                "--format).");
}

// "png, jpg, webp, ...": the extensions --format takes, one per format written.
std::string writable_names() {
  std::string s;
  for (const ImageFormat format : formats_where(&FormatTraits::writable)) {
    s += (s.empty() ? "" : ", ") + std::string(default_extension(format).substr(1));
  }
  return s;
}

// Values that are checked after parsing (they need each other, or a hint), as given.
struct Given {
  std::vector<std::string> paths;  // the positional arguments
  OperationGiven operation;
  std::string arch;
  std::string format;
  std::string devices;
  std::string shard;
  std::optional<std::size_t> shard_count;
  std::string subsampling;
  std::optional<std::uint64_t> max_pixels;
  bool no_follow_links = false;
  std::optional<std::uint64_t> max_bytes;
};

// Where it runs and what gets compiled and shown.
void define_gpu_options(CLI::App& app, Request& r, Given& g) {
  add_choice(app, "--device", r.device, kDeviceNames,
             "Where to blur: " + choices_help(kDeviceNames));
  add_choice(
      app, "--codec", r.codec, kCodecNames,
      "JPEG decoding and encoding: " + choices_help(kCodecNames) +
          ". The blur is exact either way; nvJPEG's files differ from libjpeg-turbo's by a few "
          "levels (README)");
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

// Many images at once.
void define_batch_options(CLI::App& app, Request& r, Given& g) {
  app.add_option("-o,--output-dir", r.batch.output_dir,
                 "Blur every input into DIR: files by their name, directories' images by their "
                 "path below the directory");
  app.add_flag("-r,--recursive", r.batch.recursive,
               "Directories: their subdirectories' images too");
  app.add_flag("-P,--no-follow-links", g.no_follow_links,
               "Skip symbolic links found in directories, saying so on a line each (default: "
               "read through them, the output named by the link; files named are always read)");
  app.add_option("--from-list", r.batch.from_list,
                 "Also blur the files FILE lists, one path a line ('-': read the list from stdin)");
  app.add_option("--format", g.format,
                 "Write every output in this format (" + writable_names() +
                     "); default: each input's own (needed to write to stdout)");
  app.add_flag("--skip-existing", r.skip_existing,
               "Leave alone outputs that exist (whole: outputs are written atomically), to resume "
               "an interrupted batch");
  app.add_flag("--fsync", r.fsync,
               "Flush each output to disk before it takes its name, so it survives a crash of the "
               "machine too (slower on most storage; without it an output is whole after any end "
               "of gpublur itself, as with cp)");
  app.add_option("--threads", r.threads,
                 "CPU threads for decoding, encoding and CPU blurs, 1 to " +
                     std::to_string(kMaxThreads) + " (default, or 0: one per core)");
  app.add_option(
      "--devices", g.devices,
      "GPUs to use: all, or ordinals like 0,2 (an ordinal twice: two workers on it). Default: "
      "every GPU, but a batch of JPEGs that nvJPEG decodes runs on one GPU, two from 8 "
      "gigapixels, three from 24, four from 48 (k from (k - 1) k / 2 times 8), and another "
      "batch in one process on one GPU (the first that other processes may share; split over "
      "processes, one each)");
  app.add_option("--processes", r.processes,
                 "Split a batch over this many processes, each with a share of the files and "
                 "cores and the GPUs of --devices in turn (default: one per GPU where "
                 "nvJPEG may decode the batch's JPEGs on two or more GPUs, else one per 16 "
                 "threads)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--shard", g.shard,
                 "Blur only part K of N (K/N, 0-based) of the batch: its files sorted by path, "
                 "file i in part i mod N; auto: K and N from a Slurm, Kubernetes, AWS Batch or "
                 "Google Cloud Batch job array")
      ->option_text("K/N|auto");
  app.add_option("--shard-count", g.shard_count,
                 "--shard auto: the number of parts, where the scheduler does not say "
                 "(Kubernetes; or set GPUBLUR_SHARD_COUNT)");
  app.add_flag("-q,--quiet", r.quiet,
               "No progress line and no summary (failures are still reported)");
}

// Output encoding, caching and reporting.
void define_output_options(CLI::App& app, Request& r, Given& g) {
  app.add_option("--png-level", r.write.png_level,
                 "PNG compression 0..12 (libdeflate's levels; 0 stores, 12 smallest)")
      ->default_str(std::to_string(r.write.png_level));
  app.add_option("--jpeg-quality", r.write.jpeg_quality, "JPEG quality 1..100")
      ->default_str(std::to_string(r.write.jpeg_quality));
  app.add_option("--jpeg-subsampling", g.subsampling,
                 "JPEG chroma subsampling: 444, 422 or 420 (default: a JPEG input's own, else 444 "
                 "from quality 90, 420 below)");
  add_choice(app, "--tiff-compression", r.write.tiff_compression, kTiffCompressionNames,
             "TIFF outputs' compression: " + choices_help(kTiffCompressionNames));
  app.add_option("--webp-quality", r.write.webp_quality, "Lossy WebP quality 1..100")
      ->default_str(std::to_string(r.write.webp_quality));
  app.add_flag("--webp-lossless", r.write.webp_lossless, "Write WebP losslessly");
  app.add_flag("--strip", r.strip,
               "Write no metadata (ICC profile, EXIF, XMP, density), which is kept by default");
  app.add_option("--max-pixels", g.max_pixels,
                 "Refuse images of more pixels than this, before decoding them (default 134217728, "
                 "2^27; 0: only 65535 per side)");
  app.add_option("--max-bytes", g.max_bytes,
                 "Refuse images whose decoded samples take more bytes than this, before decoding "
                 "them (default 1073741824, 1 GiB; 0: no limit)");
  app.add_flag("--no-cache", r.no_cache, "Compile the kernel even if the kernel cache has it");
  app.add_option("--cache-dir", r.cache_dir,
                 "Kernel cache directory (default: $GPUBLUR_CACHE_DIR, $XDG_CACHE_HOME/gpublur or "
                 "~/.cache/gpublur)");
  app.add_flag("--timings", r.timings, "Print the wall time of each stage on stderr");
  app.add_flag(
      "--json", r.json,
      "One image: parameters, device, image facts and timings as one JSON object on stdout. "
      "A batch: a JSON line per file as it ends (path, status, bytes, stage times) and a summary "
      "line. Paths are their bytes: a byte that is not UTF-8 as a lone surrogate \\udcXX (PEP "
      "383: Python's os.fsencode gives the path back)");
  app.add_flag("-v,--verbose", r.verbose, "Say what was used: sizes, taps, device, compile target");
}

// Which form the images on the command line ask for: one image IN OUT, a batch (-o DIR), or
// none (compiling for the dumps only).
void images_of(Request& r, const Given& g) {
  const bool dumping = r.dump_ptx || r.dump_source;
  const bool batch = !r.batch.output_dir.empty();
  if (batch) {
    r.single = false;
    r.batch.paths = g.paths;
    r.batch.format = r.format;
    if (g.paths.empty() && !r.batch.from_list) {
      throw UsageError("-o " + r.batch.output_dir +
                       ": give the images to blur, e.g. gpublur photos/ -o blurred/");
    }
    if (dumping) {
      throw UsageError(
          "--dump-ptx and --dump-source show one kernel: give one image (IN OUT) or none");
    }
    r.action = Request::Action::kBlur;
    return;
  }
  if (r.batch.from_list) throw UsageError("--from-list needs an output directory: -o DIR");
  if (!g.shard.empty())
    throw UsageError("--shard splits a batch: name an output directory, -o DIR");
  if (g.paths.size() > 2) {
    throw UsageError("to blur several images, name an output directory: gpublur IN... -o DIR");
  }
  if (!g.paths.empty()) r.input = g.paths[0];
  if (g.paths.size() == 2) r.output = g.paths[1];
  if (r.input.empty() && !dumping) {
    throw UsageError("missing input and output images; e.g. gpublur in.png out.png --size 7");
  }
  if (!r.input.empty() && r.output.empty() && !dumping) {
    throw UsageError("missing the output image after '" + r.input + "' (or -o DIR for a batch)");
  }
  r.action = r.output.empty() ? Request::Action::kCompile : Request::Action::kBlur;
  if (r.action == Request::Action::kBlur && !output_format(r.output, r.format)) {
    throw UsageError(r.output == "-"
                         ? "writing to standard output ('-') needs --format, e.g. --format png"
                         : "cannot write '" + r.output + "': unknown extension; use " +
                               writable_extensions() + ", or give --format");
  }
}

void check_range(const char* flag, int value, int low, int high) {
  if (value < low || value > high) {
    throw UsageError(std::string(flag) + " must be " + std::to_string(low) + " to " +
                     std::to_string(high) + " (got " + std::to_string(value) + ")");
  }
}

void validate_outputs(const Request& r) {
  if (r.channels < 1 || r.channels > 4) throw UsageError("--channels must be 1 to 4");
  if (r.threads > kMaxThreads) {
    throw UsageError("--threads must be 1 to " + std::to_string(kMaxThreads) + " (got " +
                     std::to_string(r.threads) + "); leave it out for one per core");
  }
  check_range("--png-level", r.write.png_level, kMinPngLevel, kMaxPngLevel);
  check_range("--jpeg-quality", r.write.jpeg_quality, 1, 100);
  check_range("--webp-quality", r.write.webp_quality, 1, 100);
  const bool dump_to_stdout =
      (r.dump_ptx && *r.dump_ptx == "-") || (r.dump_source && *r.dump_source == "-");
  if (r.json && dump_to_stdout) {
    throw UsageError("--json writes to stdout; send --dump-ptx or --dump-source to a file");
  }
  if (r.single && r.output == "-" && (r.json || dump_to_stdout)) {
    throw UsageError("the image goes to stdout ('-'): send --json and dumps elsewhere");
  }
  if (r.codec == JpegCodec::kGpu && r.device == DeviceChoice::kCpu) {
    throw UsageError("--codec gpu needs a GPU: leave out --device cpu, or use --codec cpu");
  }
  if (r.dump_ptx && r.device == DeviceChoice::kCpu && !r.arch) {
    throw UsageError(
        "--dump-ptx with --device cpu needs --arch (e.g. --arch sm_90): no GPU to compile for");
  }
}

// --devices: "all", or ordinals separated by commas.
std::vector<int> devices_of(const std::string& text) {
  std::vector<int> ordinals;
  if (text.empty() || text == "all") return ordinals;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0 || v > 1023) {
      throw UsageError("--devices: '" + text + "' is not all or GPU ordinals like 0,1");
    }
    ordinals.push_back(static_cast<int>(v));
  }
  return ordinals;
}

ChromaSubsampling subsampling_of(const std::string& text) {
  if (text.empty()) return ChromaSubsampling::kAuto;
  if (text == "444") return ChromaSubsampling::k444;
  if (text == "422") return ChromaSubsampling::k422;
  if (text == "420") return ChromaSubsampling::k420;
  throw UsageError("--jpeg-subsampling: '" + text + "': choose 444, 422 or 420");
}

// Everything CLI11 could not check; fills the fields that need the given values together.
Request validated(Request r, const Given& g) {
  validate_operation(r.blur, g.operation);
  if (!g.arch.empty()) {
    r.arch = parse_arch(g.arch);
    if (!r.arch) {
      throw UsageError("--arch: '" + g.arch + "' is not an architecture; write it like sm_90");
    }
  }
  if (!g.format.empty()) {
    r.format = parse_format(g.format);
    if (!r.format || !format_traits(*r.format).writable) {
      throw UsageError("--format: gpublur does not write '" + g.format + "'; use " +
                       writable_extensions());
    }
  }
  r.devices = devices_of(g.devices);
  r.every_gpu = g.devices == "all";
  r.batch.follow_links = !g.no_follow_links;
  if (g.shard_count && g.shard != "auto") throw UsageError("--shard-count goes with --shard auto");
  if (g.shard == "auto") {
    r.shard = shard_from_environment(process_environment(), g.shard_count);
  } else if (!g.shard.empty()) {
    r.shard = parse_shard(g.shard);
  }
  r.write.jpeg_subsampling = subsampling_of(g.subsampling);
  if (g.max_pixels) r.limits.max_pixels = *g.max_pixels;
  if (g.max_bytes) r.limits.max_bytes = *g.max_bytes;
  if (r.dump_ptx && r.dump_ptx->empty()) r.dump_ptx = "-";
  if (r.dump_source && r.dump_source->empty()) r.dump_source = "-";
  images_of(r, g);
  validate_outputs(r);
  return r;
}

}  // namespace

ParseResult parse_command_line(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err) {
  CLI::App app{"gpublur " + std::string(kVersion) +
                   " - Gaussian blur, convolution matrices and unsharp masks on NVIDIA GPUs, with "
                   "kernels generated and compiled at run time",
               "gpublur"};
  Request r;
  Given g;
  bool version = false;
  app.add_option("images", g.paths,
                 "IN OUT: filter one image into OUT ('-' reads stdin, writes stdout). IN... -o "
                 "DIR: filter files and the images in directories into DIR");
  define_operation_options(app, r.blur, g.operation);
  define_gpu_options(app, r, g);
  define_batch_options(app, r, g);
  define_output_options(app, r, g);
  app.add_flag("--version", version, "Print gpublur, NVRTC and driver versions and the GPU");
  app.footer(operation_help() + "\n" + kMoreHelp + "\n" + formats_help() + "\n" + kLastHelp);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    write_checked(out, app.help());
    return {std::nullopt, kExitOk};
  } catch (const CLI::ParseError& e) {
    err << "gpublur: error: " << printable(e.what()) << " (see gpublur --help)\n";
    return {std::nullopt, kExitUsage};
  }
  if (version) {
    r.action = Request::Action::kVersion;
    return {r, kExitOk};
  }
  return {validated(std::move(r), g), kExitOk};
}

}  // namespace gpublur
