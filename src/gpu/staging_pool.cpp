// staging_pool.cpp — reused pinned blocks, and the parallel copy through them.
#include "gpu/staging_pool.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstring>

namespace gpublur {
namespace {

// Blocks are sized in steps of this, so images of nearly one size share them.
constexpr std::size_t kGranule = std::size_t{2} << 20;
// Copies are split into pieces of this size, each on a thread of its own.
constexpr std::size_t kCopyPiece = std::size_t{4} << 20;

}  // namespace

StagingPool::StagingPool(std::size_t limit) : limit_(limit) {}
StagingPool::~StagingPool() = default;

StagingPool::Block::Block(Block&& other) noexcept
    : pool_(other.pool_), buffer_(std::move(other.buffer_)) {
  other.pool_ = nullptr;
}

StagingPool::Block& StagingPool::Block::operator=(Block&& other) noexcept {
  if (this != &other) {
    if (pool_ && buffer_) pool_->give_back(std::move(buffer_));
    pool_ = other.pool_;
    buffer_ = std::move(other.buffer_);
    other.pool_ = nullptr;
  }
  return *this;
}

StagingPool::Block::~Block() {
  if (pool_ && buffer_) pool_->give_back(std::move(buffer_));
}

StagingPool::Block StagingPool::acquire(std::size_t bytes) {
  const std::size_t size = (bytes + kGranule - 1) / kGranule * kGranule;
  Block block;
  block.pool_ = this;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // The smallest free block that fits.
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if ((*it)->size() >= size && (best == free_.end() || (*it)->size() < (*best)->size()))
        best = it;
    }
    if (best != free_.end()) {
      block.buffer_ = std::move(*best);
      free_.erase(best);
      in_use_ += block.buffer_->size();
      return block;
    }
    if (total_ + size <= limit_) break;
    if (!free_.empty()) {  // free blocks too small: drop one to make room
      total_ -= free_.back()->size();
      free_.pop_back();
      continue;
    }
    if (in_use_ == 0) break;  // one block is always allowed, however large
    returned_.wait(lock);
  }
  total_ += size;
  in_use_ += size;
  lock.unlock();
  try {
    block.buffer_ = std::make_unique<cuda::PinnedHostBuffer>(size);
  } catch (...) {
    const std::lock_guard<std::mutex> relock(mutex_);
    total_ -= size;
    in_use_ -= size;
    returned_.notify_all();
    throw;
  }
  return block;
}

void StagingPool::give_back(std::unique_ptr<cuda::PinnedHostBuffer> buffer) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    in_use_ -= buffer->size();
    free_.push_back(std::move(buffer));
  }
  returned_.notify_all();
}

void copy_bytes(void* to, const void* from, std::size_t bytes) {
  if (bytes <= 2 * kCopyPiece) {
    std::memcpy(to, from, bytes);
    return;
  }
  const std::size_t pieces = (bytes + kCopyPiece - 1) / kCopyPiece;
  // Isolated: while it waits for its pieces, the calling thread must not take up other work of
  // the batch (a whole image's decode), holding its pinned block all that while.
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t i) {
      const std::size_t start = i * kCopyPiece;
      std::memcpy(static_cast<char*>(to) + start, static_cast<const char*>(from) + start,
                  std::min(kCopyPiece, bytes - start));
    });
  });
}

}  // namespace gpublur
