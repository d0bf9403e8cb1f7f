// malloc_arenas.hpp — how many heaps glibc's malloc keeps for a process's threads.
//
// glibc gives each new thread a heap (an "arena") of its own, up to eight a core, and keeps what
// is freed in each for that heap's next allocations. A batch's threads (a working one a core, a
// waiting one an image on its way through a GPU: some 200 on a 64-core host) each allocate and
// free image-sized buffers, and every arena came to keep its own: the process's memory grew
// through the batch far past what its images held (bench/RESULTS.md, issue 37's goal 5). A few
// arenas shared by every thread reuse each other's freed buffers instead.
#pragma once

namespace gpublur {

/// The arenas asked for: enough that threads rarely wait for each other's allocations (an image's
/// few a stage, beside milliseconds of decoding), few enough that the freed buffers are reused.
inline constexpr int kMallocArenas = 4;

/// Whether the user chose the arenas: `malloc_arena_max` and `glibc_tunables` are the values of
/// MALLOC_ARENA_MAX and GLIBC_TUNABLES (null where unset).
bool user_chose_malloc_arenas(const char* malloc_arena_max, const char* glibc_tunables) noexcept;

/// Asks glibc for at most kMallocArenas arenas, unless the user chose a number (MALLOC_ARENA_MAX,
/// or glibc.malloc.arena_max in GLIBC_TUNABLES), which is kept. Call it before any thread
/// starts. Does nothing on another C library.
void share_malloc_arenas() noexcept;

}  // namespace gpublur
