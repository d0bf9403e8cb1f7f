// malloc_arenas_test.cpp — whether the user chose glibc's arenas, and that many threads meeting
// in malloc after share_malloc_arenas make no more arenas than kMallocArenas (in a child process,
// so that neither the arenas other tests made nor the limit reach the rest of the suite).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/malloc_arenas.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

using namespace gpublur;

#if defined(__GLIBC__)
// The arenas glibc has made in this process: the heaps malloc_info lists.
int arena_count() {
  char* text = nullptr;
  std::size_t size = 0;
  FILE* out = ::open_memstream(&text, &size);
  if (out == nullptr) return -1;
  ::malloc_info(0, out);
  std::fclose(out);
  const std::string info(text, size);
  std::free(text);
  int count = 0;
  for (std::size_t at = info.find("<heap nr="); at != std::string::npos;
       at = info.find("<heap nr=", at + 1))
    ++count;
  return count;
}

// 32 threads that start together, each allocate a buffer and hold it until all have one, then
// free it: all are in malloc at once, and each new thread's first allocation asks glibc for an
// arena. The buffers are handed to the caller's vector (so that no compiler elides them) and
// counted: the number of threads that got one.
int contend_in_malloc() {
  constexpr int kThreads = 32;
  std::atomic<int> started{0};
  std::atomic<int> holding{0};
  std::vector<void*> buffers(kThreads, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      started.fetch_add(1);
      while (started.load() < kThreads) std::this_thread::yield();
      void* buffer = std::malloc(std::size_t{64} << 10);
      if (buffer != nullptr) std::memset(buffer, t, std::size_t{64} << 10);
      buffers[static_cast<std::size_t>(t)] = buffer;
      holding.fetch_add(1);
      while (holding.load() < kThreads) std::this_thread::yield();
    });
  }
  for (std::thread& thread : threads) thread.join();
  int held = 0;
  for (void* buffer : buffers) {
    held += buffer != nullptr ? 1 : 0;
    std::free(buffer);
  }
  return held;
}

// Runs f in a forked child; its exit code (f's result), or -1.
template <typename F>
int in_child(F f) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(f());
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}
#endif

}  // namespace

TEST_CASE("the user's choice of arenas is kept", "[malloc_arenas]") {
  CHECK_FALSE(user_chose_malloc_arenas(nullptr, nullptr));
  CHECK(user_chose_malloc_arenas("2", nullptr));
  CHECK(user_chose_malloc_arenas("", nullptr));
  CHECK(user_chose_malloc_arenas(nullptr, "glibc.malloc.arena_max=2"));
  CHECK(user_chose_malloc_arenas(nullptr, "glibc.malloc.check=0:glibc.malloc.arena_max=8"));
  CHECK_FALSE(user_chose_malloc_arenas(nullptr, "glibc.malloc.arena_test=2"));
  CHECK_FALSE(user_chose_malloc_arenas(nullptr, "glibc.malloc.tcache_count=0"));
}

#if defined(__GLIBC__)
TEST_CASE("threads that meet in malloc share the arenas asked for", "[malloc_arenas]") {
  if (user_chose_malloc_arenas(std::getenv("MALLOC_ARENA_MAX"), std::getenv("GLIBC_TUNABLES"))) {
    WARN("the environment chooses glibc's arenas here: nothing to check");
    return;
  }
  // A child inherits this process's arenas (before) and reports how many it has after its threads.
  const int before = arena_count();
  REQUIRE(before > 0);
  if (before > kMallocArenas) {  // the tests before this one, in this process, made them
    WARN("this process has " << before << " arenas already: run this test alone, as ctest does");
    return;
  }
  const auto after = [](bool shared) {
    return in_child([shared] {
      if (shared) share_malloc_arenas();
      if (contend_in_malloc() != 32) return 0;  // a thread got no buffer: not what is asked
      return std::min(arena_count(), 255);
    });
  };
  const int unshared = after(false);
  const int with_limit = after(true);
  INFO("arenas before " << before << ", after without the limit " << unshared << ", with it "
                        << with_limit);
  // Without the limit, glibc gives the threads arenas of their own (up to eight a core), so
  // this test can tell the limit's work from no work.
  CHECK(unshared > kMallocArenas);
  CHECK(with_limit <= kMallocArenas);
}
#endif
