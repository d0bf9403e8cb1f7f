// border.cuh — the border rule, written once and compiled twice: by the host compiler for the CPU
// blur (through src/border.hpp) and by NVRTC for every kernel (through common.cuh). It says which
// in-image sample an index outside the image reads. Plain C++ without library headers, so NVRTC
// compiles it as it is.
#ifndef GB_BORDER_INCLUDED
#define GB_BORDER_INCLUDED 1
#ifndef GB_HOST_DEVICE_INCLUDED
#include "host_device.cuh"
#endif

namespace gb_border {

// The modes, numbered once: gpublur::Border takes these values, and codegen writes the number as
// GB_BORDER. The pictures show the row abcd extended to the left.
enum Mode : int {
  kClamp = 0,       // aaa|abcd
  kReflect = 1,     // cba|abcd
  kReflect101 = 2,  // dcb|abcd
  kWrap = 3,        // bcd|abcd
  kConstant = 4,    // vvv|abcd
};

GB_HD int floor_mod(int i, int n) {
  const int r = i % n;
  return r < 0 ? r + n : r;
}

// The in-image index that index i (any integer) reads, for an axis of n >= 1 samples; -1 for
// kConstant outside the image. Correct at any distance outside, also where the kernel's radius
// exceeds n (the pattern repeats). Kernels know their mode at compile time (kMode = GB_BORDER).
template <int kMode>
GB_HD int index(int i, int n) {
  if (i >= 0 && i < n) return i;
  if constexpr (kMode == kClamp) {
    return i < 0 ? 0 : n - 1;
  } else if constexpr (kMode == kReflect) {  // period 2n: abcd dcba abcd ...
    const int k = floor_mod(i, 2 * n);
    return k < n ? k : 2 * n - 1 - k;
  } else if constexpr (kMode == kReflect101) {  // period 2n - 2: abcd cb abcd ...
    if (n == 1) return 0;
    const int k = floor_mod(i, 2 * n - 2);
    return k < n ? k : 2 * n - 2 - k;
  } else if constexpr (kMode == kWrap) {
    return floor_mod(i, n);
  } else {
    return -1;
  }
}

// The same with the mode known at run time (the CPU blur).
GB_HD int index(Mode mode, int i, int n) {
  switch (mode) {
    case kClamp:
      return index<kClamp>(i, n);
    case kReflect:
      return index<kReflect>(i, n);
    case kReflect101:
      return index<kReflect101>(i, n);
    case kWrap:
      return index<kWrap>(i, n);
    case kConstant:
      return index<kConstant>(i, n);
  }
  return -1;
}

}  // namespace gb_border

#endif  // GB_BORDER_INCLUDED
