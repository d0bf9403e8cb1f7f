// codegen.hpp — FilterSpec + schedule -> CUDA C++ source: a generated prelude (taps, radius,
// channels, border, the schedule's parameters) followed by the kernel's files from kernels/,
// unchanged. Pure and deterministic: the same inputs give byte-identical source (pinned by
// tests/golden/).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/kernel_schedule.hpp"
#include "jit/kernel_source.hpp"
#include "ops/filter_spec.hpp"

namespace gpublur {

/// The source and name NVRTC compiles (KernelSource), and what launching it needs.
struct GeneratedKernel : KernelSource {
  std::string entry = "gb_blur_kernel";
  std::string horizontal_entry;  // kGeneral: the second launch (entry is then the vertical one)
  int channels = 0;  // the image channel count the kernel was generated for
  SampleFormat format = SampleFormat::k8;
  int mid_bytes = 0;  // kGeneral: bytes per intermediate sample between the launches
  std::string split_entry, merge_entry;  // a planar blur (schedule.planes()): before and after it
  KernelSchedule schedule;
};

/// The kernel for `spec`: choose_schedule's (throws its UsageError), then the source.
/// `arch` is the compute capability the kernel is for (e.g. 90), 0 when not known.
GeneratedKernel generate_kernel(const FilterSpec& spec,
                                KernelVariant requested = KernelVariant::kAuto,
                                SampleFormat format = SampleFormat::k8, int arch = 0,
                                ChannelLayout layout = ChannelLayout::kAuto);

/// One of kernels/' files as it follows the prelude (after a #line naming it).
struct KernelFile {
  std::string_view name;  // e.g. "common.cuh"
  std::string_view text;
};

/// The files that follow the prelude of a kernel with schedule `s`, in order: the shared headers,
/// then the variant's own.
std::vector<KernelFile> kernel_files(const KernelSchedule& s);

}  // namespace gpublur
