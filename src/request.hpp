// request.hpp — what one gpublur command asks for: parsed and validated by the command line
// (cli.hpp) into typed values, read by everything after it. Nothing downstream parses text
// options or goes back to the command line.
#pragma once

#include <optional>
#include <string>

#include "arch.hpp"
#include "blur_parameters.hpp"
#include "image_io.hpp"
#include "kernel_schedule.hpp"
#include "name_table.hpp"

namespace gpublur {

enum class DeviceChoice { kAuto, kGpu, kCpu };

inline constexpr NameTable<DeviceChoice, 3> kDeviceNames{{{
    {DeviceChoice::kAuto, "auto", "the first NVIDIA GPU, else the CPU (saying why)"},
    {DeviceChoice::kGpu, "gpu", "a GPU, or an error"},
    {DeviceChoice::kCpu, "cpu", "the CPU, byte-identical to the GPU"},
}}};

struct Request {
  /// kVersion: print versions. kCompile: generate and compile a kernel for --dump-ptx or
  /// --dump-source only (with an input image: for its channels and depth). kBlur: blur input
  /// into output.
  enum class Action { kVersion, kCompile, kBlur };
  Action action = Action::kBlur;
  std::string input;   // empty for kCompile without an image
  std::string output;  // kBlur only
  BlurParameters blur;
  int channels = 3;  // kCompile without an image: the channel count to compile for

  DeviceChoice device = DeviceChoice::kAuto;
  Target target = Target::kCubin;
  KernelVariant kernel = KernelVariant::kAuto;
  std::optional<Arch> arch;                // compile for this instead of the GPU's
  std::optional<std::string> dump_ptx;     // "-" is stdout
  std::optional<std::string> dump_source;  // "-" is stdout
  bool no_cache = false;
  std::string cache_dir;  // empty: default_cache_dir()
  WriteOptions write;

  bool timings = false;
  bool json = false;
  bool verbose = false;
  bool no_detach = false;  // wait for the GPU's teardown before exiting (detached_exit.hpp)
};

}  // namespace gpublur
