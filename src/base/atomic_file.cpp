// atomic_file.cpp — POSIX temp-and-rename file replacement.
#include "base/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string>

#include "base/errors.hpp"

namespace gpublur {
namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

[[noreturn]] void throw_errno(const std::string& what, const std::string& path, int err) {
  throw IoError(what + " '" + path + "': " + std::strerror(err));
}

mode_t mode_for_new_file(const std::string& path) {
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0) return existing.st_mode & 07777;
  const mode_t mask = ::umask(0);  // reading the umask means setting it; put it back at once
  ::umask(mask);
  return 0666 & ~mask;
}

// The temporaries being written, for remove_temporary_files: fixed slots that a signal handler
// can read without locks (a slot is claimed, its path written, then published). A write that finds
// no free slot goes on unregistered: only an impatient second signal could then leave it behind.
constexpr int kSlots = 128;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 holds a live temporary
  char path[PATH_MAX];
};
Slot slots[kSlots];

int register_temporary(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int free = 0;
    if (slots[i].state.compare_exchange_strong(free, 1)) {
      std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
      slots[i].state.store(2);
      return i;
    }
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) slots[slot].state.store(0);
}

// The longest file name the directory holds.
std::size_t name_max(const std::string& dir) {
  const long max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  return max > 0 ? static_cast<std::size_t>(max) : 255;
}

// Owns a temporary file descriptor and path; removes the file unless released.
class TempFile {
 public:
  explicit TempFile(const std::string& destination) {
    const auto slash = destination.find_last_of('/');
    std::string base = slash == std::string::npos ? destination : destination.substr(slash + 1);
    const std::string dir = directory_of(destination);
    constexpr std::size_t kAdded = 1 + std::char_traits<char>::length(".gpublur-XXXXXX");
    const std::size_t limit = name_max(dir);
    if (base.size() + kAdded > limit) base.resize(limit > kAdded ? limit - kAdded : 0);
    path_ = dir + "/." + base + ".gpublur-XXXXXX";
    fd_ = ::mkstemp(path_.data());
    if (fd_ < 0) throw_errno("cannot create a temporary file for", destination, errno);
    slot_ = register_temporary(path_);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!released_) ::unlink(path_.c_str());
    unregister_temporary(slot_);
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  void close_checked(const std::string& destination) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw_errno("cannot write", destination, errno);
  }
  void release() {
    unregister_temporary(slot_);
    slot_ = -1;
    released_ = true;
  }

 private:
  std::string path_;
  int fd_ = -1;
  int slot_ = -1;
  bool released_ = false;
};

void write_all(int fd, const std::vector<std::uint8_t>& bytes, const std::string& destination) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno("cannot write", destination, errno);
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void check_writable_destination(const std::string& path) {
  const std::string dir = directory_of(path);
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) throw_errno("cannot write", path, errno);
  if (!S_ISDIR(info.st_mode)) throw_errno("cannot write", path, ENOTDIR);
  if (::access(dir.c_str(), W_OK) != 0) throw_errno("cannot write", path, errno);
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw_errno("cannot write", path, EISDIR);
  }
}

void remove_temporary_files() noexcept {
  for (Slot& slot : slots) {
    if (slot.state.load() == 2) ::unlink(slot.path);
  }
}

void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes,
                           Durability durability) {
  const mode_t mode = mode_for_new_file(path);
  TempFile temp(path);
  write_all(temp.fd(), bytes, path);
  if (::fchmod(temp.fd(), mode) != 0) throw_errno("cannot set the mode of", path, errno);
  if (durability == Durability::kFlushed && ::fsync(temp.fd()) != 0) {
    throw_errno("cannot write", path, errno);
  }
  temp.close_checked(path);
  if (::rename(temp.path().c_str(), path.c_str()) != 0) throw_errno("cannot replace", path, errno);
  temp.release();
}

}  // namespace gpublur
