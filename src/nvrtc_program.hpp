// nvrtc_program.hpp — NVRTC loaded at run time, and the owner of an nvrtcProgram.
// One of the few files that include nvrtc.h (see STYLE rule 12).
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

#include "unique_handle.hpp"

namespace gpublur::nvrtc {

/// NVRTC's entry points, resolved from the shared library.
struct NvrtcApi {
  decltype(&::nvrtcVersion) nvrtcVersion;
  decltype(&::nvrtcGetNumSupportedArchs) nvrtcGetNumSupportedArchs;
  decltype(&::nvrtcGetSupportedArchs) nvrtcGetSupportedArchs;
  decltype(&::nvrtcGetErrorString) nvrtcGetErrorString;
  decltype(&::nvrtcCreateProgram) nvrtcCreateProgram;
  decltype(&::nvrtcDestroyProgram) nvrtcDestroyProgram;
  decltype(&::nvrtcCompileProgram) nvrtcCompileProgram;
  decltype(&::nvrtcGetProgramLogSize) nvrtcGetProgramLogSize;
  decltype(&::nvrtcGetProgramLog) nvrtcGetProgramLog;
  decltype(&::nvrtcGetPTXSize) nvrtcGetPTXSize;
  decltype(&::nvrtcGetPTX) nvrtcGetPTX;
  decltype(&::nvrtcGetCUBINSize) nvrtcGetCUBINSize;
  decltype(&::nvrtcGetCUBIN) nvrtcGetCUBIN;
};

/// The loaded library; loads it on first use (thread-safe). Throws Error naming the
/// libraries tried and how to point gpublur at NVRTC ($GPUBLUR_NVRTC, $CUDA_HOME).
const NvrtcApi& api();

/// "path size mtime" of the loaded NVRTC library file.
std::string library_fingerprint();

struct ProgramTraits {
  using Handle = nvrtcProgram;
  static Handle null() noexcept { return nullptr; }
  static void destroy(Handle handle);
};
/// Owns one nvrtcProgram.
using Program = UniqueHandle<ProgramTraits>;

/// What one nvrtcCompileProgram produced. A rejected source is a result (ok == false with
/// the log), not an exception; other NVRTC failures throw Error.
struct CompileResult {
  bool ok = false;
  std::string log;
  std::string ptx;
  std::vector<char> cubin;  // empty unless compiled for a real architecture (sm_XY)
};

CompileResult compile_program(const std::string& source, const std::string& name,
                              const std::vector<std::string>& options);

}  // namespace gpublur::nvrtc
