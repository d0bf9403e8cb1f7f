// dynamic_library.hpp — dlopen with a list of candidate names, for the CUDA driver and NVRTC,
// which gpublur loads at run time so that it starts on machines without them.
#pragma once

#include <string>
#include <vector>

namespace gpublur {

/// The first candidate that dlopen accepts, or nullptr with `why` set to the dlerror of each
/// attempt. Libraries stay loaded for the life of the process (unloading a GPU driver is
/// unsafe while its threads may run), so there is no close.
void* open_first_library(const std::vector<std::string>& candidates, std::string& why);

/// dlsym, or nullptr.
void* find_symbol(void* library, const char* name);

}  // namespace gpublur
