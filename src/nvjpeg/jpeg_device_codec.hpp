// jpeg_device_codec.hpp — nvJPEG as a GPU worker's codec (gpu/device_codec.hpp): the pool decodes
// and encodes JPEGs through it without knowing nvJPEG.
#pragma once

#include "gpu/device_codec.hpp"

namespace gpublur {

/// Makes each worker's nvJPEG: one engine (its handles), a batched decoder per stream, and the
/// encoder. Where nvJPEG is not there, start() throws GpuJpegError saying why.
DeviceCodecFactory gpu_jpeg_codec();

}  // namespace gpublur
