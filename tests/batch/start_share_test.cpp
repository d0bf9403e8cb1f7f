// start_share_test.cpp — the CPU's share while nvJPEG starts: places taken up to the limit, given
// back, and waits that end when one is given back or soon after.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "batch/start_share.hpp"

using namespace gpublur;
using Clock = std::chrono::steady_clock;

TEST_CASE("the share lets in as many as it has places, and one given back again", "[batch]") {
  StartShare share(2);
  CHECK(share.try_take());
  CHECK(share.try_take());
  CHECK_FALSE(share.try_take());
  share.give_back();
  CHECK(share.try_take());
  CHECK_FALSE(share.try_take());
}

TEST_CASE("a share of no places has one", "[batch]") {
  StartShare share(0);
  CHECK(share.try_take());
  CHECK_FALSE(share.try_take());
}

TEST_CASE("a wait ends when a place is given back, and soon without one", "[batch]") {
  StartShare share(1);
  REQUIRE(share.try_take());
  auto start = Clock::now();
  share.wait_briefly();  // nothing given back: it returns after its few milliseconds
  CHECK(Clock::now() - start < std::chrono::seconds(1));
  CHECK_FALSE(share.try_take());
  std::thread giver([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    share.give_back();
  });
  start = Clock::now();
  while (!share.try_take()) share.wait_briefly();
  giver.join();
  CHECK(Clock::now() - start < std::chrono::seconds(1));
}

TEST_CASE("the share is a quarter of the batch's threads", "[batch]") {
  CHECK(start_share_places(32) == 8);
  CHECK(start_share_places(16) == 4);
  CHECK(start_share_places(3) == 1);
  CHECK(start_share_places(0) == 1);
}
