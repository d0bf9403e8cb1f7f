// unique_handle.hpp — one move-only owner template for every C handle (CUDA driver, NVRTC).
// Traits supply: using Handle; static Handle null() noexcept; static void destroy(Handle)
// (may throw). The destructor never throws: it reports a failed destroy on stderr instead.
// Callers that must know whether cleanup worked call close(), which throws.
#pragma once

#include <cstdio>
#include <exception>
#include <utility>

namespace gpublur {

template <typename Traits>
class UniqueHandle {
 public:
  using Handle = typename Traits::Handle;

  UniqueHandle() noexcept = default;
  explicit UniqueHandle(Handle handle) noexcept : handle_(handle) {}
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(other.release()) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = other.release();
    }
    return *this;
  }
  ~UniqueHandle() { reset(); }

  Handle get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != Traits::null(); }

  /// Gives up ownership without destroying.
  Handle release() noexcept { return std::exchange(handle_, Traits::null()); }

  /// Destroys the handle now; throws what Traits::destroy throws. Empty afterwards either way.
  void close() {
    const Handle handle = release();
    if (handle != Traits::null()) Traits::destroy(handle);
  }

  /// Destroys the handle now; a failure is reported on stderr, never thrown.
  void reset() noexcept {
    try {
      close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpublur: warning: cleanup failed: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "gpublur: warning: cleanup failed\n");
    }
  }

 private:
  Handle handle_ = Traits::null();
};

}  // namespace gpublur
