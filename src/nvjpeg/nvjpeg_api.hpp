// nvjpeg_api.hpp — nvJPEG (libnvjpeg.so.13) loaded at run time, as the driver and NVRTC are: the
// binary starts, and every format works on the CPU, on a machine without it. The entry points
// are listed once; the checking macro names the failing call. With cuda_driver.hpp, the only
// file that includes nvjpeg.h (gpu_jpeg.cpp uses it).
#pragma once

#include <nvjpeg.h>

#include <string>

namespace gpublur::nvjpeg {

#define GB_NVJPEG_ENTRY_POINTS(X)          \
  X(nvjpegGetProperty)                     \
  X(nvjpegCreateEx)                        \
  X(nvjpegDestroy)                         \
  X(nvjpegGetHardwareDecoderInfo)          \
  X(nvjpegJpegStateCreate)                 \
  X(nvjpegJpegStateDestroy)                \
  X(nvjpegJpegStreamCreate)                \
  X(nvjpegJpegStreamDestroy)               \
  X(nvjpegJpegStreamParseHeader)           \
  X(nvjpegJpegStreamGetFrameDimensions)    \
  X(nvjpegDecodeBatchedSupported)          \
  X(nvjpegDecodeBatchedInitialize)         \
  X(nvjpegDecodeBatchedPreAllocate)        \
  X(nvjpegDecodeBatched)                   \
  X(nvjpegEncoderStateCreate)              \
  X(nvjpegEncoderStateDestroy)             \
  X(nvjpegEncoderParamsCreate)             \
  X(nvjpegEncoderParamsDestroy)            \
  X(nvjpegEncoderParamsSetQuality)         \
  X(nvjpegEncoderParamsSetSamplingFactors) \
  X(nvjpegEncodeImage)                     \
  X(nvjpegEncodeYUV)                       \
  X(nvjpegEncodeRetrieveBitstream)

struct Api {
#define GB_NVJPEG_DECLARE(name) decltype(&::name) name;
  GB_NVJPEG_ENTRY_POINTS(GB_NVJPEG_DECLARE)
#undef GB_NVJPEG_DECLARE
  std::string path;  // the library loaded, and its version ("... 13.0.4")
};

/// Loads nvJPEG on first call (thread-safe): $GPUBLUR_NVJPEG if set (a path; an empty value:
/// none, as on a machine without it), else libnvjpeg.so.13 where the dynamic linker finds it,
/// in $CUDA_HOME/lib64, /usr/local/cuda/lib64, and where the build found its header. nullptr
/// with `why` when none loads.
const Api* load(std::string& why);

/// "NVJPEG_STATUS_BAD_JPEG" and the like.
const char* status_name(nvjpegStatus_t status);

}  // namespace gpublur::nvjpeg

/// Checks one nvJPEG call; throws gpublur::GpuJpegError "<subject>: <call> failed: <status>".
#define GB_NVJPEG_CHECK(call, subject)                                     \
  do {                                                                     \
    const nvjpegStatus_t gb_nvjpeg_status_ = (call);                       \
    if (gb_nvjpeg_status_ != NVJPEG_STATUS_SUCCESS) {                      \
      ::gpublur::nvjpeg::throw_error(gb_nvjpeg_status_, #call, (subject)); \
    }                                                                      \
  } while (0)

namespace gpublur::nvjpeg {
[[noreturn]] void throw_error(nvjpegStatus_t status, const char* call, const std::string& subject);
}  // namespace gpublur::nvjpeg
