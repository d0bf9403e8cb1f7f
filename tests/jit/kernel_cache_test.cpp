// kernel_cache_test.cpp — cache keys, entry payloads, the compile-or-load decision (with an
// in-memory store and a fake compiler), and the file store's handling of damaged entries.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "base/sha256.hpp"
#include "jit/kernel_cache.hpp"

using namespace gpublur;

namespace {

class MemoryKernelStore final : public KernelStore {
 public:
  std::optional<std::vector<std::uint8_t>> load(const std::string& key) override {
    ++loads;
    auto it = entries.find(key);
    if (it == entries.end()) return std::nullopt;
    return it->second;
  }
  std::string store(const std::string& key, const std::vector<std::uint8_t>& bytes) override {
    if (read_only) return "read-only store";
    entries[key] = bytes;
    return "";
  }
  std::map<std::string, std::vector<std::uint8_t>> entries;
  int loads = 0;
  bool read_only = false;
};

// Stands in for NVRTC: deterministic output derived from the source, and a call count.
struct FakeCompiler {
  int calls = 0;
  CompiledKernel operator()(const KernelSource& kernel, const CompilePlan& plan) {
    ++calls;
    CompiledKernel c;
    c.plan = plan;
    c.options = compile_options(plan);
    c.ptx = ".target " + plan.arch.sm() + " // " + std::to_string(kernel.source.size());
    if (plan.target == Target::kCubin) c.cubin = {'\x7f', 'E', 'L', 'F', 1, 2, 3};
    return c;
  }
};

// The compile layer takes any program: it knows nothing of blurs.
const KernelSource kKernel{"test.cu", "extern \"C\" __global__ void gb_test_kernel(int* p) { *p = 7; }\n"};
const CompilePlan kPlan{Arch{9, 0}, Target::kCubin, ""};

struct TempDir {
  std::string path =
      std::filesystem::temp_directory_path() / ("gpublur-cache-" + std::to_string(::getpid()));
  TempDir() { std::filesystem::remove_all(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("SHA-256 matches the standard test vector", "[cache]") {
  CHECK(to_hex(sha256("abc", 3)) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(to_hex(Sha256().field("ab").field("c").digest()) !=
        to_hex(Sha256().field("a").field("bc").digest()));
}

TEST_CASE("cache keys change with every input and only with them", "[cache]") {
  const std::string key = cache_key(kKernel, kPlan, "NVRTC 13.0 a");
  CHECK(key.size() == 64);
  CHECK(cache_key(kKernel, kPlan, "NVRTC 13.0 a") == key);
  CHECK(cache_key(kKernel, kPlan, "NVRTC 13.0 b") != key);
  CHECK(cache_key(kKernel, CompilePlan{Arch{9, 0}, Target::kPtx, ""}, "NVRTC 13.0 a") != key);
  CHECK(cache_key(kKernel, CompilePlan{Arch{8, 6}, Target::kCubin, ""}, "NVRTC 13.0 a") != key);
  CHECK(cache_key(KernelSource{"test.cu", kKernel.source + " "}, kPlan, "NVRTC 13.0 a") != key);
  CHECK(cache_key(KernelSource{"other.cu", kKernel.source}, kPlan, "NVRTC 13.0 a") == key);
  CHECK(cache_key(kKernel, CompilePlan{Arch{9, 0}, Target::kCubin, "a note"}, "NVRTC 13.0 a") ==
        key);
}

TEST_CASE("payloads round-trip and malformed ones are refused", "[cache]") {
  FakeCompiler compiler;
  const CompiledKernel c = compiler(kKernel, kPlan);
  const std::vector<std::uint8_t> payload = serialize(c);
  const auto back = deserialize(payload);
  REQUIRE(back);
  CHECK(back->ptx == c.ptx);
  CHECK(back->cubin == c.cubin);
  CHECK(back->options == c.options);
  CHECK(back->plan.arch == c.plan.arch);
  for (std::size_t cut : {std::size_t{0}, std::size_t{5}, payload.size() / 2, payload.size() - 1}) {
    CHECK_FALSE(deserialize(
        std::vector<std::uint8_t>(payload.begin(), payload.begin() + static_cast<long>(cut))));
  }
  std::vector<std::uint8_t> longer = payload;
  longer.push_back(0);
  CHECK_FALSE(deserialize(longer));
}

TEST_CASE("a miss compiles and stores; a hit does not compile", "[cache]") {
  MemoryKernelStore store;
  FakeCompiler compiler;
  auto compile = [&](const KernelSource& k, const CompilePlan& p) { return compiler(k, p); };
  const CacheResult first = compile_cached(kKernel, kPlan, &store, "id", compile);
  CHECK_FALSE(first.hit);
  CHECK(compiler.calls == 1);
  CHECK(store.entries.count(first.key) == 1);
  const CacheResult second = compile_cached(kKernel, kPlan, &store, "id", compile);
  CHECK(second.hit);
  CHECK(compiler.calls == 1);
  CHECK(second.compiled.cubin == first.compiled.cubin);
  SECTION("a corrupt entry is a miss and is replaced") {
    store.entries[first.key] = {1, 2, 3};
    const CacheResult again = compile_cached(kKernel, kPlan, &store, "id", compile);
    CHECK_FALSE(again.hit);
    CHECK(compiler.calls == 2);
    CHECK(deserialize(store.entries[first.key]));
  }
  SECTION("skip_lookup recompiles, as after the driver rejected an entry") {
    CHECK_FALSE(compile_cached(kKernel, kPlan, &store, "id", compile, true).hit);
    CHECK(compiler.calls == 2);
  }
  SECTION("no store: always compile") {
    CHECK_FALSE(compile_cached(kKernel, kPlan, nullptr, "id", compile).hit);
    CHECK(compiler.calls == 2);
  }
  SECTION("a store that cannot be written is reported, not fatal") {
    MemoryKernelStore read_only;
    read_only.read_only = true;
    const CacheResult r = compile_cached(kKernel, kPlan, &read_only, "id", compile);
    CHECK(r.store_problem == "read-only store");
    CHECK_FALSE(r.compiled.cubin.empty());
  }
}

TEST_CASE("the file store rejects damaged entries and survives an unwritable directory",
          "[cache]") {
  TempDir dir;
  FileKernelStore store(dir.path + "/nested/cache");
  const std::vector<std::uint8_t> bytes{10, 20, 30, 40, 50};
  CHECK_FALSE(store.load("k"));
  REQUIRE(store.store("k", bytes).empty());
  CHECK(store.load("k") == bytes);
  const std::string path = store.path_for("k");
  std::string entry;
  {
    std::ifstream in(path, std::ios::binary);
    entry.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto rewrite = [&](const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
  };
  rewrite(entry.substr(0, entry.size() - 1));
  CHECK_FALSE(store.load("k"));  // truncated
  std::string flipped = entry;
  flipped.back() = static_cast<char>(flipped.back() ^ 1);
  rewrite(flipped);
  CHECK_FALSE(store.load("k"));  // checksum
  std::string other_version = entry;
  other_version[8] = 99;
  rewrite(other_version);
  CHECK_FALSE(store.load("k"));  // format version
  rewrite("GPUBLURX" + entry.substr(8));
  CHECK_FALSE(store.load("k"));  // magic

  if (::geteuid() != 0) {  // root writes anywhere; the read-only case needs an ordinary user
    ::chmod(dir.path.c_str(), 0500);
    FileKernelStore blocked(dir.path + "/new");
    CHECK_FALSE(blocked.store("k", bytes).empty());
    ::chmod(dir.path.c_str(), 0700);
  }
  FileKernelStore under_a_file(path + "/sub");  // a path through a regular file
  CHECK_FALSE(under_a_file.store("k", bytes).empty());
}

TEST_CASE("an entry that is not a regular file is a miss: no hang, no error", "[cache]") {
  TempDir dir;
  FileKernelStore store(dir.path);
  std::filesystem::create_directories(dir.path);
  const std::vector<std::uint8_t> bytes{1, 2, 3};
  std::filesystem::create_directory(store.path_for("dir"));
  CHECK_FALSE(store.load("dir"));
  CHECK_FALSE(store.store("dir", bytes).empty());  // cannot replace a directory: reported
  REQUIRE(::mkfifo(store.path_for("fifo").c_str(), 0600) == 0);
  CHECK_FALSE(store.load("fifo"));  // returns at once: no writer is waited for
  std::filesystem::create_symlink("/dev/zero", store.path_for("zero"));
  CHECK_FALSE(store.load("zero"));  // endless: never read
  std::filesystem::create_symlink(store.path_for("none"), store.path_for("dangling"));
  CHECK_FALSE(store.load("dangling"));
  // A link to a good entry is followed, as users who share caches by links expect.
  REQUIRE(store.store("real", bytes).empty());
  std::filesystem::create_symlink(store.path_for("real"), store.path_for("link"));
  CHECK(store.load("link") == bytes);
  // Replacing the FIFO with a real entry works: the rename replaces it.
  REQUIRE(store.store("fifo", bytes).empty());
  CHECK(store.load("fifo") == bytes);
}

TEST_CASE("the cache directory follows GPUBLUR_CACHE_DIR, XDG_CACHE_HOME, HOME", "[cache]") {
  const std::string saved_home = std::getenv("HOME") ? std::getenv("HOME") : "";
  ::unsetenv("GPUBLUR_CACHE_DIR");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/u", 1);
  CHECK(default_cache_dir() == "/home/u/.cache/gpublur");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  CHECK(default_cache_dir() == "/xdg/gpublur");
  ::setenv("GPUBLUR_CACHE_DIR", "/explicit", 1);
  CHECK(default_cache_dir() == "/explicit");
  ::unsetenv("GPUBLUR_CACHE_DIR");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", saved_home.c_str(), 1);
}
