// regular_file.hpp — reading a file only where it is a regular file: a FIFO, device or socket
// planted or named where a file was expected is never waited on, and never read (a pipe's bytes,
// once read, would be gone for whoever else reads it). Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/unique_handle.hpp"

namespace gpublur {

struct FileStart {
  std::vector<std::uint8_t> bytes;  // up to the limit asked for
  bool whole = false;               // the file is no longer than the limit, and all of it is here
};

/// A file descriptor, closed when its owner goes.
struct FileDescriptorTraits {
  using Handle = int;
  static int null() noexcept { return -1; }
  static void destroy(int fd);
};
using FileDescriptor = UniqueHandle<FileDescriptorTraits>;

/// A read-only descriptor of the regular file at `path` (its size in `size`), or none where it is
/// not one or cannot be opened. Anything else is never opened: opening a
/// FIFO lets its writer through, and closing it again leaves that writer without a reader (killed
/// by SIGPIPE) and whoever opens it next without a writer; a tape rewinds when closed. Looked at
/// (stat) before it is opened, and again (fstat) once open.
FileDescriptor open_regular_file(const std::string& path, std::uint64_t& size);

/// Up to `limit` bytes from the start of the regular file at `path`; nullopt where it cannot be
/// opened or read, or is not a regular file (open_regular_file: anything else is never opened).
std::optional<FileStart> read_regular_file(const std::string& path, std::size_t limit);

}  // namespace gpublur
