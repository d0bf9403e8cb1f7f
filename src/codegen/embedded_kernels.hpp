// embedded_kernels.hpp — the kernels/ files, embedded at build time by
// cmake/embed_kernels.cmake (one std::string_view per file: blur_tiled.cu -> kBlurTiledCu).
#pragma once

#include <string_view>

namespace gpublur {

extern const std::string_view kHostDeviceCuh;   // kernels/host_device.cuh
extern const std::string_view kBorderCuh;       // kernels/border.cuh
extern const std::string_view kCommonCuh;       // kernels/common.cuh
extern const std::string_view kArithmeticCuh;   // kernels/arithmetic.cuh
extern const std::string_view kBlurTiledCu;     // kernels/blur_tiled.cu
extern const std::string_view kBlurWideCu;      // kernels/blur_wide.cu
extern const std::string_view kNaiveBlurCu;     // kernels/naive_blur.cu
extern const std::string_view kBlurGeneralCu;   // kernels/blur_general.cu
extern const std::string_view kTileRowsCuh;     // kernels/tile_rows.cuh
extern const std::string_view kPixelTileCuh;    // kernels/pixel_tile.cuh
extern const std::string_view kMatrixDenseCu;   // kernels/matrix_dense.cu
extern const std::string_view kSeparableTileCu; // kernels/separable_tile.cu
extern const std::string_view kMmaGeometryCuh;  // kernels/mma_geometry.cuh
extern const std::string_view kMmaLayoutCuh;    // kernels/mma_layout.cuh
extern const std::string_view kMmaPtxCuh;       // kernels/mma_ptx.cuh
extern const std::string_view kMmaTapsCuh;      // kernels/mma_taps.cuh
extern const std::string_view kMmaStageCuh;     // kernels/mma_stage.cuh
extern const std::string_view kMmaFinishCuh;    // kernels/mma_finish.cuh
extern const std::string_view kMmaProductsCuh;  // kernels/mma_products.cuh
extern const std::string_view kBlurMmaCu;       // kernels/blur_mma.cu
extern const std::string_view kPlanesCu;        // kernels/planes.cu
extern const std::string_view kBytePlanesCuh;   // kernels/byte_planes.cuh
extern const std::string_view kDp4aGeometryCuh; // kernels/dp4a_geometry.cuh
extern const std::string_view kMatrixDp4aCu;    // kernels/matrix_dp4a.cu
extern const std::string_view kMmaLanesCuh;     // kernels/mma_lanes.cuh
extern const std::string_view kMatrixMmaGeometryCuh;  // kernels/matrix_mma_geometry.cuh
extern const std::string_view kMatrixWeightsCuh;      // kernels/matrix_weights.cuh
extern const std::string_view kMatrixMmaCu;           // kernels/matrix_mma.cu

}  // namespace gpublur
