// malloc_arenas.cpp — mallopt(M_ARENA_MAX) where the user chose nothing.
#include "base/malloc_arenas.hpp"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpublur {

bool user_chose_malloc_arenas(const char* malloc_arena_max, const char* glibc_tunables) noexcept {
  // GLIBC_TUNABLES is "name=value:name=value"; its arena_max counts wherever it stands.
  return malloc_arena_max != nullptr ||
         (glibc_tunables != nullptr &&
          std::strstr(glibc_tunables, "glibc.malloc.arena_max=") != nullptr);
}

void share_malloc_arenas() noexcept {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
  if (user_chose_malloc_arenas(std::getenv("MALLOC_ARENA_MAX"), std::getenv("GLIBC_TUNABLES")))
    return;
  (void)::mallopt(M_ARENA_MAX, kMallocArenas);
#endif
}

}  // namespace gpublur
