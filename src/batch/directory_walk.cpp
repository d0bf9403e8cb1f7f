// directory_walk.cpp — listing a batch's directories by hand (directory_iterator one level at a
// time), so each relative path is built from the names listed and each directory is checked
// against the ones above it and the output directory before it is entered.
#include "batch/directory_walk.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <system_error>

#include "base/errors.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_format.hpp"

namespace gpublur {
namespace {

namespace fs = std::filesystem;

bool hidden(const fs::path& name) { return !name.empty() && name.string()[0] == '.'; }

std::string quoted(const fs::path& path) { return "'" + printable(path.string()) + "'"; }

class Walk {
 public:
  Walk(const WalkOptions& options, Listing& listing) : options_(options), listing_(listing) {}

  // Lists `dir`, whose files are named `relative`/NAME; `id` is its own.
  void directory(const fs::path& dir, const fs::path& relative, FileId id) {
    ancestors_.push_back(id);
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
      entry(*it, relative);
    }
    ancestors_.pop_back();
    if (!error) return;
    if (relative.empty()) throw UsageError("cannot list " + quoted(dir) + ": " + error.message());
    say("cannot list " + quoted(dir) + ": " + error.message() + "; passed over");
  }

 private:
  void say(std::string text, bool verbose = false) {
    listing_.notes.push_back(PlanNote{std::move(text), verbose});
  }

  void entry(const fs::directory_entry& entry, const fs::path& relative) {
    const fs::path& path = entry.path();
    const fs::path name = path.filename();
    if (hidden(name)) return;
    std::error_code error;
    const bool link = entry.is_symlink(error);
    struct stat info {};
    const bool exists = ::stat(path.c_str(), &info) == 0;  // through links
    const bool is_directory = exists && S_ISDIR(info.st_mode);
    const bool image = !is_directory && format_for_path(name.string()).has_value();
    if (link && !options_.follow_links) {
      if (image || (is_directory && options_.recursive)) {
        say("skipped " + quoted(path) + ": a symbolic link (--no-follow-links)");
      }
      return;
    }
    if (is_directory) {
      if (options_.recursive) enter(path, relative / name, FileId{info.st_dev, info.st_ino}, link);
    } else if (!image) {
      if (exists && S_ISREG(info.st_mode)) ++listing_.ignored;
    } else if (!exists || S_ISREG(info.st_mode)) {  // never a FIFO, device or socket
      listing_.images.push_back(relative / name);
      if (link) ++listing_.links_followed;
    }
  }

  void enter(const fs::path& dir, const fs::path& relative, FileId id, bool link) {
    if (options_.skip && id == *options_.skip) {
      say("not listing " + quoted(dir) + ": it is the output directory (-o)", true);
      return;
    }
    if (std::find(ancestors_.begin(), ancestors_.end(), id) != ancestors_.end()) {
      say("skipped " + quoted(dir) + ": a link to a directory above it (it would loop)");
      return;
    }
    if (link) ++listing_.links_followed;
    directory(dir, relative, id);
  }

  const WalkOptions& options_;
  Listing& listing_;
  std::vector<FileId> ancestors_;  // of the directory being listed, itself included
};

}  // namespace

std::optional<FileId> file_id(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileId{info.st_dev, info.st_ino};
}

Listing list_images(const fs::path& dir, const WalkOptions& options) {
  Listing listing;
  const std::optional<FileId> id = file_id(dir);
  if (!id) {
    throw UsageError("cannot list " + quoted(dir) + ": " +
                     std::error_code(errno, std::generic_category()).message());
  }
  Walk(options, listing).directory(dir, fs::path(), *id);
  std::sort(listing.images.begin(), listing.images.end());
  return listing;
}

}  // namespace gpublur
