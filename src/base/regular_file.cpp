// regular_file.cpp — open without waiting, fstat, then read.
#include "base/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace gpublur {

std::optional<FileStart> read_regular_file(const std::string& path, std::size_t limit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<FileStart> start;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0) {
    const auto size = static_cast<std::uint64_t>(st.st_size);
    std::vector<std::uint8_t> data(static_cast<std::size_t>(std::min<std::uint64_t>(size, limit)));
    std::size_t done = 0;
    bool failed = false;
    while (done < data.size()) {
      const ssize_t n = ::read(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      failed = n < 0;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (!failed) {
      data.resize(done);
      start = FileStart{std::move(data), size <= limit && done == size};
    }
  }
  ::close(fd);
  return start;
}

}  // namespace gpublur
