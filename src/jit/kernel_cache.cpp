// kernel_cache.cpp — cache keys, entry payloads and the compile-or-load decision.
#include "jit/kernel_cache.hpp"

#include <algorithm>
#include <cstring>

#include "base/little_endian.hpp"
#include "base/sha256.hpp"

namespace gpublur {
namespace {

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) { put_le(out, v, 8); }

void put_bytes(std::vector<std::uint8_t>& out, const void* data, std::size_t size) {
  put_u64(out, size);
  const auto* p = static_cast<const std::uint8_t*>(data);
  out.insert(out.end(), p, p + size);
}

// Reads the fields put_* wrote, refusing to run past the end.
class Reader {
 public:
  explicit Reader(const std::vector<std::uint8_t>& bytes) : bytes_(bytes) {}
  bool u64(std::uint64_t& v) {
    if (bytes_.size() - pos_ < 8) return false;
    v = get_le(bytes_.data() + pos_, 8);
    pos_ += 8;
    return true;
  }
  template <typename Container>
  bool bytes(Container& out) {
    std::uint64_t size = 0;
    if (!u64(size) || bytes_.size() - pos_ < size) return false;
    out.assign(bytes_.begin() + static_cast<long>(pos_),
               bytes_.begin() + static_cast<long>(pos_ + size));
    pos_ += size;
    return true;
  }
  bool at_end() const { return pos_ == bytes_.size(); }

 private:
  const std::vector<std::uint8_t>& bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string cache_key(const KernelSource& kernel, const CompilePlan& plan,
                      const std::string& nvrtc_identity) {
  std::vector<std::string> options = compile_options(plan);
  std::sort(options.begin(), options.end());
  Sha256 hash;
  hash.field("gpublur kernel cache").field(std::to_string(kCacheFormatVersion));
  hash.field(kernel.source);
  hash.field(std::to_string(options.size()));
  for (const auto& o : options) hash.field(o);
  hash.field(target_name(plan.target)).field(plan.arch.sm()).field(nvrtc_identity);
  return to_hex(hash.digest());
}

std::vector<std::uint8_t> serialize(const CompiledKernel& c) {
  std::vector<std::uint8_t> out;
  put_u64(out, c.plan.target == Target::kPtx ? 1 : 0);
  put_u64(out, static_cast<std::uint64_t>(c.plan.arch.number()));
  put_u64(out, c.options.size());
  for (const auto& o : c.options) put_bytes(out, o.data(), o.size());
  put_bytes(out, c.ptx.data(), c.ptx.size());
  put_bytes(out, c.cubin.data(), c.cubin.size());
  put_bytes(out, c.log.data(), c.log.size());
  return out;
}

std::optional<CompiledKernel> deserialize(const std::vector<std::uint8_t>& payload) {
  Reader in(payload);
  CompiledKernel c;
  std::uint64_t target = 0, arch = 0, option_count = 0;
  if (!in.u64(target) || target > 1 || !in.u64(arch) || arch > 1000 || !in.u64(option_count) ||
      option_count > 64) {
    return std::nullopt;
  }
  c.plan.target = target == 1 ? Target::kPtx : Target::kCubin;
  c.plan.arch = arch_from_number(static_cast<int>(arch));
  c.options.resize(option_count);
  for (auto& o : c.options) {
    if (!in.bytes(o)) return std::nullopt;
  }
  if (!in.bytes(c.ptx) || !in.bytes(c.cubin) || !in.bytes(c.log) || !in.at_end())
    return std::nullopt;
  if (c.ptx.empty() || (c.plan.target == Target::kCubin && c.cubin.empty())) return std::nullopt;
  return c;
}

CacheResult compile_cached(const KernelSource& kernel, const CompilePlan& plan,
                           KernelStore* store, const std::string& nvrtc_identity,
                           const Compiler& compile, bool skip_lookup) {
  CacheResult r;
  r.key = cache_key(kernel, plan, nvrtc_identity);
  if (store && !skip_lookup) {
    if (auto payload = store->load(r.key)) {
      if (auto compiled = deserialize(*payload);
          compiled && compiled->plan.target == plan.target && compiled->plan.arch == plan.arch) {
        compiled->plan.note = plan.note;
        r.compiled = std::move(*compiled);
        r.hit = true;
        return r;
      }
    }
  }
  r.compiled = compile(kernel, plan);
  if (store) r.store_problem = store->store(r.key, serialize(r.compiled));
  return r;
}

}  // namespace gpublur
