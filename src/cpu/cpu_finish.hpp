// cpu_finish.hpp — how the CPU twin turns a row of sums into output samples, for each kind of
// policy (kernels/arithmetic.cuh): the blur's finish, or a finish that sees the input pixel and
// the spec's numbers (the matrix, the unsharp mask). Included by cpu_blur.cpp and cpu_matrix.cpp;
// and the loop that runs bands of rows on oneTBB's threads.
#pragma once

#include <cstddef>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "arithmetic.cuh"

namespace gpublur::cpu_finish {

/// The blur policies': every sample alike (a whole row at once, which vectorises) or per pixel.
template <typename Policy>
struct Blur {
  void operator()(const typename Policy::Sum* b, const typename Policy::Sample* /*in*/,
                  typename Policy::Sample* out, std::size_t n, int channels) const {
    if constexpr (Policy::kPerSample) {
      Policy::finish(b, out, static_cast<int>(n));
    } else {
      const auto c = static_cast<std::size_t>(channels);
      for (std::size_t k = 0; k < n; k += c) Policy::finish(&b[k], out + k, channels);
    }
  }
};

/// A policy whose finish takes the input pixel and numbers (Matrix*, Unsharp*), per pixel.
template <typename Policy>
struct WithNumbers {
  typename Policy::Numbers numbers;
  bool keep_alpha = false;
  void operator()(const typename Policy::Sum* b, const typename Policy::Sample* in,
                  typename Policy::Sample* out, std::size_t n, int channels) const {
    const auto c = static_cast<std::size_t>(channels);
    for (std::size_t k = 0; k < n; k += c) {
      Policy::finish(&b[k], in + k, out + k, channels, keep_alpha, numbers);
    }
  }
};

/// Runs rows(first, end) over [0, height) in bands of at least `min_band` rows on oneTBB's
/// threads: inside a batch, whose other images keep those threads busy, the loop shares them
/// instead of starting threads of its own. threads = 1: on the calling thread; more: at most that
/// many.
template <typename Rows>
void for_bands(int height, int min_band, unsigned threads, const Rows& rows) {
  if (threads == 1) {
    rows(0, height);
    return;
  }
  const auto run = [&] {
    tbb::parallel_for(tbb::blocked_range<int>(0, height, static_cast<std::size_t>(min_band)),
                      [&](const tbb::blocked_range<int>& band) { rows(band.begin(), band.end()); });
  };
  if (threads > 1) {
    tbb::task_arena(static_cast<int>(threads)).execute(run);
  } else {
    run();
  }
}

}  // namespace gpublur::cpu_finish
