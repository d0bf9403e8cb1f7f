// dynamic_library.cpp — dlopen/dlsym wrappers.
#include "base/dynamic_library.hpp"

#include <dlfcn.h>

namespace gpublur {

void* open_first_library(const std::vector<std::string>& candidates, std::string& why) {
  why.clear();
  for (const std::string& name : candidates) {
    if (name.empty()) continue;
    if (void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* error = ::dlerror();
    why += (why.empty() ? "" : "; ") + std::string(error ? error : name + ": cannot load");
  }
  return nullptr;
}

void* find_symbol(void* library, const char* name) { return ::dlsym(library, name); }

}  // namespace gpublur
