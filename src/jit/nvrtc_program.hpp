// nvrtc_program.hpp — NVRTC loaded at run time, and the owner of an nvrtcProgram.
// One of the few files that include nvrtc.h (see STYLE rule 12).
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

#include "base/unique_handle.hpp"

namespace gpublur::nvrtc {

/// NVRTC's entry points gpublur uses, listed once: X(name) for each. NvrtcApi declares them and
/// api() resolves them from this one list.
#define GB_NVRTC_ENTRY_POINTS(X) \
  X(nvrtcVersion)                \
  X(nvrtcGetNumSupportedArchs)   \
  X(nvrtcGetSupportedArchs)      \
  X(nvrtcGetErrorString)         \
  X(nvrtcCreateProgram)          \
  X(nvrtcDestroyProgram)         \
  X(nvrtcCompileProgram)         \
  X(nvrtcGetProgramLogSize)      \
  X(nvrtcGetProgramLog)          \
  X(nvrtcGetPTXSize)             \
  X(nvrtcGetPTX)                 \
  X(nvrtcGetCUBINSize)           \
  X(nvrtcGetCUBIN)

/// NVRTC's entry points, resolved from the shared library.
struct NvrtcApi {
#define GB_NVRTC_DECLARE(name) decltype(&::name) name;
  GB_NVRTC_ENTRY_POINTS(GB_NVRTC_DECLARE)
#undef GB_NVRTC_DECLARE
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
