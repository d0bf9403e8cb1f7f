// staging_pool.hpp — pinned host memory that large images pass through on their way to and from
// a GPU, allocated once and reused: pinning an image's own memory (cuMemHostRegister) costs more
// per byte than copying it, and a copy from pageable memory is neither asynchronous nor at the
// link's speed. Blocks are bounded in total, so the pinned memory of a batch does not grow with
// its images. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "gpu/cuda_driver.hpp"

namespace gpublur {

class StagingPool {
 public:
  /// At most `limit` bytes of blocks in all (one block is always allowed, however large).
  explicit StagingPool(std::size_t limit);
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  /// A block of pinned memory, returned to the pool when it goes.
  class Block {
   public:
    Block() = default;
    Block(Block&& other) noexcept;
    Block& operator=(Block&& other) noexcept;
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;
    ~Block();
    void* get() const { return buffer_ ? buffer_->get() : nullptr; }
    explicit operator bool() const { return buffer_ != nullptr; }

   private:
    friend class StagingPool;
    StagingPool* pool_ = nullptr;
    std::unique_ptr<cuda::PinnedHostBuffer> buffer_;
  };

  /// A block of at least `bytes`: a free one that fits, else a new one (in the context current
  /// on the calling thread), waiting while the pool's limit is held by blocks in use. Throws
  /// CudaError where the driver cannot allocate.
  Block acquire(std::size_t bytes);

 private:
  void give_back(std::unique_ptr<cuda::PinnedHostBuffer> buffer);

  const std::size_t limit_;
  std::mutex mutex_;  // guards everything below
  std::condition_variable returned_;
  std::vector<std::unique_ptr<cuda::PinnedHostBuffer>> free_;
  std::size_t total_ = 0;  // bytes of every block, free or in use
  std::size_t in_use_ = 0;
};

/// Copies `bytes` from `from` to `to`, large copies on several threads (one thread moves a few
/// GB/s; the host's memory moves several times that).
void copy_bytes(void* to, const void* from, std::size_t bytes);

}  // namespace gpublur
