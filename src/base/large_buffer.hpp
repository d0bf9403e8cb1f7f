// large_buffer.hpp — room for an image-sized vector backed by the kernel's huge pages. A 100 MB
// buffer (an 8K RGB image, or its file) first touched in 4 KiB pages takes some 25,000 page
// faults, which set the pace of reading, decoding and encoding large raw images; in 2 MiB pages
// it takes 50 (bench/RESULTS.md has the stages' times). Linux's transparent huge pages are often
// given only where a program asks (the "madvise" mode), so we ask, for large buffers only.
#pragma once

#include <cstddef>
#include <vector>

namespace gpublur {

/// Buffers from this size up are advised. glibc maps every allocation above 32 MiB on its own
/// (its largest mmap threshold), so the advice never falls on memory shared with other
/// allocations.
constexpr std::size_t kHugePageMinBytes = (std::size_t{32} << 20) + 1;

/// Asks the kernel to back the whole 2 MiB pages of [data, data + bytes) with huge pages once
/// touched. Does nothing where it cannot (no transparent huge pages, another system).
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

/// While one of these lives (a batch of files), large vectors handed to recycle_large are kept,
/// up to kRecycledBytes in all, for reserve_large to give the next image: glibc maps each such
/// allocation afresh and unmaps it when freed, so every image of a batch paid its buffers' page
/// faults again (and where the kernel gives no huge pages, those set the pace of reading,
/// decoding and encoding large raw images). Outside one, nothing is kept; when the last ends,
/// what was kept is freed.
class RecyclingLargeBuffers {
 public:
  RecyclingLargeBuffers();
  ~RecyclingLargeBuffers();
  RecyclingLargeBuffers(const RecyclingLargeBuffers&) = delete;
  RecyclingLargeBuffers& operator=(const RecyclingLargeBuffers&) = delete;
};

/// The most bytes of vectors kept for reuse at once (beyond the batch's memory budget, which
/// counts what its images hold).
constexpr std::size_t kRecycledBytes = std::size_t{512} << 20;

/// Keeps `v`'s allocation for reserve_large to hand out again, where it is large (at least
/// kHugePageMinBytes), a RecyclingLargeBuffers lives and the kept bytes stay within
/// kRecycledBytes; else frees it. `v` is left empty either way. (uint8_t, uint16_t, float, double.)
template <typename T>
void recycle_large(std::vector<T>&& v) noexcept;

/// Moves into `v` (empty, without room) a kept allocation of room for `count` to 2 * `count`
/// elements, the smallest there is; false where none is kept.
template <typename T>
bool take_recycled(std::vector<T>& v, std::size_t count);

/// The bytes kept for reuse now.
std::size_t recycled_bytes();

/// Reserves room for `count` elements in `v`: an allocation kept for reuse where `v` has none
/// and one fits, else a new one, advised for huge pages where it has at least kHugePageMinBytes.
/// Call it before the elements are written.
template <typename T>
void reserve_large(std::vector<T>& v, std::size_t count) {
  if (v.capacity() >= count) return;
  const bool large = count * sizeof(T) >= kHugePageMinBytes;
  if (large && v.capacity() == 0 && take_recycled(v, count)) return;
  v.reserve(count);
  if (large) advise_huge_pages(v.data(), count * sizeof(T));
}

}  // namespace gpublur
