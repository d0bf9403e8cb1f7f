// cpu_blur.hpp — the CPU blur: the reference every GPU result must equal byte for byte, and
// the fallback when no GPU is usable. Same integer arithmetic as every kernel (weights.hpp,
// kernels/arithmetic.cuh).
#pragma once

#include "image/image.hpp"
#include "ops/filter_spec.hpp"

namespace gpublur {

/// Blurs `in` (whose channel count must equal spec.channels) into a new image.
/// threads = 0: as many of oneTBB's threads as are free; 1: the calling thread only; more: at
/// most that many. Thread-safe; throws InternalError on misuse.
Image blur_on_cpu(const Image& in, const FilterSpec& spec, unsigned threads = 0);

/// The same for 16-bit samples, with the spec's taps of 2^24; the constant border value v
/// (0..255) reads as v * 257.
Image16 blur_on_cpu(const Image16& in, const FilterSpec& spec, unsigned threads = 0);

/// Floating-point (HDR) images: the spec's real-valued taps, summed in
/// double and rounded once to float, so within float32 rounding of the exact convolution. The
/// constant border value v (0..255) reads as v / 255.
ImageF blur_on_cpu(const ImageF& in, const FilterSpec& spec, unsigned threads = 0);

}  // namespace gpublur
