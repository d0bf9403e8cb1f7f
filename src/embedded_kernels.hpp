// embedded_kernels.hpp — the kernels/ templates, embedded at build time by
// cmake/embed_kernels.cmake (one std::string_view per file: blur_tiled.cu -> kBlurTiledCu).
#pragma once

#include <string_view>

namespace gpublur {

extern const std::string_view kHostDeviceCuh;  // kernels/host_device.cuh
extern const std::string_view kBorderCuh;      // kernels/border.cuh
extern const std::string_view kCommonCuh;    // kernels/common.cuh
extern const std::string_view kBlurTiledCu;  // kernels/blur_tiled.cu
extern const std::string_view kBlurWideCu;   // kernels/blur_wide.cu
extern const std::string_view kBlurMmaCu;    // kernels/blur_mma.cu
extern const std::string_view kNaiveBlurCu;  // kernels/naive_blur.cu
extern const std::string_view kArithmeticCuh;  // kernels/arithmetic.cuh
extern const std::string_view kBlurGeneralCu;  // kernels/blur_general.cu
extern const std::string_view kPlanesCu;       // kernels/planes.cu

}  // namespace gpublur
