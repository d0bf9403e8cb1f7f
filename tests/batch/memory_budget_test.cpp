// memory_budget_test.cpp — the batch's memory budget: room taken at once, one holder always let
// in, waits that end when room is given back, and threads that start together held to the limit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "batch/memory_budget.hpp"

using namespace gpublur;

TEST_CASE("the budget holds what fits, and one holder whatever its size", "[batch]") {
  MemoryBudget budget(100);
  budget.acquire(250);  // nothing held: let in
  CHECK(budget.held() == 250);
  budget.resize(250, 40);
  CHECK(budget.held() == 40);
  budget.acquire(60);  // exactly fits
  CHECK(budget.held() == 100);
  budget.release(100);
  CHECK(budget.held() == 0);
}

TEST_CASE("an acquire waits until room is given back", "[batch]") {
  MemoryBudget budget(100);
  budget.acquire(80);
  std::atomic<bool> in{false};
  std::thread waiter([&] {
    budget.acquire(30);
    in = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(in.load());  // 80 + 30 > 100
  budget.resize(80, 60);   // shrinking makes room
  waiter.join();
  CHECK(in.load());
  CHECK(budget.held() == 90);
}

TEST_CASE("threads that start together are held to the limit", "[batch]") {
  // Each takes room for its image, holds it a while and gives it back: a check that let them all
  // pass before any had counted its image would hold far more than the limit.
  MemoryBudget budget(1000);
  std::atomic<long> peak{0}, now{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        budget.acquire(200);
        const long held = now += 200;
        long seen = peak.load();
        while (held > seen && !peak.compare_exchange_weak(seen, held)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        now -= 200;
        budget.release(200);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(budget.held() == 0);
  CHECK(peak.load() <= 1000);
  CHECK(peak.load() >= 400);  // and they did run side by side
}
