// job_plan.hpp — which files a command blurs and where each result goes, worked out before any
// image is read: directories listed (sorted, optionally recursive; directory_walk.hpp), --from-list
// read, output names made (mirroring paths below each directory argument, always inside the
// output directory), and every conflict found up front (two inputs writing one output, an output
// replacing an input, a format gpublur cannot write).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "batch/directory_walk.hpp"
#include "codecs/image_format.hpp"

namespace gpublur {

/// One image to blur.
struct Job {
  std::string input;                       // as given or found; "-" is standard input
  std::string output;                      // "-" is standard output
  ImageFormat format = ImageFormat::kPng;  // the output's
  bool exists = false;  // the output existed when planned (--skip-existing leaves it alone)
  /// Set where the input was found unreadable when planned (missing, a directory): the job fails
  /// with this message, as a file that cannot be read does, and has no output.
  std::string error{};
};

/// What the command line named.
struct BatchInputs {
  std::vector<std::string> paths;        // files and directories
  std::optional<std::string> from_list;  // a file of paths, one per line; "-": standard input
  bool recursive = false;                // directories: descend into subdirectories
  bool follow_links = true;              // links in directories: read (false: skipped)
  std::string output_dir;                // where results go
  std::optional<ImageFormat> format;     // convert every output to this format
};

struct Plan {
  std::vector<Job> jobs;
  std::size_t ignored = 0;      // files in directories that are not images gpublur reads (by name)
  std::size_t total = 0;        // jobs in the whole batch, when `jobs` is one shard of it
  std::vector<PlanNote> notes;  // for the user: links followed or skipped, directories passed over
};

/// The jobs of a batch, in a stable order: each path argument in turn (a directory's images
/// sorted by path), then --from-list's. Outputs: a file argument or list entry goes to
/// output_dir/its name; a directory's images to output_dir/their path below that directory, as
/// listed (a link's own name, never its target's), so every output lies inside output_dir. The
/// output directory is never listed as an input. With `format`, each output's extension becomes
/// the format's. A file named (an argument, a list entry) that is missing or a directory is a
/// job with `error` set, so that the rest goes on. Throws UsageError for collisions (two jobs, one
/// output), an output that would replace its input, an output format gpublur does not write
/// (naming --format), a list that cannot be read.
Plan plan_batch(const BatchInputs& inputs);

/// One file, in to out (the single-image command), with the output format from out's extension,
/// or `format` (needed when out is "-", standard output). Throws UsageError for an output that
/// would overwrite the input (the same file however spelled: ./a.png, a hard or symbolic link),
/// as the batch does; blurring in place takes a second file and a rename.
Job single_job(const std::string& input, const std::string& output,
               std::optional<ImageFormat> format);

/// The same format for an output path: from its extension.
std::optional<ImageFormat> output_format(const std::string& path,
                                         std::optional<ImageFormat> format);

/// K-th of N deterministic parts (0-based) of a plan's jobs, for clusters: job i belongs to part
/// i % N, so parts differ in size by at most one and every job belongs to exactly one.
std::vector<Job> shard(const std::vector<Job>& jobs, std::size_t index, std::size_t count);

}  // namespace gpublur
