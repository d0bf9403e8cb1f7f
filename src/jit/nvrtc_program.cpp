// nvrtc_program.cpp — dlopen of NVRTC, the Program owner and one compile.
#include "jit/nvrtc_program.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>

#include "base/dynamic_library.hpp"
#include "base/errors.hpp"

namespace gpublur::nvrtc {
namespace {

std::vector<std::string> library_candidates() {
  // The NVRTC this gpublur was built against: its soname carries the CUDA major version.
  const std::string soname = "libnvrtc.so." + std::to_string(GPUBLUR_CUDA_MAJOR);
  // $GPUBLUR_NVRTC replaces the search, so a user can pick one NVRTC and tests can hide it.
  if (const char* path = std::getenv("GPUBLUR_NVRTC")) return {path};
  std::vector<std::string> names{soname};
  if (const char* home = std::getenv("CUDA_HOME"))
    names.push_back(std::string(home) + "/lib64/" + soname);
  names.push_back("/usr/local/cuda/lib64/" + soname);
  names.push_back("/usr/local/cuda-" + std::to_string(GPUBLUR_CUDA_MAJOR) + "/lib64/" + soname);
  return names;
}

template <typename Fn>
void resolve(void* library, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(find_symbol(library, name));
  if (!fn) throw Error(std::string("cannot use NVRTC: symbol ") + name + " is missing");
}

NvrtcApi load() {
  std::string why;
  void* lib = open_first_library(library_candidates(), why);
  if (!lib) {
    throw Error("cannot load NVRTC (needed to compile the kernel): " + why + "; install the CUDA " +
                std::to_string(GPUBLUR_CUDA_MAJOR) +
                " toolkit, or set GPUBLUR_NVRTC to the path of libnvrtc.so");
  }
  NvrtcApi a{};
#define GB_RESOLVE(name) resolve(lib, a.name, #name);
  GB_NVRTC_ENTRY_POINTS(GB_RESOLVE)
#undef GB_RESOLVE
  return a;
}

void check(nvrtcResult status, const char* call, const std::string& subject) {
  if (status != NVRTC_SUCCESS) {
    throw Error(subject + ": " + call + " failed: " + api().nvrtcGetErrorString(status));
  }
}

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  check(api().nvrtcGetProgramLogSize(program, &size), "nvrtcGetProgramLogSize",
        "reading the compile log");
  std::string log(size, '\0');
  check(api().nvrtcGetProgramLog(program, log.data()), "nvrtcGetProgramLog",
        "reading the compile log");
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

const NvrtcApi& api() {
  static const NvrtcApi loaded = load();  // a failed load throws and is retried on next use
  return loaded;
}

std::string library_fingerprint() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(api().nvrtcVersion), &info) == 0 || !info.dli_fname) {
    return "unknown";
  }
  struct stat st {};
  if (::stat(info.dli_fname, &st) != 0) return info.dli_fname;
  return std::string(info.dli_fname) + " " + std::to_string(st.st_size) + " " +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

void ProgramTraits::destroy(Handle handle) {
  check(api().nvrtcDestroyProgram(&handle), "nvrtcDestroyProgram", "releasing an NVRTC program");
}

CompileResult compile_program(const std::string& source, const std::string& name,
                              const std::vector<std::string>& options) {
  const NvrtcApi& nv = api();
  nvrtcProgram raw = nullptr;
  check(nv.nvrtcCreateProgram(&raw, source.c_str(), name.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram", "creating the NVRTC program " + name);
  Program program(raw);

  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  const nvrtcResult status =
      nv.nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  CompileResult result;
  result.log = program_log(program.get());
  if (status == NVRTC_ERROR_COMPILATION) return result;
  check(status, "nvrtcCompileProgram", "compiling " + name);
  result.ok = true;

  std::size_t size = 0;
  check(nv.nvrtcGetPTXSize(program.get(), &size), "nvrtcGetPTXSize", "reading the PTX of " + name);
  result.ptx.resize(size);
  check(nv.nvrtcGetPTX(program.get(), result.ptx.data()), "nvrtcGetPTX",
        "reading the PTX of " + name);
  while (!result.ptx.empty() && result.ptx.back() == '\0') result.ptx.pop_back();

  // A virtual architecture (compute_XY) yields no CUBIN; NVRTC then reports size 0 or an error.
  if (nv.nvrtcGetCUBINSize(program.get(), &size) == NVRTC_SUCCESS && size > 0) {
    result.cubin.resize(size);
    check(nv.nvrtcGetCUBIN(program.get(), result.cubin.data()), "nvrtcGetCUBIN",
          "reading the CUBIN of " + name);
  }
  program.close();
  return result;
}

}  // namespace gpublur::nvrtc
