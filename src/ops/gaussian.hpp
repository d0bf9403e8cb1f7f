// gaussian.hpp — the Gaussian's front end: (size, sigma) to one axis' taps at every precision the
// kernels sum in (weights.hpp makes each). The only place a sigma becomes taps; everything after
// reads the taps from the FilterSpec. Pure; thread-safe.
#pragma once

#include "ops/filter_spec.hpp"

namespace gpublur {

/// The axis of the Gaussian of `size` taps and `sigma`: integers summing to 2^16 and 2^24
/// (make_weights) and the real taps summing to 1 (gaussian_taps), with sigma as its description.
/// Preconditions as make_weights' (violated ones throw InternalError).
AxisTaps gaussian_axis(int size, double sigma);

}  // namespace gpublur
