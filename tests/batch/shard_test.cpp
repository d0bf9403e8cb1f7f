// shard_test.cpp — --shard K/N and --shard auto: the parts a batch splits into, and the index and
// count read from each scheduler's job array variables.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "base/errors.hpp"
#include "batch/job_plan.hpp"
#include "batch/shard.hpp"

using namespace gpublur;

namespace {

Environment env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::pair<std::size_t, std::size_t> part(std::map<std::string, std::string> vars,
                                         std::optional<std::size_t> count = std::nullopt) {
  const Shard s = shard_from_environment(env_of(std::move(vars)), count);
  return {s.index, s.count};
}

using P = std::pair<std::size_t, std::size_t>;

}  // namespace

TEST_CASE("shard K/N from the command line", "[shard]") {
  const Shard s = parse_shard("3/16");
  CHECK(s.index == 3);
  CHECK(s.count == 16);
  for (const char* bad : {"16/16", "1/0", "-1/4", "1", "a/b", "1/4x", "/4", "1/", ""}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_shard(bad), UsageError);
  }
}

TEST_CASE("the parts of a batch are disjoint, cover it and differ by one file at most", "[shard]") {
  std::vector<Job> jobs;
  for (int i = 0; i < 103; ++i) {
    // Given out of order: parts follow the sorted list, whatever order the plan had.
    jobs.push_back(Job{"in/" + std::to_string((i * 37) % 103), "out/" + std::to_string(i)});
  }
  for (std::size_t n : {std::size_t{1}, std::size_t{4}, std::size_t{7}, std::size_t{200}}) {
    CAPTURE(n);
    std::multiset<std::string> seen;
    std::size_t smallest = jobs.size(), largest = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::vector<Job> p = shard(jobs, k, n);
      smallest = std::min(smallest, p.size());
      largest = std::max(largest, p.size());
      for (const Job& j : p) seen.insert(j.input);
    }
    CHECK(seen.size() == jobs.size());
    CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == jobs.size());
    CHECK(largest - smallest <= 1);
  }
  // The rule: sorted by input, file i in part i mod N.
  std::vector<Job> sorted = jobs;
  std::sort(sorted.begin(), sorted.end(),
            [](const Job& a, const Job& b) { return a.input < b.input; });
  const std::vector<Job> third = shard(jobs, 2, 5);
  REQUIRE(third.size() > 3);
  CHECK(third[0].input == sorted[2].input);
  CHECK(third[3].input == sorted[17].input);
}

TEST_CASE("shard auto: Slurm job arrays of tasks 0..N-1, or any with --shard-count", "[shard]") {
  CHECK(part({{"SLURM_ARRAY_TASK_ID", "5"},
              {"SLURM_ARRAY_TASK_COUNT", "16"},
              {"SLURM_ARRAY_TASK_MIN", "0"},
              {"SLURM_ARRAY_TASK_MAX", "15"}}) == P{5, 16});
  // Slurm before COUNT existed: MIN and MAX.
  CHECK(part({{"SLURM_ARRAY_TASK_ID", "2"},
              {"SLURM_ARRAY_TASK_MIN", "0"},
              {"SLURM_ARRAY_TASK_MAX", "3"}}) == P{2, 4});
  // One task resubmitted alone (--array=2): its own array says nothing of the first one's size.
  const std::map<std::string, std::string> resubmitted = {{"SLURM_ARRAY_TASK_ID", "2"},
                                                          {"SLURM_ARRAY_TASK_COUNT", "1"},
                                                          {"SLURM_ARRAY_TASK_MIN", "2"},
                                                          {"SLURM_ARRAY_TASK_MAX", "2"}};
  CHECK_THROWS_WITH(part(resubmitted), Catch::Contains("--shard-count N"));
  CHECK(part(resubmitted, 4) == P{2, 4});
  // --array=1-16, a stride (0-30:2), a list (1,5,9): never a silently shifted part.
  CHECK_THROWS_WITH(part({{"SLURM_ARRAY_TASK_ID", "16"},
                          {"SLURM_ARRAY_TASK_COUNT", "16"},
                          {"SLURM_ARRAY_TASK_MIN", "1"},
                          {"SLURM_ARRAY_TASK_MAX", "16"}}),
                    Catch::Contains("not 0..N-1"));
  CHECK_THROWS_WITH(part({{"SLURM_ARRAY_TASK_ID", "6"},
                          {"SLURM_ARRAY_TASK_COUNT", "16"},
                          {"SLURM_ARRAY_TASK_MIN", "0"},
                          {"SLURM_ARRAY_TASK_MAX", "30"},
                          {"SLURM_ARRAY_TASK_STEP", "2"}}),
                    Catch::Contains("not 0..N-1"));
  CHECK_THROWS_WITH(part({{"SLURM_ARRAY_TASK_ID", "16"},
                          {"SLURM_ARRAY_TASK_MIN", "1"},
                          {"SLURM_ARRAY_TASK_MAX", "16"}},
                         16),
                    Catch::Contains("not below the count"));
  CHECK_THROWS_WITH(part({{"SLURM_ARRAY_TASK_ID", "x"}}), Catch::Contains("not a whole number"));
  CHECK_THROWS_WITH(part({{"SLURM_ARRAY_TASK_ID", "3"}}), Catch::Contains("--shard-count"));
}

TEST_CASE("shard auto: Kubernetes, AWS Batch, Google Cloud Batch", "[shard]") {
  CHECK(part({{"JOB_COMPLETION_INDEX", "3"}}, 10) == P{3, 10});
  CHECK(part({{"JOB_COMPLETION_INDEX", "3"}, {"GPUBLUR_SHARD_COUNT", "10"}}) == P{3, 10});
  CHECK_THROWS_WITH(part({{"JOB_COMPLETION_INDEX", "3"}}), Catch::Contains("GPUBLUR_SHARD_COUNT"));
  CHECK(part({{"AWS_BATCH_JOB_ARRAY_INDEX", "7"}, {"AWS_BATCH_JOB_ARRAY_SIZE", "8"}}) == P{7, 8});
  CHECK(part({{"BATCH_TASK_INDEX", "0"}, {"BATCH_TASK_COUNT", "2"}}) == P{0, 2});
  CHECK_THROWS_WITH(part({{"BATCH_TASK_INDEX", "2"}, {"BATCH_TASK_COUNT", "2"}}),
                    Catch::Contains("not below the count"));
  // GPUBLUR_SHARD_COUNT is Kubernetes' count only: it does not change another scheduler's.
  CHECK(
      part({{"BATCH_TASK_INDEX", "1"}, {"BATCH_TASK_COUNT", "2"}, {"GPUBLUR_SHARD_COUNT", "9"}}) ==
      P{1, 2});
  CHECK_THROWS_WITH(part({}), Catch::Contains("no job array index"));
  CHECK_THROWS_WITH(part({{"JOB_COMPLETION_INDEX", "1"}}, 0), Catch::Contains("at least 1"));
  // Slurm first, where two are set (Slurm inside a container started by another).
  CHECK(part({{"SLURM_ARRAY_TASK_ID", "1"},
              {"SLURM_ARRAY_TASK_MAX", "1"},
              {"BATCH_TASK_INDEX", "0"},
              {"BATCH_TASK_COUNT", "5"}}) == P{1, 2});
}
