// request.hpp — what one gpublur command asks for: parsed and validated by the command line
// (cli.hpp) into typed values, read by everything after it. Nothing downstream parses text
// options or goes back to the command line.
#pragma once

#include <optional>
#include <string>

#include "base/name_table.hpp"
#include "batch/device_choice.hpp"
#include "batch/job_plan.hpp"
#include "batch/shard.hpp"
#include "codecs/encode_options.hpp"
#include "codecs/image_format.hpp"
#include "codegen/kernel_schedule.hpp"
#include "image/decode_limits.hpp"
#include "jit/arch.hpp"
#include "ops/blur_parameters.hpp"

namespace gpublur {

inline constexpr NameTable<JpegCodec, 3> kCodecNames{{{
    {JpegCodec::kAuto, "auto",
     "gpu in batches of about 1.6+ gigapixels of JPEG (800 1080p or 200 4K files; "
     "libjpeg-turbo where nvJPEG is not there), else cpu"},
    {JpegCodec::kGpu, "gpu", "nvJPEG on the GPU for every JPEG it takes, or an error without it"},
    {JpegCodec::kCpu, "cpu", "libjpeg-turbo only: the same bytes on every machine"},
}}};

inline constexpr NameTable<TiffCompression, 3> kTiffCompressionNames{{{
    {TiffCompression::kAuto, "auto", "an uncompressed TIFF input's none, else deflate"},
    {TiffCompression::kNone, "none", "the samples as they are: the fastest to write and read"},
    {TiffCompression::kDeflate, "deflate", "Deflate with the horizontal predictor (lossless)"},
}}};

struct Request {
  /// kVersion: print versions. kCompile: generate and compile a kernel for --dump-ptx or
  /// --dump-source only (with an input image: for its channels and depth). kBlur: blur images.
  enum class Action { kVersion, kCompile, kBlur };
  Action action = Action::kBlur;
  /// kBlur: `gpublur IN OUT` (one file: input, output; "-" is stdin or stdout), or a batch
  /// (`gpublur IN... -o DIR`: batch).
  bool single = true;
  std::string input;   // empty for kCompile without an image
  std::string output;  // the single form's output
  BatchInputs batch;
  std::optional<ImageFormat> format;  // --format: convert outputs (needed to write to stdout)
  std::optional<Shard> shard;         // a batch: only this part of it
  bool skip_existing = false;
  bool fsync = false;  // flush each output to disk before it takes its name
  bool strip = false;  // write no metadata
  DecodeLimits limits;

  BlurParameters blur;
  int channels = 3;  // kCompile without an image: the channel count to compile for

  DeviceChoice device = DeviceChoice::kAuto;
  JpegCodec codec = JpegCodec::kAuto;  // --codec: who decodes and encodes JPEG
  std::vector<int> devices;  // GPU ordinals (an ordinal twice: two workers); empty: as it pays
  bool every_gpu = false;    // --devices all: every GPU, whatever a JPEG batch would pay for
  unsigned threads = 0;      // CPU threads; 0: all the process may use
  unsigned processes = 0;    // a batch's processes (process_lanes.hpp); 0: as the batch needs
  Target target = Target::kCubin;
  KernelVariant kernel = KernelVariant::kAuto;
  std::optional<Arch> arch;                // compile for this instead of the GPU's
  std::optional<std::string> dump_ptx;     // "-" is stdout
  std::optional<std::string> dump_source;  // "-" is stdout
  bool no_cache = false;
  std::string cache_dir;  // empty: default_cache_dir()
  EncodeOptions write;

  bool timings = false;
  bool json = false;
  bool verbose = false;
  bool quiet = false;      // no progress line, no summary (failures are still reported)
  bool no_detach = false;  // wait for the GPU's teardown before exiting (detached_exit.hpp)
};

}  // namespace gpublur
