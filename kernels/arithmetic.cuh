// arithmetic.cuh — the arithmetic of every blur, written once and compiled twice: by the host
// compiler for the CPU blur (src/cpu_blur.cpp) and by NVRTC for kernels/blur_general.cu. Sharing
// the source is what makes CPU and GPU byte-identical. (The 8-bit fast kernels, blur_tiled.cu
// and blur_wide.cu, compute Straight8 in their own optimised forms; the [gpu] tests hold them
// to it.) Plain C++ without library headers, so NVRTC compiles it as it is.
//
// A policy says, for one kind of image, how a pixel's samples enter the sums (`prepare`), how
// the vertical sum is finished into the intermediate (`vertical_done`) and how the horizontal
// sums become output samples (`finish`, per pixel, so it can see alpha; kPerSample: every sample
// alike, so a whole row may be finished as one run of samples). Every integer bound
// is written next to its policy: each is exact in the type named.
#ifndef GB_ARITHMETIC_INCLUDED
#define GB_ARITHMETIC_INCLUDED 1

#ifndef GB_HOST_DEVICE_INCLUDED
#include "host_device.cuh"
#endif

namespace gb_arith {

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
#if defined(__CUDACC__)
typedef unsigned __int128 u128;
#else
__extension__ typedef unsigned __int128 u128;  // __extension__: a GNU type, said knowingly
#endif

// acc + q * v. Integers: exact by the bounds below. Floating point: one rounding for the
// product and one for the sum, in this order on both sides (no fused multiply-add: the host
// build uses -ffp-contract=off, the kernel the explicitly rounded intrinsics).
template <typename Acc, typename Tap, typename V>
GB_HD Acc mac(Acc acc, Tap q, V v) {
  return acc + static_cast<Acc>(q) * static_cast<Acc>(v);
}
GB_HD double mac(double acc, double q, double v) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(acc, __dmul_rn(q, v));
#else
  return acc + q * v;
#endif
}
GB_HD double mac(double acc, double q, float v) { return mac(acc, q, static_cast<double>(v)); }

// 8-bit samples p, taps summing to 2^16 (weights.hpp):
//   vertical   a = sum qy p   <= 255 * 2^16 < 2^24 (u32);  m = (a + 2^7) >> 8 <= 65280
//   horizontal b = sum qx m   < 2^32 (u32);                out = (b + 2^23) >> 24 <= 255
struct Straight8 {
  typedef u8 Sample;
  typedef u8 In;
  typedef u32 Tap;
  typedef u32 Mid;
  typedef u32 Sum;
  static constexpr int kTapBits = 16;
  static constexpr bool kPerSample = true;  // finish treats every sample alike
  static GB_HD In prepare(const Sample* pixel, int k, int) { return pixel[k]; }
  static GB_HD Mid vertical_done(Mid a) { return (a + (1u << 7)) >> 8; }
  static GB_HD void finish(const Sum* b, Sample* out, int channels) {
    for (int k = 0; k < channels; ++k) out[k] = static_cast<Sample>((b[k] + (1u << 23)) >> 24);
  }
};

// 16-bit samples p, taps summing to 2^24:
//   vertical   a = sum qy p   <= 65535 * 2^24 < 2^40 (u64);  m = (a + 2^15) >> 16 < 2^24
//   horizontal b = sum qx m   < 2^48 (u64);                  out = (b + 2^31) >> 32 <= 65535
struct Straight16 {
  typedef u16 Sample;
  typedef u16 In;
  typedef u64 Tap;
  typedef u64 Mid;
  typedef u64 Sum;
  static constexpr int kTapBits = 24;
  static constexpr bool kPerSample = true;
  static GB_HD In prepare(const Sample* pixel, int k, int) { return pixel[k]; }
  static GB_HD Mid vertical_done(Mid a) { return (a + (1ull << 15)) >> 16; }
  static GB_HD void finish(const Sum* b, Sample* out, int channels) {
    for (int k = 0; k < channels; ++k) out[k] = static_cast<Sample>((b[k] + (1ull << 31)) >> 32);
  }
};

// Premultiplied alpha (the last channel of gray+alpha and RGBA). Colour c enters as P = c * a
// and alpha as itself; nothing is rounded until the end, where the colour is the ratio of the
// two exact sums, sum(w c a) / sum(w a): the alpha-weighted mean, so hidden colour under
// transparent pixels weighs nothing. Where every alpha in reach is 0 the pixel stays fully
// transparent (alpha 0, colour 0).
//   out_alpha = (b_a + 2^(S-1)) >> S            (S = twice the tap bits: the taps' 2-D sum)
//   out_c     = (2 b_c + b_a) / (2 b_a)         (round half up of b_c / b_a; 0 when b_a = 0)
template <typename Sum, typename Sample>
GB_HD void finish_premultiplied(const Sum* b, Sample* out, int channels, int shift) {
  const int alpha = channels - 1;
  const Sum ba = b[alpha];
  out[alpha] = static_cast<Sample>((ba + (static_cast<Sum>(1) << (shift - 1))) >> shift);
  for (int k = 0; k < alpha; ++k) {
    out[k] = ba == 0 ? Sample(0) : static_cast<Sample>((2 * b[k] + ba) / (2 * ba));
  }
}

template <typename In, typename Sample>
GB_HD In premultiply(const Sample* pixel, int k, int channels) {
  const In a = pixel[channels - 1];
  return k == channels - 1 ? a : static_cast<In>(static_cast<In>(pixel[k]) * a);
}

// 8-bit, premultiplied; taps summing to 2^16:
//   P <= 255 * 255 = 65025 (u16)
//   vertical   a = sum qy P   <= 65025 * 2^16 < 2^32 (u32), kept whole
//   horizontal b = sum qx a   < 2^48 (u64);  2 b_c + b_a < 2^50
struct Premultiplied8 {
  typedef u8 Sample;
  typedef u16 In;
  typedef u32 Tap;
  typedef u32 Mid;
  typedef u64 Sum;
  static constexpr int kTapBits = 16;
  static constexpr bool kPerSample = false;  // a pixel's colours need its alpha
  static GB_HD In prepare(const Sample* pixel, int k, int channels) {
    return premultiply<In>(pixel, k, channels);
  }
  static GB_HD Mid vertical_done(Mid a) { return a; }
  static GB_HD void finish(const Sum* b, Sample* out, int channels) {
    finish_premultiplied(b, out, channels, 2 * kTapBits);
  }
};

// 16-bit, premultiplied; taps summing to 2^24:
//   P <= 65535 * 65535 < 2^32 (u32)
//   vertical   a = sum qy P   < 2^56 (u64), kept whole
//   horizontal b = sum qx a   < 2^80 (u128); b_a <= 65535 * 2^48, plus 2^47 still < 2^64
struct Premultiplied16 {
  typedef u16 Sample;
  typedef u32 In;
  typedef u64 Tap;
  typedef u64 Mid;
  typedef u128 Sum;
  static constexpr int kTapBits = 24;
  static constexpr bool kPerSample = false;
  static GB_HD In prepare(const Sample* pixel, int k, int channels) {
    return premultiply<In>(pixel, k, channels);
  }
  static GB_HD Mid vertical_done(Mid a) { return a; }
  static GB_HD void finish(const Sum* b, Sample* out, int channels) {
    finish_premultiplied(b, out, channels, 2 * kTapBits);
  }
};

// Floating point (HDR): the real Gaussian's taps (double, summing to 1), sums in double, one
// rounding to float at the end: within float32 rounding of the exact convolution.
struct Float {
  typedef float Sample;
  typedef float In;
  typedef double Tap;
  typedef double Mid;
  typedef double Sum;
  static constexpr bool kPerSample = true;
  static GB_HD In prepare(const Sample* pixel, int k, int) { return pixel[k]; }
  static GB_HD Mid vertical_done(Mid a) { return a; }
  static GB_HD void finish(const Sum* b, Sample* out, int channels) {
    for (int k = 0; k < channels; ++k) out[k] = static_cast<Sample>(b[k]);
  }
};

// The intermediate of a column of the constant border: its vertical sum, finished. (For the
// integer policies this is the constant scaled by the taps' sum, but the float one rounds.)
template <typename Policy>
GB_HD typename Policy::Mid constant_column(const typename Policy::Tap* taps_y, int size_y,
                                           const typename Policy::Sample* pixel, int k,
                                           int channels) {
  typename Policy::Mid a = 0;
  const typename Policy::In v = Policy::prepare(pixel, k, channels);
  for (int j = 0; j < size_y; ++j) a = mac(a, taps_y[j], v);
  return Policy::vertical_done(a);
}

}  // namespace gb_arith

#endif  // GB_ARITHMETIC_INCLUDED
