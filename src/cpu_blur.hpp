// cpu_blur.hpp — the CPU blur: the reference every GPU result must equal byte for byte, and
// the fallback when no GPU is usable. Same integer arithmetic as kernels/blur.cu (weights.hpp).
#pragma once

#include "blur_spec.hpp"
#include "image.hpp"

namespace gpublur {

/// Blurs `in` (whose channel count must equal spec.channels) into a new image.
/// threads = 0 uses every hardware thread. Thread-safe; throws InternalError on misuse.
Image blur_on_cpu(const Image& in, const BlurSpec& spec, unsigned threads = 0);

}  // namespace gpublur
