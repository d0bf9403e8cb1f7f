// kernel_store.cpp — the on-disk kernel cache format.
#include "jit/kernel_store.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/atomic_file.hpp"
#include "base/errors.hpp"
#include "base/little_endian.hpp"
#include "base/regular_file.hpp"
#include "base/sha256.hpp"

namespace gpublur {
namespace {

constexpr char kMagic[8] = {'G', 'P', 'U', 'B', 'L', 'U', 'R', 'K'};
constexpr std::size_t kHeaderSize = 8 + 4 + 8 + 32;
// Far above any kernel (CUBINs and PTX are a few hundred KB): a bigger entry is not ours.
constexpr std::uint64_t kMaxEntryBytes = std::uint64_t{64} << 20;

// mkdir -p; returns an empty string or why not.
std::string make_directories(const std::string& dir) {
  for (std::size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    const std::string prefix = dir.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return "cannot create '" + prefix + "': " + std::strerror(errno);
    }
  }
  return "";
}

}  // namespace

std::string default_cache_dir() {
  if (const char* dir = std::getenv("GPUBLUR_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/gpublur";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/gpublur";
  return "";
}

std::optional<std::vector<std::uint8_t>> FileKernelStore::load(const std::string& key) {
  // Not a regular file of at most kMaxEntryBytes that reads whole (a FIFO planted in the cache
  // is neither waited on nor read): a miss.
  const std::optional<FileStart> read = read_regular_file(path_for(key), kMaxEntryBytes);
  if (!read || !read->whole) return std::nullopt;
  const std::vector<std::uint8_t>& entry = read->bytes;
  if (entry.size() < kHeaderSize || std::memcmp(entry.data(), kMagic, sizeof kMagic) != 0)
    return std::nullopt;
  if (get_le(entry.data() + 8, 4) != kFormatVersion) return std::nullopt;
  const std::uint64_t size = get_le(entry.data() + 12, 8);
  if (size != entry.size() - kHeaderSize) return std::nullopt;  // truncated or padded
  std::vector<std::uint8_t> payload(entry.begin() + static_cast<long>(kHeaderSize), entry.end());
  const Digest digest = sha256(payload.data(), payload.size());
  if (std::memcmp(digest.data(), entry.data() + 20, digest.size()) != 0) return std::nullopt;
  return payload;
}

std::string FileKernelStore::store(const std::string& key, const std::vector<std::uint8_t>& bytes) {
  if (dir_.empty()) return "no cache directory ($HOME is not set)";
  if (std::string why = make_directories(dir_); !why.empty()) return why;
  std::vector<std::uint8_t> entry(kMagic, kMagic + sizeof kMagic);
  put_le(entry, kFormatVersion, 4);
  put_le(entry, bytes.size(), 8);
  const Digest digest = sha256(bytes.data(), bytes.size());
  entry.insert(entry.end(), digest.begin(), digest.end());
  entry.insert(entry.end(), bytes.begin(), bytes.end());
  try {
    replace_file_atomically(path_for(key), entry,
                            Durability::kRenamed);  // a cache: a lost entry is a miss
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

}  // namespace gpublur
