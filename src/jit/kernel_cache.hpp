// kernel_cache.hpp — compile once, load from the KernelStore ever after. The key is a SHA-256
// over everything that changes the compiled bytes; a miss, a corrupt entry or one the driver
// rejects means compiling again and replacing the entry.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "jit/kernel_source.hpp"
#include "jit/kernel_store.hpp"
#include "jit/nvrtc.hpp"

namespace gpublur {

/// Bumped whenever the entry payload's layout or its meaning changes, or what the key hashes.
constexpr int kCacheFormatVersion = 2;

/// Hex SHA-256 of the length-prefixed list: cache format version, the kernel's source, NVRTC
/// options (sorted), target and architecture, NVRTC identity (version and build). Pure.
std::string cache_key(const KernelSource& kernel, const CompilePlan& plan,
                      const std::string& nvrtc_identity);

/// CompiledKernel <-> entry payload. deserialize returns nullopt for anything malformed.
std::vector<std::uint8_t> serialize(const CompiledKernel& compiled);
std::optional<CompiledKernel> deserialize(const std::vector<std::uint8_t>& payload);

using Compiler = std::function<CompiledKernel(const KernelSource&, const CompilePlan&)>;

struct CacheResult {
  CompiledKernel compiled;
  bool hit = false;
  std::string key;
  std::string store_problem;  // non-empty when a fresh compile could not be stored: warn
};

/// Loads the kernel from `store` (nullptr: no cache) or compiles it with `compile` and stores
/// it. `skip_lookup` forces a compile (used when the driver rejected a cached entry).
CacheResult compile_cached(const KernelSource& kernel, const CompilePlan& plan,
                           KernelStore* store, const std::string& nvrtc_identity,
                           const Compiler& compile, bool skip_lookup = false);

}  // namespace gpublur
