// shard.cpp — reading K/N from the command line or from a job array's environment.
#include "batch/shard.hpp"

#include <cstdlib>

#include "base/errors.hpp"

namespace gpublur {
namespace {

// A whole number, digits only, below 2^31 (no array is larger).
std::optional<std::size_t> number(const std::string& text) {
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (v >= (1ull << 31)) return std::nullopt;
  return static_cast<std::size_t>(v);
}

// A variable that must hold a whole number when set.
std::optional<std::size_t> numeric(const Environment& env, const std::string& name) {
  const std::optional<std::string> text = env(name);
  if (!text) return std::nullopt;
  const std::optional<std::size_t> v = number(*text);
  if (!v) throw UsageError("--shard auto: " + name + "='" + *text + "' is not a whole number");
  return v;
}

std::string assignment(const std::string& name, std::size_t value) {
  return name + "=" + std::to_string(value);
}

Shard checked(Shard s) {
  if (s.count == 0) throw UsageError("--shard auto: " + s.source + ": a count of 0 parts");
  if (s.index >= s.count) {
    throw UsageError("--shard auto: " + s.source + ": index " + std::to_string(s.index) +
                     " is not below the count " + std::to_string(s.count));
  }
  return s;
}

// Slurm's task ID is the part. The count is --shard-count, else the array's own size where its IDs
// are exactly 0..N-1; any other array (--array=1-16, a stride, or one task resubmitted with
// --array=2) needs --shard-count, so that no part is ever silently taken twice or left out.
std::optional<Shard> from_slurm(const Environment& env, std::optional<std::size_t> count) {
  const std::optional<std::size_t> id = numeric(env, "SLURM_ARRAY_TASK_ID");
  if (!id) return std::nullopt;
  const std::optional<std::size_t> min = numeric(env, "SLURM_ARRAY_TASK_MIN");
  const std::optional<std::size_t> max = numeric(env, "SLURM_ARRAY_TASK_MAX");
  const std::optional<std::size_t> tasks = numeric(env, "SLURM_ARRAY_TASK_COUNT");
  Shard s;
  s.index = *id;
  s.source = "Slurm (" + assignment("SLURM_ARRAY_TASK_ID", *id);
  if (count) {
    s.count = *count;
    s.source += ", --shard-count " + std::to_string(*count) + ")";
    return checked(s);
  }
  if (max) s.source += ", " + assignment("SLURM_ARRAY_TASK_MAX", *max);
  const bool from_zero = min.value_or(0) == 0 && max && (!tasks || *tasks == *max + 1);
  if (!from_zero) {
    throw UsageError("--shard auto: " + s.source +
                     (min ? ", " + assignment("SLURM_ARRAY_TASK_MIN", *min) : "") +
                     (tasks ? ", " + assignment("SLURM_ARRAY_TASK_COUNT", *tasks) : "") +
                     "): the array's task IDs are not 0..N-1; submit --array=0-<N-1>, or give "
                     "--shard-count N (as when resubmitting some of the tasks)");
  }
  s.count = *max + 1;
  s.source += ")";
  return checked(s);
}

// A scheduler that gives an index and (maybe) a count in two variables.
std::optional<Shard> from_pair(const Environment& env, std::optional<std::size_t> count,
                               const std::string& scheduler, const std::string& index_name,
                               const std::string& count_name) {
  const std::optional<std::size_t> index = numeric(env, index_name);
  if (!index) return std::nullopt;
  const std::optional<std::size_t> given = numeric(env, count_name);
  Shard s;
  s.index = *index;
  s.source = scheduler + " (" + assignment(index_name, *index);
  if (count) {
    s.count = *count;
    s.source += ", --shard-count " + std::to_string(*count) + ")";
  } else if (given) {
    s.count = *given;
    s.source += ", " + assignment(count_name, *given) + ")";
  } else {
    throw UsageError("--shard auto: " + s.source +
                     "): no count of parts; give --shard-count N or set " + count_name);
  }
  return checked(s);
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  const std::optional<std::size_t> k = number(text.substr(0, slash));
  const std::optional<std::size_t> n =
      slash == std::string::npos ? std::nullopt : number(text.substr(slash + 1));
  if (!k || !n || *n == 0 || *k >= *n) {
    throw UsageError("--shard: '" + text +
                     "' is not K/N with 0 <= K < N (e.g. 0/4 ... 3/4), nor auto");
  }
  return Shard{*k, *n, "--shard"};
}

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
}

Shard shard_from_environment(const Environment& env, std::optional<std::size_t> count) {
  if (count && *count == 0) throw UsageError("--shard-count must be at least 1");
  if (std::optional<Shard> s = from_slurm(env, count)) return *s;
  if (std::optional<Shard> s =
          from_pair(env, count, "Kubernetes", "JOB_COMPLETION_INDEX", "GPUBLUR_SHARD_COUNT"))
    return *s;
  if (std::optional<Shard> s = from_pair(env, count, "AWS Batch", "AWS_BATCH_JOB_ARRAY_INDEX",
                                         "AWS_BATCH_JOB_ARRAY_SIZE"))
    return *s;
  if (std::optional<Shard> s =
          from_pair(env, count, "Google Cloud Batch", "BATCH_TASK_INDEX", "BATCH_TASK_COUNT"))
    return *s;
  throw UsageError(
      "--shard auto: no job array index in the environment (looked for SLURM_ARRAY_TASK_ID, "
      "JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX, BATCH_TASK_INDEX); give --shard K/N");
}

}  // namespace gpublur
