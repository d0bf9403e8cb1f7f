// job_plan_test.cpp — which files a command blurs and where each result goes: outputs always
// inside -o and named by the path as listed, links followed or skipped, the output tree never an
// input, an input never overwritten, unreadable list entries failing alone.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "batch/job_plan.hpp"
#include "support/temp_dir.hpp"
#include "support/test_bytes.hpp"

using namespace gpublur;

namespace {

namespace fs = std::filesystem;
using test::TempDir;

void touch(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent);
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

namespace {

BatchInputs batch_of(std::vector<std::string> paths, const std::string& output_dir,
                     bool recursive = false) {
  BatchInputs inputs;
  inputs.paths = std::move(paths);
  inputs.output_dir = output_dir;
  inputs.recursive = recursive;
  return inputs;
}

// Every output of a job that can run lies lexically inside the output directory.
void check_inside(const Plan& plan, const std::string& output_dir) {
  for (const Job& job : plan.jobs) {
    if (!job.error.empty()) continue;  // fails before writing anything
    CAPTURE(job.input, job.output);
    const fs::path below = fs::path(job.output).lexically_relative(output_dir);
    CHECK(!below.empty());
    CHECK(std::none_of(below.begin(), below.end(), [](const fs::path& p) { return p == ".."; }));
  }
}

std::vector<std::string> outputs_of(const Plan& plan) {
  std::vector<std::string> outputs;
  for (const Job& job : plan.jobs) outputs.push_back(job.output);
  std::sort(outputs.begin(), outputs.end());
  return outputs;
}

bool says(const Plan& plan, const std::string& text) {
  return std::any_of(plan.notes.begin(), plan.notes.end(),
                     [&](const PlanNote& n) { return n.text.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("a link in a directory is read, its output named by the link, inside -o", "[plan]") {
  // photos/deep/link.png -> ../../assets/logo.png was written to assets/logo.png: the output's name
  // came from the path the link resolved to, "../../assets/logo.png" below photos/deep.
  TempDir dir;
  const InDirectory here(dir.path);
  touch("assets/logo.png");
  fs::create_directories("photos/deep");
  fs::create_symlink("../../assets/logo.png", "photos/deep/link.png");
  const Plan plan = plan_batch(batch_of({"photos/deep"}, "out"));
  REQUIRE(plan.jobs.size() == 1);
  CHECK(plan.jobs[0].input == "photos/deep/link.png");
  CHECK(plan.jobs[0].output == "out/link.png");
  check_inside(plan, "out");
  const Plan recursive = plan_batch(batch_of({"photos"}, "out", true));
  CHECK(outputs_of(recursive) == std::vector<std::string>{"out/deep/link.png"});
}

TEST_CASE("a link to a file in the same directory is a file of its own", "[plan]") {
  TempDir dir;
  touch(dir.file("photos/a.png"));
  fs::create_symlink("a.png", dir.file("photos/b.png"));
  const Plan plan = plan_batch(batch_of({dir.file("photos")}, dir.file("out")));
  CHECK(outputs_of(plan) == std::vector<std::string>{dir.file("out/a.png"), dir.file("out/b.png")});
  CHECK(says(plan, "1 symbolic link followed"));
}

TEST_CASE("links found in directories skipped with --no-follow-links, a line each", "[plan]") {
  TempDir dir;
  touch(dir.file("photos/a.png"));
  touch(dir.file("elsewhere/c.png"));
  fs::create_symlink("a.png", dir.file("photos/b.png"));
  fs::create_symlink("../elsewhere", dir.file("photos/linked"));
  BatchInputs inputs = batch_of({dir.file("photos")}, dir.file("out"), true);
  inputs.follow_links = false;
  const Plan plan = plan_batch(inputs);
  CHECK(outputs_of(plan) == std::vector<std::string>{dir.file("out/a.png")});
  CHECK(says(plan, "'" + dir.file("photos/b.png") + "': a symbolic link"));
  CHECK(says(plan, "'" + dir.file("photos/linked") + "': a symbolic link"));
  // Followed (the default), the linked directory is listed under the link's name.
  inputs.follow_links = true;
  CHECK(outputs_of(plan_batch(inputs)) == std::vector<std::string>{dir.file("out/a.png"),
                                                                   dir.file("out/b.png"),
                                                                   dir.file("out/linked/c.png")});
  // A file named on the command line is read whatever it is.
  inputs.follow_links = false;
  inputs.paths = {dir.file("photos/b.png")};
  CHECK(outputs_of(plan_batch(inputs)) == std::vector<std::string>{dir.file("out/b.png")});
}

TEST_CASE("a link to a directory above it does not loop", "[plan]") {
  TempDir dir;
  touch(dir.file("photos/a.png"));
  touch(dir.file("photos/sub/b.png"));
  fs::create_symlink("..", dir.file("photos/sub/up"));
  fs::create_symlink(dir.file("photos"), dir.file("photos/sub/top"));
  const Plan plan = plan_batch(batch_of({dir.file("photos")}, dir.file("out"), true));
  CHECK(outputs_of(plan) ==
        std::vector<std::string>{dir.file("out/a.png"), dir.file("out/sub/b.png")});
  CHECK(says(plan, "'" + dir.file("photos/sub/up") + "': a link to a directory above it"));
  CHECK(says(plan, "'" + dir.file("photos/sub/top") + "'"));
}

TEST_CASE("the output directory inside a recursive input is never listed", "[plan]") {
  // The documented resume, `gpublur photos -r -o photos/blurred --skip-existing`, took the last
  // run's outputs as inputs: photos/blurred/blurred/a.png, blurred twice, then deeper each run.
  TempDir dir;
  const InDirectory here(dir.path);
  touch("photos/a.png");
  touch("photos/blurred/a.png");  // the first run's output
  touch("photos/blurred/sub/b.png");
  for (const std::string output_dir :
       {"photos/blurred", "photos/blurred/", "./photos/../photos/blurred", "linked-output"}) {
    CAPTURE(output_dir);
    if (output_dir == "linked-output" && !fs::exists("linked-output")) {
      fs::create_directory_symlink("photos/blurred", "linked-output");
    }
    const Plan plan = plan_batch(batch_of({"photos"}, output_dir, true));
    REQUIRE(plan.jobs.size() == 1);
    CHECK(plan.jobs[0].input == "photos/a.png");
    CHECK(plan.jobs[0].exists);
    const PlanNote* note = nullptr;
    for (const PlanNote& n : plan.notes) {
      if (n.text.find("output directory") != std::string::npos) note = &n;
    }
    REQUIRE(note);
    CHECK(note->verbose);
  }
}

TEST_CASE("list entries (--from-list) that cannot be read fail alone", "[plan]") {
  // Blank-with-spaces lines, directories and missing files stopped the whole batch with "cannot
  // write ..." (exit 2): each is now a job that fails with "cannot read", the rest planned.
  TempDir dir;
  const InDirectory here(dir.path);
  touch("a.png");
  touch("photos/b.png");
  std::ofstream("list") << "   \nphotos\nphotos/..\nmissing\nmissing.png\na.png/\na.png\n\n";
  BatchInputs inputs = batch_of({}, "out");
  inputs.from_list = "list";
  const Plan plan = plan_batch(inputs);
  REQUIRE(plan.jobs.size() == 7);
  const std::vector<std::pair<std::string, std::string>> failing{
      {"   ", "No such file or directory"},
      {"photos", "is a directory"},
      {"photos/..", "is a directory"},
      {"missing", "No such file or directory"},
      {"missing.png", "No such file or directory"},
      {"a.png/", "Not a directory"}};
  for (std::size_t i = 0; i < failing.size(); ++i) {
    const Job& job = plan.jobs[i];
    CAPTURE(job.input);
    CHECK(job.input == failing[i].first);
    CHECK(job.error == "cannot read '" + failing[i].first + "': " + failing[i].second);
    CHECK(job.output.empty());
  }
  CHECK(plan.jobs[6].input == "a.png");
  CHECK(plan.jobs[6].output == "out/a.png");
  CHECK(plan.jobs[6].error.empty());
  check_inside(plan, "out");
}
