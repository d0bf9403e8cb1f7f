// cpu_row_kernels.hpp — the loops the CPU blur spends its time in (cpu_blur.cpp alone includes
// this), each compiled twice: for the baseline x86-64 and for AVX2 (8 lanes of 32-bit multiplies,
// which SSE2 lacks), chosen once by what the processor has. Same integer arithmetic, same bytes;
// floating point keeps its separate multiply and add (-ffp-contract=off, and the avx2 target does
// not enable FMA). The loops call nothing that is not inlined into them, so no code built for
// AVX2 is shared with (or picked by the linker for) baseline callers.
//
// Gaussian taps are symmetric, q[j] = q[2R - j], and in integers q*a + q*b = q*(a + b): pairs of
// rows that share a tap are added first, halving the multiplies. Not in floating point, whose
// order of roundings the GPU fixes: floating-point taps go one at a time.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include "arithmetic.cuh"

namespace gpublur::cpu_rows {

/// The widest radius the fused form handles (kernels up to 33 taps); wider ones go tap by tap.
constexpr std::size_t kMaxFusedRadius = 16;

#if defined(__x86_64__) && defined(__GNUC__)
#define GB_HAS_AVX2_PATH 1
inline const bool kHasAvx2 = __builtin_cpu_supports("avx2");
#endif

// acc[i] = mac(acc[i], q, src[i]).
#define GB_MAC_ROW_BODY \
  for (std::size_t i = 0; i < n; ++i) acc[i] = gb_arith::mac(acc[i], q, src[i]);
// acc[i] += q * (a[i] + b[i]).
#define GB_MAC_PAIR_BODY              \
  for (std::size_t i = 0; i < n; ++i) \
    acc[i] += q * (static_cast<Acc>(a[i]) + static_cast<Acc>(b[i]));
// out[i] = Done::apply(q[R] rows[R][i] + sum_{j<R} q[j] (rows[j][i] + rows[2R-j][i])): every tap
// of a row in registers, one store per sample.
#define GB_FUSED_BODY                                                           \
  Acc q[R + 1];                                                                 \
  const Src* lo[R + 1];                                                         \
  const Src* hi[R + 1];                                                         \
  for (std::size_t j = 0; j <= R; ++j)                                          \
    q[j] = static_cast<Acc>(taps[j]), lo[j] = rows[j], hi[j] = rows[2 * R - j]; \
  for (std::size_t i = 0; i < n; ++i) {                                         \
    Acc a = q[R] * static_cast<Acc>(lo[R][i]);                                  \
    _Pragma("GCC unroll 16") for (std::size_t j = 0; j < R; ++j) a +=           \
        q[j] * (static_cast<Acc>(lo[j][i]) + static_cast<Acc>(hi[j][i]));       \
    out[i] = Done::apply(a);                                                    \
  }

template <typename Acc, typename Tap, typename Src>
void mac_row_baseline(Acc* __restrict acc, Tap q, const Src* __restrict src, std::size_t n) {
  GB_MAC_ROW_BODY
}
template <typename Acc, typename Src>
void mac_pair_baseline(Acc* __restrict acc, Acc q, const Src* a, const Src* b, std::size_t n) {
  GB_MAC_PAIR_BODY
}
template <std::size_t R, typename Done, typename Acc, typename Tap, typename Src, typename Out>
void fused_baseline(Out* __restrict out, const Tap* taps, const Src* const* rows, std::size_t n) {
  GB_FUSED_BODY
}

#ifdef GB_HAS_AVX2_PATH
template <typename Acc, typename Tap, typename Src>
__attribute__((target("avx2"))) void mac_row_avx2(Acc* __restrict acc, Tap q,
                                                  const Src* __restrict src, std::size_t n) {
  GB_MAC_ROW_BODY
}
template <typename Acc, typename Src>
__attribute__((target("avx2"))) void mac_pair_avx2(Acc* __restrict acc, Acc q, const Src* a,
                                                   const Src* b, std::size_t n) {
  GB_MAC_PAIR_BODY
}
template <std::size_t R, typename Done, typename Acc, typename Tap, typename Src, typename Out>
__attribute__((target("avx2"))) void fused_avx2(Out* __restrict out, const Tap* taps,
                                                const Src* const* rows, std::size_t n) {
  GB_FUSED_BODY
}
#endif
#undef GB_MAC_ROW_BODY
#undef GB_MAC_PAIR_BODY
#undef GB_FUSED_BODY

template <typename Acc, typename Tap, typename Src>
void mac_row(Acc* acc, Tap q, const Src* src, std::size_t n) {
#ifdef GB_HAS_AVX2_PATH
  if (kHasAvx2) return mac_row_avx2(acc, q, src, n);
#endif
  mac_row_baseline(acc, q, src, n);
}

template <typename Acc, typename Src>
void mac_pair(Acc* acc, Acc q, const Src* a, const Src* b, std::size_t n) {
#ifdef GB_HAS_AVX2_PATH
  if (kHasAvx2) return mac_pair_avx2(acc, q, a, b, n);
#endif
  mac_pair_baseline(acc, q, a, b, n);
}

/// Whether `taps` can go in pairs: integers, and symmetric.
template <typename Acc, typename Tap>
bool pairs_allowed(const std::vector<Tap>& taps) {
  if (!std::is_integral<Acc>::value) return false;
  for (std::size_t j = 0; j < taps.size() / 2; ++j) {
    if (taps[j] != taps[taps.size() - 1 - j]) return false;
  }
  return true;
}

/// acc[i] += sum_j taps[j] * row(j)[i], a row at a time (pairs where allowed).
template <typename Acc, typename Tap, typename RowOf>
void mac_taps(Acc* acc, const std::vector<Tap>& taps, RowOf row, std::size_t n) {
  const std::size_t count = taps.size();
  if (!pairs_allowed<Acc>(taps)) {
    for (std::size_t j = 0; j < count; ++j) mac_row(acc, taps[j], row(j), n);
    return;
  }
  for (std::size_t j = 0; j < count / 2; ++j)
    mac_pair(acc, static_cast<Acc>(taps[j]), row(j), row(count - 1 - j), n);
  mac_row(acc, taps[count / 2], row(count / 2), n);
}

namespace detail {
template <std::size_t R, typename Done, typename Acc, typename Tap, typename Src, typename Out>
void fused(Out* out, const Tap* taps, const Src* const* rows, std::size_t n) {
#ifdef GB_HAS_AVX2_PATH
  if (kHasAvx2) return fused_avx2<R, Done, Acc>(out, taps, rows, n);
#endif
  fused_baseline<R, Done, Acc>(out, taps, rows, n);
}

template <std::size_t R, typename Done, typename Acc, typename Tap, typename Src, typename Out>
bool fused_upto(std::size_t radius, Out* out, const Tap* taps, const Src* const* rows,
                std::size_t n) {
  if (radius == R) {
    fused<R, Done, Acc>(out, taps, rows, n);
    return true;
  }
  if constexpr (R < kMaxFusedRadius) {
    return fused_upto<R + 1, Done, Acc>(radius, out, taps, rows, n);
  } else {
    return false;
  }
}
}  // namespace detail

/// out[i] = Done::apply(sum_j taps[j] * rows[j][i]), summed in Acc, for the 2R+1 = taps.size()
/// rows, every tap at once, where the taps go in pairs and R <= kMaxFusedRadius; returns false
/// (nothing written) otherwise.
template <typename Done, typename Acc, typename Tap, typename Src, typename Out>
bool fused_symmetric(Out* out, const std::vector<Tap>& taps, const Src* const* rows,
                     std::size_t n) {
  if (!pairs_allowed<Acc>(taps)) return false;
  return detail::fused_upto<0, Done, Acc>(taps.size() / 2, out, taps.data(), rows, n);
}

}  // namespace gpublur::cpu_rows
