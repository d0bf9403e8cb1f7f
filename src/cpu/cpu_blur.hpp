// cpu_blur.hpp — the CPU twin: the reference every GPU result must equal byte for byte, and the
// fallback when no GPU is usable, for every operation a FilterSpec holds (the Gaussian, a
// convolution matrix, the unsharp mask). The same arithmetic as every kernel
// (kernels/arithmetic.cuh), with the spec's numbers.
#pragma once

#include "image/image.hpp"
#include "ops/filter_spec.hpp"

namespace gpublur {

/// Filters `in` (whose channel count must equal spec.channels) into a new image, as
/// spec.operation says. threads = 0: as many of oneTBB's threads as are free; 1: the calling
/// thread only; more: at most that many. Thread-safe; throws InternalError on misuse.
Image blur_on_cpu(const Image& in, const FilterSpec& spec, unsigned threads = 0);

/// The same for 16-bit samples, with the spec's 16-bit numbers (the Gaussian's taps of 2^24);
/// the constant border value v (0..255) reads as v * 257.
Image16 blur_on_cpu(const Image16& in, const FilterSpec& spec, unsigned threads = 0);

/// Floating-point (HDR) images: the spec's real numbers, summed in double and rounded once to
/// float, so within float32 rounding of the exact result. The constant border value v (0..255)
/// reads as v / 255.
ImageF blur_on_cpu(const ImageF& in, const FilterSpec& spec, unsigned threads = 0);

}  // namespace gpublur
