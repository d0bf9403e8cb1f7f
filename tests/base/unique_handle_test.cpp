// unique_handle_test.cpp — the owner template's moves and destroy paths, on a fake handle.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "base/unique_handle.hpp"

namespace {

std::vector<int> destroyed;
bool fail_destroy = false;

struct FakeTraits {
  using Handle = int;
  static Handle null() noexcept { return 0; }
  static void destroy(Handle h) {
    destroyed.push_back(h);
    if (fail_destroy) throw std::runtime_error("fake destroy failed");
  }
};
using Fake = gpublur::UniqueHandle<FakeTraits>;

}  // namespace

TEST_CASE("UniqueHandle destroys exactly once", "[unique_handle]") {
  destroyed.clear();
  fail_destroy = false;
  SECTION("destructor") {
    { Fake a(1); }
    CHECK(destroyed == std::vector<int>{1});
  }
  SECTION("move construct leaves the source empty") {
    {
      Fake a(2);
      Fake b(std::move(a));
      CHECK_FALSE(a);  // NOLINT(bugprone-use-after-move): testing the moved-from state
      CHECK(b.get() == 2);
    }
    CHECK(destroyed == std::vector<int>{2});
  }
  SECTION("move assign into an owning handle destroys the old one first") {
    {
      Fake a(3), b(4);
      b = std::move(a);
      CHECK(destroyed == std::vector<int>{4});
      CHECK(b.get() == 3);
    }
    CHECK(destroyed == std::vector<int>{4, 3});
  }
  SECTION("self move keeps the handle") {
    {
      Fake a(5);
      Fake& alias = a;
      a = std::move(alias);
      CHECK(a.get() == 5);
      CHECK(destroyed.empty());
    }
    CHECK(destroyed == std::vector<int>{5});
  }
  SECTION("release gives up ownership") {
    {
      Fake a(6);
      CHECK(a.release() == 6);
    }
    CHECK(destroyed.empty());
  }
  SECTION("empty handles destroy nothing") {
    {
      Fake a;
      Fake b(std::move(a));
    }
    CHECK(destroyed.empty());
  }
}

TEST_CASE("close throws, the destructor does not", "[unique_handle]") {
  destroyed.clear();
  fail_destroy = true;
  {
    Fake a(7);
    CHECK_THROWS_AS(a.close(), std::runtime_error);
    CHECK_FALSE(a);  // empty even after a failed close
  }
  CHECK_NOTHROW([] { Fake b(8); }());
  CHECK(destroyed == std::vector<int>{7, 8});
  fail_destroy = false;
}
