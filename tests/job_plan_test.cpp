// job_plan_test.cpp — which files a command blurs and where each result goes: outputs always
// inside -o and named by the path as listed, links followed or skipped, the output tree never an
// input, an input never overwritten, unreadable list entries failing alone.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "errors.hpp"
#include "job_plan.hpp"
#include "temp_dir.hpp"
#include "test_bytes.hpp"

using namespace gpublur;

namespace {

namespace fs = std::filesystem;
using test::TempDir;

void touch(const std::string& path) {
  fs::create_directories(fs::path(path).parent_path());
  test::write_bytes(path, test::Bytes{'x'});
}

// The current directory for a scope, for paths spelled relative to it.
struct InDirectory {
  fs::path old = fs::current_path();
  explicit InDirectory(const std::string& dir) { fs::current_path(dir); }
  ~InDirectory() { fs::current_path(old); }
};

}  // namespace

TEST_CASE("the single-image form refuses to overwrite its input", "[plan]") {
  TempDir dir;
  touch(dir.file("a.png"));
  CHECK_THROWS_AS(single_job(dir.file("a.png"), dir.file("a.png"), std::nullopt), UsageError);
  CHECK_THROWS_WITH(single_job(dir.file("a.png"), dir.file("a.png"), std::nullopt),
                    Catch::Contains("would replace its input"));
  {
    const InDirectory here(dir.path);
    CHECK_THROWS_AS(single_job("a.png", "./a.png", std::nullopt), UsageError);
    CHECK_THROWS_AS(single_job("./a.png", dir.file("a.png"), std::nullopt), UsageError);
  }
  fs::create_hard_link(dir.file("a.png"), dir.file("hard.png"));
  CHECK_THROWS_AS(single_job(dir.file("a.png"), dir.file("hard.png"), std::nullopt), UsageError);
  fs::create_symlink("a.png", dir.file("link.png"));  // written through, to the input
  CHECK_THROWS_AS(single_job(dir.file("a.png"), dir.file("link.png"), std::nullopt), UsageError);
  CHECK_THROWS_AS(single_job(dir.file("link.png"), dir.file("a.png"), std::nullopt), UsageError);
  // Another file, a new one, or a stream is fine.
  touch(dir.file("b.png"));
  CHECK(single_job(dir.file("a.png"), dir.file("b.png"), std::nullopt).output == dir.file("b.png"));
  CHECK_NOTHROW(single_job(dir.file("a.png"), dir.file("new.png"), std::nullopt));
  CHECK_NOTHROW(single_job("-", dir.file("a.png"), std::nullopt));
  CHECK_NOTHROW(single_job(dir.file("a.png"), "-", ImageFormat::kPng));
}
