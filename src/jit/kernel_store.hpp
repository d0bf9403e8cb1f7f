// kernel_store.hpp — where compiled kernels persist between runs. An interface, so cache logic
// is tested with an in-memory store; FileKernelStore keeps one checksummed file per key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpublur {

class KernelStore {
 public:
  virtual ~KernelStore() = default;
  /// The bytes stored under `key`, or nullopt: absent, unreadable, truncated or corrupt
  /// entries are all misses, never errors.
  virtual std::optional<std::vector<std::uint8_t>> load(const std::string& key) = 0;
  /// Stores `bytes` under `key`, replacing any entry. Returns an empty string, or why it could
  /// not (the caller warns; a cache that cannot be written is never a failure).
  virtual std::string store(const std::string& key, const std::vector<std::uint8_t>& bytes) = 0;
};

/// The cache directory: $GPUBLUR_CACHE_DIR, else $XDG_CACHE_HOME/gpublur, else
/// $HOME/.cache/gpublur; empty when none of these is set.
std::string default_cache_dir();

/// One file per key, `<dir>/<key>.kernel`: magic "GPUBLURK", format version, payload size,
/// SHA-256 of the payload, payload. Written to a temporary file and renamed, so concurrent
/// processes never see a partial entry. Thread-compatible.
class FileKernelStore final : public KernelStore {
 public:
  static constexpr std::uint32_t kFormatVersion = 1;
  explicit FileKernelStore(std::string dir) : dir_(std::move(dir)) {}
  std::optional<std::vector<std::uint8_t>> load(const std::string& key) override;
  std::string store(const std::string& key, const std::vector<std::uint8_t>& bytes) override;
  std::string path_for(const std::string& key) const { return dir_ + "/" + key + ".kernel"; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace gpublur
