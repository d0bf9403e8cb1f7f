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

/// Reserves room for `count` elements in `v`, advised for huge pages where that is a new
/// allocation of at least kHugePageMinBytes: call it before the elements are written.
template <typename T>
void reserve_large(std::vector<T>& v, std::size_t count) {
  if (v.capacity() >= count) return;
  v.reserve(count);
  if (count * sizeof(T) >= kHugePageMinBytes) advise_huge_pages(v.data(), count * sizeof(T));
}

}  // namespace gpublur
