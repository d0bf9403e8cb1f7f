// pinning_bench.cpp — what it costs to move a large image between host memory and a GPU, each
// way the batch could: allocate pinned blocks (cuMemHostAlloc) and copy through them (on 8
// threads, as a batch's staging copies ran until 2026-11-27), pin the image's own memory where it
// lies (cuMemHostRegister, then unregister), or let the driver copy from pageable memory. Each
// alone and several threads at once, in huge pages and in 4 KiB pages. The batch's choice
// (gpu_pool.cpp: pinned where it lies) rests on these figures.
//
//   gpublur_pinning_bench [--mb MB] [--threads N] [--repeats R]
//     --mb       bytes of each buffer, in MB (default 99.5: an 8K RGB image)
//     --threads  buffers pinned or allocated at once (default 5: the images of a 1 GiB budget)
//     --repeats  median of this many (default 5)
// Exit status 0, or 1 without a GPU, or 2 for a usage error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sys/mman.h>

#include "base/large_buffer.hpp"
#include "gpu/cuda_driver.hpp"
#include "gpu/gpu_session.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace cuda = gpublur::cuda;

double ms_of(const std::function<void()>& work) {
  const auto start = Clock::now();
  work();
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The median of `repeats` runs of `work`, after one run untimed (the driver's first call of a
// kind is slower).
double median_ms(int repeats, const std::function<void()>& work) {
  work();
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) ms.push_back(ms_of(work));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// A pageable buffer, touched (so its pages exist, as an image's raster's do), in huge pages as the
// batch asks for them (large_buffer.hpp: where the kernel gives them), or told not to use them.
struct Pageable {
  std::vector<std::uint8_t> bytes;
  Pageable(std::size_t size, bool huge) {
    if (huge) {
      gpublur::reserve_large(bytes, size);
    } else {
      bytes.reserve(size);
      const auto start =
          (reinterpret_cast<std::uintptr_t>(bytes.data()) + 4095) & ~std::uintptr_t{4095};
      const std::uintptr_t end =
          (reinterpret_cast<std::uintptr_t>(bytes.data()) + size) & ~std::uintptr_t{4095};
      if (end > start) ::madvise(reinterpret_cast<void*>(start), end - start, MADV_NOHUGEPAGE);
    }
    bytes.assign(size, 7);
  }
};

// The kernel's transparent huge page mode, as it prints it ("always [madvise] never").
std::string huge_page_mode() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(file, mode);
  return mode.empty() ? "unknown" : mode;
}

void check(CUresult status, const char* what) {
  if (status != CUDA_SUCCESS) {
    std::fprintf(stderr, "gpublur_pinning_bench: %s failed (%d)\n", what, static_cast<int>(status));
    std::exit(1);
  }
}

// `bytes` from `from` to `to` on 8 threads, a piece each.
void parallel_copy(void* to, const void* from, std::size_t bytes) {
  constexpr std::size_t kThreads = 8;
  const std::size_t piece = (bytes + kThreads - 1) / kThreads;
  std::vector<std::thread> running;
  for (std::size_t start = 0; start < bytes; start += piece) {
    running.emplace_back([=] {
      std::memcpy(static_cast<char*>(to) + start, static_cast<const char*>(from) + start,
                  std::min(piece, bytes - start));
    });
  }
  for (auto& t : running) t.join();
}

// Runs work(i) on `threads` threads at once; the wall time.
double at_once_ms(int threads, const cuda::Context& context, const std::function<void(int)>& work) {
  return ms_of([&] {
    std::vector<std::thread> running;
    for (int i = 0; i < threads; ++i) {
      running.emplace_back([&, i] {
        context.make_current();
        work(i);
      });
    }
    for (auto& t : running) t.join();
  });
}

}  // namespace

int main(int argc, char** argv) {
  double mb = 99.5328;
  int threads = 5, repeats = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 < argc && a == "--mb") {
      mb = std::atof(argv[++i]);
    } else if (i + 1 < argc && a == "--threads") {
      threads = std::atoi(argv[++i]);
    } else if (i + 1 < argc && a == "--repeats") {
      repeats = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: gpublur_pinning_bench [--mb MB] [--threads N] [--repeats R]\n");
      return 2;
    }
  }
  if (mb <= 0 || threads < 1 || repeats < 1) return 2;
  const auto size = static_cast<std::size_t>(mb * 1e6);
  std::string why;
  const auto gpu = gpublur::probe_gpu(why);
  if (!gpu) {
    std::fprintf(stderr, "gpublur_pinning_bench: no GPU: %s\n", why.c_str());
    return 1;
  }
  const cuda::Context context(static_cast<CUdevice>(gpu->ordinal));
  const cuda::DriverApi& cu = cuda::api();
  cuda::DeviceBuffer device(size);
  cuda::Stream stream;
  std::printf(
      "# %s, %.1f MB buffers, ms: the median of %d after a run untimed (\"at once\": the "
      "wall time of N threads, thread starts included); transparent huge pages: %s\n",
      gpu->name.c_str(), size / 1e6, repeats, huge_page_mode().c_str());

  // Fresh pinned blocks: one alone (its allocation, not its free), then `threads` at once.
  std::unique_ptr<cuda::PinnedHostBuffer> fresh;
  std::vector<double> allocations;
  for (int r = 0; r <= repeats; ++r) {
    const double ms = ms_of([&] { fresh = std::make_unique<cuda::PinnedHostBuffer>(size); });
    fresh.reset();
    if (r > 0) allocations.push_back(ms);
  }
  std::sort(allocations.begin(), allocations.end());
  std::printf("cuMemHostAlloc, one: %.2f\n", allocations[allocations.size() / 2]);
  std::printf("cuMemHostAlloc and free, %d at once: %.2f\n", threads, median_ms(repeats, [&] {
                at_once_ms(threads, context, [&](int) { cuda::PinnedHostBuffer b(size); });
              }));

  const cuda::PinnedHostBuffer block(size);
  for (const bool huge : {true, false}) {
    const char* pages = huge ? "huge pages" : "4 KiB pages";
    std::vector<std::unique_ptr<Pageable>> buffers;
    for (int i = 0; i < threads; ++i) buffers.push_back(std::make_unique<Pageable>(size, huge));
    void* const own = buffers[0]->bytes.data();
    double reg = 0, unreg = 0;
    std::vector<double> regs, unregs;
    for (int r = 0; r < repeats; ++r) {
      regs.push_back(ms_of([&] {
        check(cu.cuMemHostRegister(own, size, CU_MEMHOSTREGISTER_PORTABLE), "register");
      }));
      unregs.push_back(ms_of([&] { check(cu.cuMemHostUnregister(own), "unregister"); }));
    }
    std::sort(regs.begin(), regs.end());
    std::sort(unregs.begin(), unregs.end());
    reg = regs[regs.size() / 2];
    unreg = unregs[unregs.size() / 2];
    std::printf("%s: cuMemHostRegister %.2f, cuMemHostUnregister %.2f\n", pages, reg, unreg);
    std::printf("%s: register + unregister, %d at once: %.2f\n", pages, threads,
                median_ms(repeats, [&] {
                  at_once_ms(threads, context, [&](int i) {
                    void* p = buffers[static_cast<std::size_t>(i)]->bytes.data();
                    check(cu.cuMemHostRegister(p, size, CU_MEMHOSTREGISTER_PORTABLE), "register");
                    check(cu.cuMemHostUnregister(p), "unregister");
                  });
                }));
    // The copies of a raster pinned where it lies, as the batch makes them.
    check(cu.cuMemHostRegister(own, size, CU_MEMHOSTREGISTER_PORTABLE), "register");
    std::printf("%s, pinned where it lies: upload %.2f, download %.2f\n", pages,
                median_ms(repeats,
                          [&] {
                            check(cu.cuMemcpyHtoDAsync(device.get(), own, size, stream.get()),
                                  "upload");
                            check(cu.cuStreamSynchronize(stream.get()), "sync");
                          }),
                median_ms(repeats, [&] {
                  check(cu.cuMemcpyDtoHAsync(own, device.get(), size, stream.get()), "download");
                  check(cu.cuStreamSynchronize(stream.get()), "sync");
                }));
    check(cu.cuMemHostUnregister(own), "unregister");
    std::printf("%s: a copy into a pinned block (8 threads): %.2f\n", pages,
                median_ms(repeats, [&] { parallel_copy(block.get(), own, size); }));
    std::printf("%s: upload from pageable memory: %.2f\n", pages, median_ms(repeats, [&] {
                  check(cu.cuMemcpyHtoDAsync(device.get(), own, size, stream.get()), "upload");
                  check(cu.cuStreamSynchronize(stream.get()), "sync");
                }));
    std::printf("%s: download into pageable memory: %.2f\n", pages, median_ms(repeats, [&] {
                  check(cu.cuMemcpyDtoHAsync(own, device.get(), size, stream.get()), "download");
                  check(cu.cuStreamSynchronize(stream.get()), "sync");
                }));
  }
  std::printf("a cuMemHostAlloc block: upload %.2f, download %.2f\n",
              median_ms(repeats,
                        [&] {
                          check(cu.cuMemcpyHtoDAsync(device.get(), block.get(), size, stream.get()),
                                "upload");
                          check(cu.cuStreamSynchronize(stream.get()), "sync");
                        }),
              median_ms(repeats, [&] {
                check(cu.cuMemcpyDtoHAsync(block.get(), device.get(), size, stream.get()),
                      "download");
                check(cu.cuStreamSynchronize(stream.get()), "sync");
              }));
  return 0;
}
