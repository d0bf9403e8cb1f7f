// shard.hpp — one of N parts of a batch, for a cluster's workers: the part from --shard K/N, or
// (--shard auto) from the index and count the cluster's job array gives each worker. gpublur
// schedules nothing itself: Slurm, Kubernetes, AWS Batch and Google Cloud Batch start the workers
// and each takes its part; parts are disjoint and together are the whole batch.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace gpublur {

/// The rule, stated once (and in --help): the batch's files sorted by input path (then output
/// path); file i belongs to part i mod N. Parts differ in size by at most one file.
struct Shard {
  std::size_t index = 0;  // K, 0-based
  std::size_t count = 1;  // N
  std::string source;     // where K and N came from, for --verbose
};

/// "K/N", 0 <= K < N. Throws UsageError.
Shard parse_shard(const std::string& text);

/// The value of an environment variable, if set and not empty.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment process_environment();

/// --shard auto: the index and count of the first job array found in `env`:
///   Slurm: SLURM_ARRAY_TASK_ID is the index; the count is the array's size where its task IDs
///          are 0..N-1 (--array=0-15: SLURM_ARRAY_TASK_MAX + 1), else --shard-count is needed
///          (a task resubmitted alone: sbatch --array=2 ... --shard-count 16);
///   Kubernetes Indexed Job: JOB_COMPLETION_INDEX; the count from `count` (--shard-count) or
///          GPUBLUR_SHARD_COUNT (Kubernetes does not pass .spec.completions to the pod);
///   AWS Batch array job: AWS_BATCH_JOB_ARRAY_INDEX and AWS_BATCH_JOB_ARRAY_SIZE;
///   Google Cloud Batch: BATCH_TASK_INDEX and BATCH_TASK_COUNT.
/// `count`, when given, replaces any count found. Throws UsageError, saying what was looked for,
/// when none is set or the values do not make a part.
Shard shard_from_environment(const Environment& env, std::optional<std::size_t> count);

}  // namespace gpublur
