// regular_file.cpp — stat, open without waiting, fstat, then read.
#include "base/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace gpublur {

void FileDescriptorTraits::destroy(int fd) { ::close(fd); }

FileDescriptor open_regular_file(const std::string& path, std::uint64_t& size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  // O_NONBLOCK: should a FIFO have taken the file's place since, opening it does not wait.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) return {};
  size = static_cast<std::uint64_t>(st.st_size);
  return fd;
}

std::optional<FileStart> read_regular_file(const std::string& path, std::size_t limit) {
  std::uint64_t size = 0;
  const FileDescriptor fd = open_regular_file(path, size);
  if (!fd) return std::nullopt;
  std::vector<std::uint8_t> data(static_cast<std::size_t>(std::min<std::uint64_t>(size, limit)));
  std::size_t done = 0;
  bool failed = false;
  while (done < data.size()) {
    const ssize_t n = ::read(fd.get(), data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    failed = n < 0;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (failed) return std::nullopt;
  data.resize(done);
  return FileStart{std::move(data), size <= limit && done == size};
}

}  // namespace gpublur
