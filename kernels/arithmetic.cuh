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

// ---- Beyond the Gaussian: a convolution matrix and an unsharp mask ----------------------------
//
// These policies add a finishing step that sees the input pixel (`in`) and the operation's numbers
// (from the spec; the kernels get them baked in as constants). Where the last channel is alpha and
// the spec keeps it (keep_alpha: --alpha premultiplied, the default), it is copied from `in` and
// only the colours are filtered.

typedef int i32;
typedef long long i64;

// round(t / n) with halves away from zero, for n > 0; exact where 2|t| + n fits in I.
template <typename I>
GB_HD I round_div(I t, I n) {
  return t >= 0 ? (2 * t + n) / (2 * n) : -((n - 2 * t - 1) / (2 * n));
}

template <typename T, typename I>
GB_HD T clamp_to(I v, i64 high) {
  return static_cast<T>(v < 0 ? 0 : v > high ? high : v);
}

// Double arithmetic with one rounding per operation, as mac's (no fused multiply-add).
GB_HD double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
GB_HD double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

// A matrix's finishing numbers (src/ops/matrix.hpp makes them): each output sample is
//   clamp(round((S * scale + bias) / denominator))
// with S the exact integer sum of weight x sample. An integer or decimal matrix W / D + O is exact:
// W scaled by a power of ten to integers, scale = 10^k where the offset has k decimals (else 1),
// bias = O * D * scale, denominator = D * scale (D > 0), reduced by their common divisor. Other
// matrices are fixed point: weights round(w / D * 2^F), scale 1, bias round(O * 2^F),
// denominator 2^F. The front end checks |S| * scale + |bias| + denominator <= 2^62, and states
// reach, the most |S * scale + bias| can be (sum|W| x the largest sample x scale + |bias|).
struct MatrixScale {
  i64 scale;
  i64 bias;
  i64 denominator;
  i64 reach;
};

// Where 2 reach + denominator < 2^31, every t and 2t + n fit in 32 bits, so the rounding is done
// in 32 bits: the same integer, and in a kernel (whose numbers are constants, so this choice is
// made when it compiles) a multiply by a constant instead of 64-bit arithmetic per sample. A t at
// or below 0 rounds to 0 or below, which the clamp makes 0; above 0, halves away from zero are
// halves up, (2 t + n) / 2n, which for whole t is (t + h) / n with h = floor(n / 2) (n odd: t + h
// + 1/2 never reaches the next multiple of n); and for t < 0, t + h < n, whose quotient is 0 too.
// So the 32-bit form is u / n, u = max(t + h, 0) <= reach + h, and the clamp only where
// (reach + h) / n can pass the top.
//
// u / n itself is one high multiply where reach allows: with M = ceil(2^32 / n) and e = M n - 2^32
// (0 <= e < n), u M / 2^32 = u / n + u e / (n 2^32), and where u e < 2^32 the second term is below
// 1/n, which never carries u / n past the next whole number: floor(u M / 2^32) = floor(u / n).
// A box 31 x 31 (n = 961, reach + h = 245,535, e = 213) takes it; a kernel's division by a
// constant otherwise takes a high multiply and a shift.
// The 64-bit form is the rule as written; a test holds the two together.
GB_HD_CONSTEXPR bool narrow_finish(const MatrixScale& m) {
  return 2 * m.reach + m.denominator < (1ll << 31);
}
GB_HD_CONSTEXPR u64 reciprocal_of(const MatrixScale& m) {
  return ((u64{1} << 32) + static_cast<u64>(m.denominator) - 1) / static_cast<u64>(m.denominator);
}
GB_HD_CONSTEXPR bool one_multiply_divides(const MatrixScale& m) {
  return m.denominator > 1 &&
         static_cast<u64>(m.reach + m.denominator / 2) *
                 (reciprocal_of(m) * static_cast<u64>(m.denominator) - (u64{1} << 32)) <
             (u64{1} << 32);
}
GB_HD u32 divide_narrow(u32 u, const MatrixScale& m) {
  if (one_multiply_divides(m)) {
#if defined(__CUDA_ARCH__)
    return __umulhi(u, static_cast<u32>(reciprocal_of(m)));  // the compiler keeps the wide form
#else
    return static_cast<u32>((static_cast<u64>(u) * reciprocal_of(m)) >> 32);
#endif
  }
  return u / static_cast<u32>(m.denominator);
}
// The narrow finish as a signed quotient q whose clamp to 0 .. kMax is the output: q = floor((t +
// h) / n) where t + h >= 0, and q <= 0 below (which the clamp makes 0, as the floor would be). A
// kernel can then clamp and pack four outputs at once (cvt.pack.sat, mma_ptx.cuh) instead of a
// max and a min each. n a power of two: an arithmetic shift, floor for every t + h. One high
// multiply (n not a power of two, so n >= 3 and M < 2^31): floor((t + h) M / 2^32) signed, which
// is divide_narrow's quotient at or above 0 and negative below. Else divide_narrow of max(t + h, 0).
GB_HD_CONSTEXPR bool power_of_two(i64 n) { return n > 0 && (n & (n - 1)) == 0; }
GB_HD_CONSTEXPR int log2_of(i64 n) { return n > 1 ? 1 + log2_of(n / 2) : 0; }
GB_HD i32 narrow_quotient(i32 t, const MatrixScale& m) {
  if (power_of_two(m.denominator)) return t >> log2_of(m.denominator);
  if (one_multiply_divides(m)) {
    const i32 reciprocal = static_cast<i32>(reciprocal_of(m));  // < 2^31: n >= 3
#if defined(__CUDA_ARCH__)
    return __mulhi(t, reciprocal);
#else
    return static_cast<i32>((static_cast<i64>(t) * reciprocal) >> 32);  // arithmetic: floor
#endif
  }
  return static_cast<i32>(divide_narrow(static_cast<u32>(t > 0 ? t : 0), m));
}
// t + h of a sum S (i32 for 8-bit, i64 for 16-bit) where narrow_finish(m): |t + h| < 2^31.
template <typename S>
GB_HD i32 narrow_numerator(S s, const MatrixScale& m) {
  return static_cast<i32>(s) * static_cast<i32>(m.scale) + static_cast<i32>(m.bias) +
         static_cast<i32>(m.denominator / 2);
}
template <typename Sample, i64 kMax, typename S>
GB_HD Sample finish_matrix(S s, const MatrixScale& m) {
  if (narrow_finish(m)) {
    const i32 q = narrow_quotient(narrow_numerator(s, m), m);
    if ((m.reach + m.denominator / 2) / m.denominator <= kMax) {
      return static_cast<Sample>(q > 0 ? q : 0);
    }
    return clamp_to<Sample>(q, kMax);
  }
  return clamp_to<Sample>(round_div<i64>(static_cast<i64>(s) * m.scale + m.bias, m.denominator),
                          kMax);
}

// An integer matrix on integer samples 0..kMaxValue: the sums kept whole in T (Mid and Sum), each
// colour finished by finish_matrix, alpha copied where the spec keeps it. Dense: S = sum W p, rows
// of the matrix outer, columns inner. Rank one (W = column x row): m = sum column_j p (the
// vertical pass, kept whole), S = sum row_i m; the same integer, since nothing is rounded on the
// way. Matrix8 and Matrix16 below state their bounds.
template <typename SampleT, typename T, i64 kMaxValue>
struct MatrixInteger {
  typedef SampleT Sample;
  typedef SampleT In;
  typedef T Tap;
  typedef T Mid;
  typedef T Sum;
  typedef MatrixScale Numbers;
  static constexpr i64 kMax = kMaxValue;
  static GB_HD In prepare(const Sample* pixel, int k, int) { return pixel[k]; }
  static GB_HD Mid vertical_done(Mid a) { return a; }
  // One sample (the tensor-core and dp4a kernels finish their outputs one by one, through this).
  static GB_HD Sample finish_sample(Sum s, const Numbers& m) {
    return finish_matrix<Sample, kMax>(s, m);
  }
  // Where narrow_finish(m): the output before its clamp to 0 .. kMax, which a kernel may apply to
  // four at once (finish_sample is this, clamped).
  static GB_HD i32 quotient(Sum s, const Numbers& m) {
    return narrow_quotient(narrow_numerator(s, m), m);
  }
  static GB_HD void finish(const Sum* s, const Sample* in, Sample* out, int channels,
                           bool keep_alpha, const Numbers& m) {
    const int filtered = keep_alpha ? channels - 1 : channels;
    for (int k = 0; k < filtered; ++k) out[k] = finish_sample(s[k], m);
    if (keep_alpha) out[channels - 1] = in[channels - 1];
  }
};

// 8-bit samples p (0..255), signed weights W (i32):
//   |m|, |S| <= sum|W| * 255 <= 2^31 - 1 (checked by the front end)   i32, exact
//   t = S * scale + bias: |t| + denominator <= 2^62 (checked)         i64, exact
struct Matrix8 : MatrixInteger<u8, i32, 255> {
  static constexpr i64 kSumBound = 2147483647;  // |S| may reach this
  // Four outputs as one word, byte k finish_sample(s_k): what the 8-bit kernels store. Where the
  // finish is narrow a kernel clamps and packs the quotients two at a time with cvt.pack.sat
  // (sm_72 and later), whose saturation to 0 .. 255 is finish_sample's clamp: 2.5 instructions an
  // output where a max, a min and a byte permute each made 3.75.
  static GB_HD u32 finish_word(i32 s0, i32 s1, i32 s2, i32 s3, const Numbers& m) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 720
    if (narrow_finish(m)) {
      u32 high, word;
      asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(high) : "r"(quotient(s3, m)),
          "r"(quotient(s2, m)));
      asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(word) : "r"(quotient(s1, m)),
          "r"(quotient(s0, m)), "r"(high));  // {high's low half, s1's, s0's}
      return word;
    }
#endif
    return static_cast<u32>(finish_sample(s0, m)) | static_cast<u32>(finish_sample(s1, m)) << 8 |
           static_cast<u32>(finish_sample(s2, m)) << 16 | static_cast<u32>(finish_sample(s3, m)) << 24;
  }
};

// 16-bit samples (0..65535), weights i64:
//   |m|, |S| <= sum|W| * 65535 <= 2^62 (checked)                     i64, exact
//   t = S * scale + bias: |t| + denominator <= 2^62 (checked)        i64, exact
struct Matrix16 : MatrixInteger<u16, i64, 65535> {
  static constexpr i64 kSumBound = 4611686018427387904ll;  // 2^62
};

// Floating point (HDR): real weights w / D summed in double (as Float's: one rounding per product
// and per sum, dense rows outer and columns inner, or the column pass then the row pass), then
//   out = float(S + offset), and 0 where that is not above 0 (light is never negative).
struct MatrixOffset {
  double offset;
};
struct MatrixFloat {
  typedef float Sample;
  typedef float In;
  typedef double Tap;
  typedef double Mid;
  typedef double Sum;
  typedef MatrixOffset Numbers;
  static GB_HD In prepare(const Sample* pixel, int k, int) { return pixel[k]; }
  static GB_HD Mid vertical_done(Mid a) { return a; }
  static GB_HD void finish(const Sum* s, const Sample* in, Sample* out, int channels,
                           bool keep_alpha, const Numbers& m) {
    const int filtered = keep_alpha ? channels - 1 : channels;
    for (int k = 0; k < filtered; ++k) {
      const double v = add_rn(s[k], m.offset);
      out[k] = v > 0 ? static_cast<Sample>(v) : Sample(0);
    }
    if (keep_alpha) out[channels - 1] = in[channels - 1];
  }
};

// The unsharp mask: out = in + AMOUNT * (in - blur) where |in - blur| > THRESHOLD, else in, with
// blur the Gaussian (Straight8's or Straight16's sums, which it shares). The blur is its horizontal
// sum b, not rounded: units of 2^-24 of a level (8-bit: 2^16 taps twice, 8 bits dropped between
// the passes) or 2^-32 (16-bit: 2^24 taps twice, 16 dropped). THRESHOLD is threshold =
// floor(THRESHOLD * 2^kSumBits), so d = |in * 2^kSumBits - b| > threshold exactly where
// |in - blur| > THRESHOLD; AMOUNT is amount = round(AMOUNT * 2^kAmountBits), each precision's own.
// A threshold of 0 keeps only d = 0, where the result is in anyway, so its test is made only for
// a threshold above 0 (a kernel, whose numbers are constants, then has no test at all).
struct UnsharpScale {
  u64 amount;     // AMOUNT * 2^kAmountBits of the policy, rounded
  u64 threshold;  // THRESHOLD * 2^kSumBits, rounded down
};

// Whether |in * 2^kSumBits - b| <= threshold > 0: the input is kept. Sum holds in * 2^kSumBits
// (u32 for 8-bit, u64 for 16-bit) and so d.
template <int kSumBits, typename Sum, typename Sample>
GB_HD bool below_threshold(Sum b, Sample in, const UnsharpScale& u) {
  if (u.threshold == 0) return false;
  const Sum whole = static_cast<Sum>(static_cast<Sum>(in) << kSumBits);
  return (whole >= b ? whole - b : b - whole) <= u.threshold;
}

// 8-bit: AMOUNT as k = round(AMOUNT * 2^16) (AMOUNT 0..10: k < 2^20), the result in units of
// 2^-16 of a level, rounded once:
//   h = floor((b + 2^23) k / 2^24)              < 2^28 (b + 2^23 < 2^32)
//   X = in (2^16 + k) - h + floor(k / 2)        = 2^16 (in + (k / 2^16)(in - blur)) + e, |e| < 1
//   out = clamp(floor((X + 2^15) / 2^16))       (halves up)
// (h takes b with the rounding 2^23 that the kernels' sums carry; floor(k / 2) is what it adds.)
// It is computed mirrored, z = 2^24 - 2^15 - 1 - X = h + c with c = 2^24 - 2^15 - 1 - floor(k/2) -
// in (2^16 + k): h is the high word of (b + 2^23)(2^8 k) (2^8 k < 2^28), and z one high
// multiply-add of it, c one multiply-add of the input, |z| < 2^29 (i32). floor(z / 2^16) is
// 255 - floor((X + 2^15) / 2^16), so the output byte is byte 2 of z clamped to 0 .. 2^24 - 1,
// inverted: a kernel packs four such bytes and inverts the word (mma_finish.cuh).
// Against the same formula in float64 with the same truncated Gaussian, an output differs by at
// most 1/2 (the rounding) + 2^-16 (e) + 255 * 2^-17 (k's rounding) + AMOUNT * e_b, e_b the blur's
// own error before its rounding: <= 2^-9 + 0.0039 (size + 1) levels (src/ops/weights.hpp). So it
// is within 1 LSB where AMOUNT * (0.002 + 0.0039 (size + 1)) <= 0.49 (AMOUNT 1 up to size 120, 2
// up to 60, 5 up to 23); in practice far closer, since the taps' errors are not all of one sign.
struct Unsharp8 : Straight8 {
  typedef UnsharpScale Numbers;
  static constexpr int kSumBits = 24;
  static constexpr int kAmountBits = 16;
  // z of one sample, clamped to 0 .. 2^24 - 1: its byte 2 is 255 - out. In: the input byte as
  // u8, or as a u32 below 256 (a kernel takes it from its word with one byte permute, where a
  // byte's type would add a mask to the shift the compiler folds its multiply into).
  template <typename In>
  static GB_HD u32 mirrored(Sum b, In in, const Numbers& u) {
    if (below_threshold<kSumBits>(b, in, u)) return static_cast<u32>(255 - in) << 16;
    const u32 k = static_cast<u32>(u.amount);
    const u32 h = static_cast<u32>((static_cast<u64>(b + (1u << 23)) * (k << 8)) >> 32);
    const u32 c = (1u << 24) - (1u << 15) - 1u - (k >> 1) - static_cast<u32>(in) * ((1u << 16) + k);
    const i32 z = static_cast<i32>(h + c);  // mod 2^32, exact
    return static_cast<u32>(z < 0 ? 0 : z > 0xffffff ? 0xffffff : z);
  }
  static GB_HD Sample finish_sample(Sum b, Sample in, const Numbers& u) {
    return static_cast<Sample>(255u - (mirrored(b, in, u) >> 16));
  }
  static GB_HD void finish(const Sum* b, const Sample* in, Sample* out, int channels,
                           bool keep_alpha, const Numbers& u) {
    const int filtered = keep_alpha ? channels - 1 : channels;
    for (int k = 0; k < filtered; ++k) out[k] = finish_sample(b[k], in[k], u);
    if (keep_alpha) out[channels - 1] = in[channels - 1];
  }
};

// 16-bit: AMOUNT as amount = round(AMOUNT * 2^20) (< 2^24), in 128-bit integers:
//   d = |in * 2^32 - b|                                        < 2^48
//   r = (amount * d + 2^51) >> 52   (the rounding, halves away from zero; r < 2^20)
//   out = clamp(in + r) where in * 2^32 >= b, else clamp(in - r)
// Against the same formula in float64, as the 8-bit one with 2^-21 * 65535 levels for amount's
// rounding in place of its 255 * 2^-17 and 2^-16: within 1 LSB on the same terms.
struct Unsharp16 : Straight16 {
  typedef UnsharpScale Numbers;
  static constexpr int kSumBits = 32;
  static constexpr int kAmountBits = 20;
  static GB_HD Sample finish_sample(Sum b, Sample in, const Numbers& u) {
    if (below_threshold<kSumBits>(b, in, u)) return in;
    const Sum whole = static_cast<Sum>(in) << kSumBits;
    const bool up = whole >= b;
    const Sum d = up ? whole - b : b - whole;
    constexpr int kShift = kSumBits + kAmountBits;
    const u128 product = static_cast<u128>(u.amount) * static_cast<u128>(d);
    const i32 r = static_cast<i32>((product + (static_cast<u128>(1) << (kShift - 1))) >> kShift);
    return clamp_to<Sample>(up ? static_cast<i32>(in) + r : static_cast<i32>(in) - r, 65535);
  }
  static GB_HD void finish(const Sum* b, const Sample* in, Sample* out, int channels,
                           bool keep_alpha, const Numbers& u) {
    const int filtered = keep_alpha ? channels - 1 : channels;
    for (int k = 0; k < filtered; ++k) out[k] = finish_sample(b[k], in[k], u);
    if (keep_alpha) out[channels - 1] = in[channels - 1];
  }
};

// HDR: the blur b in double (Float's sums, not rounded to float), AMOUNT and THRESHOLD as given:
//   d = in - b; out = float(in + AMOUNT * d) where |d| > THRESHOLD (0 where not above 0), else in.
struct UnsharpReal {
  double amount;
  double threshold;
};
struct UnsharpFloat : Float {
  typedef UnsharpReal Numbers;
  static GB_HD void finish(const Sum* b, const Sample* in, Sample* out, int channels,
                           bool keep_alpha, const Numbers& u) {
    const int filtered = keep_alpha ? channels - 1 : channels;
    for (int k = 0; k < filtered; ++k) {
      const double d = add_rn(static_cast<double>(in[k]), -b[k]);
      if (!(d > u.threshold || -d > u.threshold)) {
        out[k] = in[k];
        continue;
      }
      const double v = add_rn(static_cast<double>(in[k]), mul_rn(u.amount, d));
      out[k] = v > 0 ? static_cast<Sample>(v) : Sample(0);
    }
    if (keep_alpha) out[channels - 1] = in[channels - 1];
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
