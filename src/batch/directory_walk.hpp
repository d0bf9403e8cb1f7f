// directory_walk.hpp — the image files below a directory, named by their paths as listed (never
// by where a link leads, so a name below the directory stays below it): symbolic links followed
// or skipped, a link back to a directory above it not entered (no loop), one directory left out
// (the batch's output), and each of these said in a line for the user.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpublur {

/// A file by device and inode: the same file however its path is spelled.
struct FileId {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FileId& other) const {
    return device == other.device && inode == other.inode;
  }
};

/// The file `path` names (links followed); nullopt where it does not exist or cannot be reached.
std::optional<FileId> file_id(const std::filesystem::path& path);

/// A line for the user about what a listing took or passed over.
struct PlanNote {
  std::string text;
  bool verbose = false;  // said only with --verbose
};

struct WalkOptions {
  bool recursive = false;      // descend into subdirectories
  bool follow_links = true;    // read through links to files and list linked directories
  std::optional<FileId> skip;  // a directory never listed (the batch's output directory)
};

struct Listing {
  /// Image files (by name) below the directory, sorted: relative paths made of the names listed,
  /// so never absolute and never with "..".
  std::vector<std::filesystem::path> images;
  std::size_t ignored = 0;         // files whose names are not of images gpublur reads
  std::size_t links_followed = 0;  // among `images` and the directories listed
  std::vector<PlanNote> notes;     // links skipped, loops, the skipped directory, unlistable ones
};

/// Lists `dir`. Hidden names (".x") are passed over; so are FIFOs, devices and sockets. A link
/// that leads nowhere is listed where its name is an image's (reading it then fails, reported).
/// Throws UsageError where `dir` itself cannot be listed; a subdirectory that cannot is a note.
Listing list_images(const std::filesystem::path& dir, const WalkOptions& options);

}  // namespace gpublur
