// job_plan.cpp — listing inputs and naming outputs.
#include "batch/job_plan.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <system_error>

#include "base/errors.hpp"
#include "codecs/image_decode.hpp"

namespace gpublur {
namespace {

namespace fs = std::filesystem;

// Whether writing `output` would overwrite the regular file `input`: the same file by device and
// inode, however either is spelled (./a.png, a hard link, a link written through to it).
bool replaces_input(const fs::path& input, const fs::path& output) {
  std::error_code e;
  return fs::is_regular_file(input, e) && fs::equivalent(input, output, e);
}

// A list holds paths: a million of them fit in 64 MiB, and no path is longer than PATH_MAX or holds
// a NUL. A file that breaks these (/dev/zero, a binary named by mistake) is refused as soon as it
// does, instead of being read into memory without end.
constexpr std::size_t kMaxListBytes = std::size_t{64} << 20;
constexpr std::size_t kMaxListLine = 4096;

[[noreturn]] void not_a_list(const std::string& list, const std::string& why) {
  throw UsageError("--from-list: '" + printable(list) + "' is not a list of paths: " + why);
}

std::vector<std::string> read_list(const std::string& list) {
  std::ifstream file;
  if (list != "-") {
    file.open(list, std::ios::binary);
    if (!file) throw UsageError("--from-list: cannot read '" + printable(list) + "'");
  }
  std::istream& in = list == "-" ? std::cin : file;
  std::vector<std::string> paths;
  std::string line;
  const auto end_line = [&] {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) paths.push_back(line);
    line.clear();
  };
  std::size_t total = 0, number = 1;
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) {
    if (++total > kMaxListBytes) not_a_list(list, "longer than 64 MiB");
    if (*it == '\n') {
      end_line();
      ++number;
    } else if (*it == '\0') {
      not_a_list(list, "a NUL byte in line " + std::to_string(number));
    } else if (line.size() == kMaxListLine) {
      not_a_list(list, "a line longer than " + std::to_string(kMaxListLine) + " bytes");
    } else {
      line += *it;
    }
  }
  end_line();
  return paths;
}

// `name` written as `format` (its extension replaced), or as it is.
fs::path output_name(const fs::path& name, const std::optional<ImageFormat>& format) {
  if (!format) return name;
  fs::path renamed = name;
  return renamed.replace_extension(std::string(default_extension(*format)));
}

// Every output lies inside the output directory: its name below it is relative, made of names.
void check_inside(const fs::path& relative_output) {
  const bool inside =
      !relative_output.empty() && relative_output.is_relative() &&
      std::none_of(relative_output.begin(), relative_output.end(), [](const fs::path& part) {
        return part == ".." || part == "." || part.empty();
      });
  if (!inside) {
    throw InternalError("output name '" + printable(relative_output.string()) +
                        "' does not lie inside the output directory");
  }
}

// -v's line on links read through.
PlanNote links_note(std::size_t followed) {
  return PlanNote{std::to_string(followed) + " symbolic link" + (followed == 1 ? "" : "s") +
                      " followed: read through, outputs named by the link (--no-follow-links "
                      "skips them)",
                  true};
}

class Planner {
 public:
  explicit Planner(const BatchInputs& inputs) : inputs_(inputs) {}

  void add(const fs::path& input, const fs::path& relative_output) {
    check_inside(relative_output);
    const std::string in = input.string();
    if (in == "-")
      throw UsageError("'-' (standard input) is for the single-image form: gpublur - out.png");
    const std::optional<ImageFormat> format =
        output_format(relative_output.string(), inputs_.format);
    if (!format) {
      throw UsageError("cannot write '" + printable(relative_output.string()) + "' (from '" +
                       printable(in) + "'): gpublur writes " + writable_extensions() +
                       "; add --format, e.g. --format png");
    }
    const fs::path output =
        (fs::path(inputs_.output_dir) / output_name(relative_output, inputs_.format))
            .lexically_normal();
    const auto [it, added] = outputs_.emplace(output.string(), in);
    if (!added) {
      throw UsageError("'" + printable(it->second) + "' and '" + printable(in) +
                       "' would both be written to '" + printable(output.string()) +
                       "'; rename one, or blur them into different -o directories");
    }
    if (replaces_input(input, output)) {
      throw UsageError("'" + printable(output.string()) +
                       "' would replace its input; choose another -o directory");
    }
    std::error_code e;
    Job job{in, output.string(), *format, fs::exists(output, e)};
    plan_.jobs.push_back(std::move(job));
  }

  // A file named by an argument or a list entry: planned, or, where it cannot be read (missing,
  // a directory: nothing to name an output by), a job that fails alone.
  void add_named(const std::string& name) {
    struct stat info {};
    if (name == "-" || (::stat(name.c_str(), &info) == 0 && !S_ISDIR(info.st_mode))) {
      add(name, fs::path(name).filename());
      return;
    }
    const std::string why = S_ISDIR(info.st_mode) ? "is a directory" : std::strerror(errno);
    Job job;
    job.input = name;
    job.error = "cannot read '" + printable(name) + "': " + why;
    plan_.jobs.push_back(std::move(job));
  }

  Plan finish() { return std::move(plan_); }
  Plan& plan() { return plan_; }

 private:
  const BatchInputs& inputs_;
  std::map<std::string, std::string> outputs_;  // output -> the input writing it
  Plan plan_;
};

}  // namespace

std::optional<ImageFormat> output_format(const std::string& path,
                                         std::optional<ImageFormat> format) {
  const std::optional<ImageFormat> f = format ? format : format_for_path(path);
  if (!f || !format_traits(*f).writable) return std::nullopt;
  return f;
}

Job single_job(const std::string& input, const std::string& output,
               std::optional<ImageFormat> format) {
  const std::optional<ImageFormat> f = output_format(output, format);
  if (!f) {
    if (output == "-")
      throw UsageError("writing to standard output ('-') needs --format, e.g. --format png");
    throw UsageError("cannot write '" + printable(output) + "': unknown extension; use " +
                     writable_extensions() + (format ? "" : ", or give --format"));
  }
  if (input != "-" && output != "-" && replaces_input(input, output)) {
    throw UsageError("'" + printable(output) + "' would replace its input '" + printable(input) +
                     "'; write the blur to another file");
  }
  return Job{input, output, *f, false};
}

Plan plan_batch(const BatchInputs& inputs) {
  Planner planner(inputs);
  Plan& plan = planner.plan();
  const WalkOptions walk{inputs.recursive, inputs.follow_links, file_id(inputs.output_dir)};
  std::size_t links_followed = 0;
  std::error_code e;
  for (const std::string& arg : inputs.paths) {
    const fs::path path(arg);
    if (fs::is_directory(path, e)) {
      Listing listing = list_images(path, walk);
      for (const fs::path& relative : listing.images) planner.add(path / relative, relative);
      plan.ignored += listing.ignored;
      links_followed += listing.links_followed;
      for (PlanNote& note : listing.notes) plan.notes.push_back(std::move(note));
    } else {
      planner.add_named(arg);
    }
  }
  if (inputs.from_list) {
    for (const std::string& line : read_list(*inputs.from_list)) planner.add_named(line);
  }
  if (links_followed) plan.notes.push_back(links_note(links_followed));
  return planner.finish();
}

std::vector<Job> shard(const std::vector<Job>& jobs, std::size_t index, std::size_t count) {
  std::vector<Job> sorted = jobs;
  std::sort(sorted.begin(), sorted.end(), [](const Job& a, const Job& b) {
    return a.input != b.input ? a.input < b.input : a.output < b.output;
  });
  std::vector<Job> part;
  for (std::size_t i = index; i < sorted.size(); i += count) part.push_back(std::move(sorted[i]));
  return part;
}

}  // namespace gpublur
