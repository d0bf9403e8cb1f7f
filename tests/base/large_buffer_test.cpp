// large_buffer_test.cpp — reserve_large: the room and the elements a vector keeps, and the huge
// page advice the kernel records for a large buffer (its smaps' THPeligible) and not for a small
// one, where the kernel gives huge pages on request (transparent_hugepage "madvise").
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/large_buffer.hpp"
#include "image/image.hpp"

namespace {

using namespace gpublur;

// The kernel's transparent huge page mode ("always", "madvise", "never"), or "" where unknown.
std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "";
  const std::size_t open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos
             ? ""
             : line.substr(open + 1, close - open - 1);
}

// THPeligible of the mapping that holds `address` (-1 where smaps does not say).
int thp_eligible(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("THPeligible:", 0) == 0) {
      return std::stoi(line.substr(12));
    }
  }
  return -1;
}

}  // namespace

TEST_CASE("reserve_large keeps a vector's elements and makes room", "[base]") {
  std::vector<std::uint16_t> v = {1, 2, 3};
  reserve_large(v, 1000);
  CHECK(v.capacity() >= 1000);
  CHECK(v == std::vector<std::uint16_t>{1, 2, 3});
  const std::uint16_t* data = v.data();
  reserve_large(v, 10);  // room enough already: nothing moves
  CHECK(v.data() == data);
}

TEST_CASE("a large buffer is advised for huge pages, a small one is not", "[base]") {
  const std::string mode = thp_mode();
  if (mode != "madvise" && mode != "always") {
    WARN("transparent huge pages are '" << mode << "' here: nothing to check");
    return;
  }
  std::vector<std::uint8_t> large;
  reserve_large(large, std::size_t{64} << 20);
  large.resize(std::size_t{64} << 20);
  const int eligible = thp_eligible(large.data() + (std::size_t{32} << 20));
  if (eligible < 0) {
    WARN("this kernel's smaps has no THPeligible: nothing to check");
    return;
  }
  CHECK(eligible == 1);
  // An image's pixels take the same path.
  const Image image = make_image(4096, 4096, 3);  // 48 MiB
  CHECK(thp_eligible(image.pixels.data() + (std::size_t{24} << 20)) == 1);
  if (mode == "madvise") {  // a small buffer's memory is left as the kernel gives it
    std::vector<std::uint8_t> small;
    reserve_large(small, std::size_t{1} << 20);
    small.resize(std::size_t{1} << 20);
    CHECK(thp_eligible(small.data() + (std::size_t{512} << 10)) == 0);
  }
}

TEST_CASE("a batch's large buffers are kept for the next image, within a bound", "[base]") {
  constexpr std::size_t kLarge = kHugePageMinBytes + 4096;  // bytes
  REQUIRE(recycled_bytes() == 0);
  SECTION("outside a batch, nothing is kept") {
    std::vector<std::uint8_t> v;
    reserve_large(v, kLarge);
    recycle_large(std::move(v));
    CHECK(v.capacity() == 0);
    CHECK(recycled_bytes() == 0);
  }
  SECTION("in a batch, a large buffer serves the next that fits, and is freed at its end") {
    const std::uint8_t* data = nullptr;
    {
      const RecyclingLargeBuffers batch;
      std::vector<std::uint8_t> v;
      reserve_large(v, kLarge);
      v.assign(kLarge, 7);
      data = v.data();
      recycle_large(std::move(v));
      CHECK(v.capacity() == 0);
      CHECK(recycled_bytes() >= kLarge);
      std::vector<std::uint8_t> small;  // too small a need to take it (under half its room)
      reserve_large(small, kLarge / 3);
      CHECK(small.data() != data);
      std::vector<std::uint16_t> other;  // another element type: not this one
      reserve_large(other, kLarge / 2);
      CHECK(other.data() != static_cast<const void*>(data));
      std::vector<std::uint8_t> next;
      reserve_large(next, kLarge - 100);
      CHECK(next.data() == data);
      CHECK(next.empty());
      CHECK(recycled_bytes() == 0);
      std::vector<std::uint8_t> tiny(1000);  // small buffers are never kept
      recycle_large(std::move(tiny));
      CHECK(recycled_bytes() == 0);
      recycle_large(std::move(next));
      CHECK(recycled_bytes() > 0);
    }
    CHECK(recycled_bytes() == 0);
  }
  SECTION("no more than kRecycledBytes are kept") {
    const RecyclingLargeBuffers batch;
    const std::size_t count = kRecycledBytes / kLarge + 2;
    std::vector<std::vector<std::uint8_t>> held(count);  // all at once, as images in flight
    for (auto& v : held) reserve_large(v, kLarge);
    for (auto& v : held) recycle_large(std::move(v));
    CHECK(recycled_bytes() > kRecycledBytes - kLarge);
    CHECK(recycled_bytes() <= kRecycledBytes);
  }
  CHECK(recycled_bytes() == 0);
}
