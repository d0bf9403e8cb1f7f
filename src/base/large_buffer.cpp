// large_buffer.cpp — madvise(MADV_HUGEPAGE) on the whole huge pages of a range, and the large
// vectors a batch keeps for reuse.
#include "base/large_buffer.hpp"

#include <cstdint>
#include <mutex>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gpublur {

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePage - 1);
  // Advice only: where the kernel refuses it (EINVAL without huge pages), 4 KiB pages serve.
  if (first < last) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

namespace {

// Every kept vector, by element type, under one lock: large buffers come and go a few times an
// image, not often enough for the lock to matter.
std::mutex kept_mutex;
std::size_t kept_bytes = 0;
int recycling_scopes = 0;

template <typename T>
std::vector<std::vector<T>>& kept() {
  static std::vector<std::vector<T>> vectors;
  return vectors;
}

void free_all_kept() {
  kept<std::uint8_t>().clear();
  kept<std::uint16_t>().clear();
  kept<float>().clear();
  kept<double>().clear();
  kept_bytes = 0;
}

}  // namespace

RecyclingLargeBuffers::RecyclingLargeBuffers() {
  const std::lock_guard<std::mutex> lock(kept_mutex);
  ++recycling_scopes;
}

RecyclingLargeBuffers::~RecyclingLargeBuffers() {
  const std::lock_guard<std::mutex> lock(kept_mutex);
  if (--recycling_scopes == 0) free_all_kept();
}

template <typename T>
void recycle_large(std::vector<T>&& v) noexcept {
  std::vector<T> freed = std::move(v);
  v = std::vector<T>();
  const std::size_t bytes = freed.capacity() * sizeof(T);
  if (bytes < kHugePageMinBytes) return;
  const std::lock_guard<std::mutex> lock(kept_mutex);
  if (recycling_scopes == 0 || kept_bytes + bytes > kRecycledBytes) return;
  freed.clear();
  try {
    kept<T>().push_back(std::move(freed));
    kept_bytes += bytes;
  } catch (const std::bad_alloc&) {  // no room for the list: the buffer is freed instead
  }
}

template <typename T>
bool take_recycled(std::vector<T>& v, std::size_t count) {
  const std::lock_guard<std::mutex> lock(kept_mutex);
  std::vector<std::vector<T>>& all = kept<T>();
  auto best = all.end();
  for (auto it = all.begin(); it != all.end(); ++it) {
    const std::size_t room = it->capacity();
    if (room >= count && room / 2 <= count && (best == all.end() || room < best->capacity()))
      best = it;
  }
  if (best == all.end()) return false;
  kept_bytes -= best->capacity() * sizeof(T);
  v = std::move(*best);
  all.erase(best);
  return true;
}

std::size_t recycled_bytes() {
  const std::lock_guard<std::mutex> lock(kept_mutex);
  return kept_bytes;
}

#define GPUBLUR_INSTANTIATE(T)                            \
  template void recycle_large(std::vector<T>&&) noexcept; \
  template bool take_recycled(std::vector<T>&, std::size_t);
GPUBLUR_INSTANTIATE(std::uint8_t)
GPUBLUR_INSTANTIATE(std::uint16_t)
GPUBLUR_INSTANTIATE(float)
GPUBLUR_INSTANTIATE(double)
#undef GPUBLUR_INSTANTIATE

}  // namespace gpublur
