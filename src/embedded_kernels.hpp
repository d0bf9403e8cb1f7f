// embedded_kernels.hpp — the kernels/*.cu templates, embedded at build time by
// cmake/embed_kernels.cmake (one std::string_view per file, named k<FileName>Cu).
#pragma once

#include <string_view>

namespace gpublur {

extern const std::string_view kBlurCu;  // kernels/blur.cu

}  // namespace gpublur
