// atomic_file.cpp — POSIX temp-and-rename file replacement; links followed, devices written into.
#include "base/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>

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

// Creates `path`'s file, its last six characters (XXXXXX) replaced by random ones until the name
// is free. Unlike mkstemp (always 0600), the file gets `mode` less the umask and any default ACL,
// as every new file does: the umask is never read, since reading it means setting it, process-wide,
// under the feet of threads creating files and directories at the same moment.
int create_exclusive(std::string& path, mode_t mode) {
  static constexpr char kLetters[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::minstd_rand random(static_cast<std::uint_fast32_t>(
      std::hash<std::thread::id>()(std::this_thread::get_id()) ^
      static_cast<std::size_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
      static_cast<std::size_t>(::getpid())));
  for (int attempt = 0; attempt < 1000; ++attempt) {
    for (std::size_t i = path.size() - 6; i < path.size(); ++i) {
      path[i] = kLetters[random() % (sizeof kLetters - 1)];
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// Owns a temporary file descriptor and path; removes the file unless released.
class TempFile {
 public:
  /// A temporary beside `destination`, created with `mode` less the umask.
  TempFile(const std::string& destination, mode_t mode) {
    const auto slash = destination.find_last_of('/');
    std::string base = slash == std::string::npos ? destination : destination.substr(slash + 1);
    const std::string dir = directory_of(destination);
    constexpr std::size_t kAdded = 1 + std::char_traits<char>::length(".gpublur-XXXXXX");
    const std::size_t limit = name_max(dir);
    if (base.size() + kAdded > limit) base.resize(limit > kAdded ? limit - kAdded : 0);
    path_ = dir + "/." + base + ".gpublur-XXXXXX";
    fd_ = create_exclusive(path_, mode);
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

// The pieces, IOV_MAX at a time: a bottom-up BMP's rows are a piece each (4,320 for an 8K image),
// whose writes one by one cost twice the bytes' time.
void write_all(int fd, const std::vector<ByteSpan>& pieces, const std::string& destination) {
  std::vector<iovec> v;
  v.reserve(std::min<std::size_t>(pieces.size(), IOV_MAX));
  for (std::size_t next = 0; next < pieces.size();) {
    v.clear();
    for (; next < pieces.size() && v.size() < IOV_MAX; ++next) {
      if (pieces[next].size == 0) continue;
      // (writev's vectors are not const; it only reads them)
      v.push_back({const_cast<std::uint8_t*>(pieces[next].data), pieces[next].size});
    }
    for (iovec* at = v.data(); at != v.data() + v.size();) {
      const ssize_t n = ::writev(fd, at, static_cast<int>(v.data() + v.size() - at));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw_errno("cannot write", destination, errno);
      auto left = static_cast<std::size_t>(n);
      for (; at != v.data() + v.size() && left >= at->iov_len; ++at) left -= at->iov_len;
      if (left > 0) {  // within `at`, a piece written in part
        at->iov_base = static_cast<std::uint8_t*>(at->iov_base) + left;
        at->iov_len -= left;
      }
    }
  }
}

// What writing a path meets, found by following its links as open() would.
struct Destination {
  enum class Kind {
    kNew,      // nothing there yet (or a dangling link): `file` is created
    kRegular,  // a regular file: a new one replaces `file` whole
    kInPlace,  // a character device or FIFO (or a file only a magic link names): written into
  };
  Kind kind = Kind::kNew;
  std::string file;  // the name written: past every symbolic link, so links themselves survive
  mode_t mode = 0;   // kRegular: the replaced file's permissions, never setuid, setgid or sticky
};

// `path` with its last component's symbolic links followed, by their text (a relative target
// from its link's directory), to a name that is not a link (and may not exist).
std::string final_name(std::string path, const std::string& asked) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
    std::string target(PATH_MAX, '\0');
    const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n < 0) throw_errno("cannot write", asked, errno);
    target.resize(static_cast<std::size_t>(n));
    path = target.front() == '/' ? target : directory_of(path) + "/" + target;
  }
  throw_errno("cannot write", asked, ELOOP);
}

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw IoError("cannot write '" + path + "': it is " + what +
                "; gpublur writes files, character devices (such as /dev/null) and FIFOs");
}

Destination destination_of(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno != ENOENT) throw_errno("cannot write", path, errno);
    return {Destination::Kind::kNew, final_name(path, path)};
  }
  if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) return {Destination::Kind::kInPlace, path};
  if (S_ISDIR(info.st_mode)) throw_errno("cannot write", path, EISDIR);
  if (S_ISBLK(info.st_mode)) refuse(path, "a block device");
  if (!S_ISREG(info.st_mode)) refuse(path, "a socket");
  Destination d{Destination::Kind::kRegular, final_name(path, path), info.st_mode & 0777};
  struct stat named {};
  if (::stat(d.file.c_str(), &named) != 0 || named.st_dev != info.st_dev ||
      named.st_ino != info.st_ino) {
    // A link whose text names no path to the file (/dev/stdout -> /proc/self/fd/1 of a file
    // deleted since): only the link itself reaches it.
    return {Destination::Kind::kInPlace, path};
  }
  return d;
}

// A character device or FIFO, opened as `>` would (a FIFO waits for its reader), written without
// truncation; a regular file reached only through a magic link, truncated first.
void write_in_place(const Destination& d, const std::vector<ByteSpan>& bytes, Durability durability,
                    const std::string& path) {
  struct stat info {};
  const bool regular = ::stat(d.file.c_str(), &info) == 0 && S_ISREG(info.st_mode);
  const int fd = ::open(d.file.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | (regular ? O_TRUNC : 0));
  if (fd < 0) throw_errno("cannot write", path, errno);
  try {
    write_all(fd, bytes, path);
    if (regular && durability == Durability::kFlushed && ::fsync(fd) != 0) {
      throw_errno("cannot write", path, errno);
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw_errno("cannot write", path, errno);
}

// A new file in `d.file`'s directory, renamed over it once whole.
void replace(const Destination& d, const std::vector<ByteSpan>& bytes, Durability durability,
             const std::string& path) {
  const bool replacing = d.kind == Destination::Kind::kRegular;
  // A replaced file's bytes stay private (0600) until its own mode is set.
  TempFile temp(d.file, replacing ? 0600 : 0666);
  write_all(temp.fd(), bytes, path);
  if (replacing && ::fchmod(temp.fd(), d.mode) != 0) {
    throw_errno("cannot set the mode of", path, errno);
  }
  if (durability == Durability::kFlushed && ::fsync(temp.fd()) != 0) {
    throw_errno("cannot write", path, errno);
  }
  temp.close_checked(path);
  if (::rename(temp.path().c_str(), d.file.c_str()) != 0) {
    throw_errno("cannot replace", path, errno);
  }
  temp.release();
}

}  // namespace

void check_writable_destination(const std::string& path) {
  const Destination d = destination_of(path);
  if (d.kind == Destination::Kind::kInPlace) {
    if (::access(d.file.c_str(), W_OK) != 0) throw_errno("cannot write", path, errno);
    return;
  }
  const std::string dir = directory_of(d.file);
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) throw_errno("cannot write", path, errno);
  if (!S_ISDIR(info.st_mode)) throw_errno("cannot write", path, ENOTDIR);
  if (::access(dir.c_str(), W_OK) != 0) throw_errno("cannot write", path, errno);
}

void make_output_directory(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (!error && !std::filesystem::is_directory(dir, error)) {
    error = std::make_error_code(std::errc::not_a_directory);
  }
  if (error) {
    throw IoError("cannot create the output directory '" + dir + "': " + error.message());
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw_errno("cannot write into the output directory", dir, errno);
  }
}

void remove_temporary_files() noexcept {
  for (Slot& slot : slots) {
    if (slot.state.load() == 2) ::unlink(slot.path);
  }
}

void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes,
                           Durability durability) {
  write_file_atomically(path, std::vector<ByteSpan>{{bytes.data(), bytes.size()}}, durability);
}

void write_file_atomically(const std::string& path, const std::vector<ByteSpan>& pieces,
                           Durability durability) {
  const Destination d = destination_of(path);
  if (d.kind == Destination::Kind::kInPlace) {
    write_in_place(d, pieces, durability, path);
  } else {
    replace(d, pieces, durability, path);
  }
}

void replace_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes,
                             Durability durability) {
  struct stat info {};
  Destination d{Destination::Kind::kNew, path};
  if (::lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
    d = Destination{Destination::Kind::kRegular, path, info.st_mode & 0777};
  }
  replace(d, {{bytes.data(), bytes.size()}}, durability, path);
}

}  // namespace gpublur
