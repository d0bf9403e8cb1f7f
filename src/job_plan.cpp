// job_plan.cpp — listing inputs and naming outputs.
#include "job_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <system_error>

#include "errors.hpp"
#include "image_decode.hpp"

namespace gpublur {
namespace {

namespace fs = std::filesystem;

bool hidden(const fs::path& name) { return !name.empty() && name.string()[0] == '.'; }

// The image files below `dir` (relative paths, sorted), and how many other files were passed over.
std::vector<fs::path> images_in(const fs::path& dir, bool recursive, std::size_t& ignored) {
  std::vector<fs::path> found;
  std::error_code error;
  const auto take = [&](const fs::directory_entry& entry) {
    std::error_code e;
    if (!entry.is_regular_file(e)) return;  // links to files count; directories, devices do not
    if (format_for_path(entry.path().filename().string())) {
      found.push_back(fs::relative(entry.path(), dir, e));
    } else {
      ++ignored;
    }
  };
  const auto options = fs::directory_options::skip_permission_denied;
  if (recursive) {
    fs::recursive_directory_iterator it(dir, options, error), end;
    for (; !error && it != end; it.increment(error)) {
      if (hidden(it->path().filename())) {
        if (it->is_directory(error)) it.disable_recursion_pending();
        continue;
      }
      take(*it);
    }
  } else {
    for (fs::directory_iterator it(dir, options, error), end; !error && it != end;
         it.increment(error)) {
      if (!hidden(it->path().filename())) take(*it);
    }
  }
  if (error) throw UsageError("cannot list '" + printable(dir.string()) + "': " + error.message());
  std::sort(found.begin(), found.end());
  return found;
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

class Planner {
 public:
  explicit Planner(const BatchInputs& inputs) : inputs_(inputs) {}

  void add(const fs::path& input, const fs::path& relative_output) {
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
    std::error_code e;
    if (fs::equivalent(input, output, e)) {
      throw UsageError("'" + printable(output.string()) +
                       "' would replace its input; choose another -o directory");
    }
    Job job{in, output.string(), *format, fs::exists(output, e)};
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
  return Job{input, output, *f, false};
}

Plan plan_batch(const BatchInputs& inputs) {
  Planner planner(inputs);
  std::error_code e;
  for (const std::string& arg : inputs.paths) {
    const fs::path path(arg);
    if (fs::is_directory(path, e)) {
      for (const fs::path& relative : images_in(path, inputs.recursive, planner.plan().ignored)) {
        planner.add(path / relative, relative);
      }
    } else {
      planner.add(path, path.filename());
    }
  }
  if (inputs.from_list) {
    for (const std::string& line : read_list(*inputs.from_list))
      planner.add(line, fs::path(line).filename());
  }
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
