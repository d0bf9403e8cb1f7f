// run.cpp — versions, compile-only dumps, and blurring files through the pipeline.
#include "app/run.hpp"

#include <tbb/info.h>

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <set>

#include "app/operation_report.hpp"
#include "app/reporter.hpp"
#include "app/run_report.hpp"
#include "base/atomic_file.hpp"
#include "base/errors.hpp"
#include "base/standard_output.hpp"
#include "base/stop_signals.hpp"
#include "base/version.hpp"
#include "batch/blur_device.hpp"
#include "batch/jpeg_route.hpp"
#include "batch/pipeline.hpp"
#include "batch/prepared_image.hpp"
#include "batch/process_lanes.hpp"
#include "codecs/image_decode.hpp"
#include "codegen/codegen.hpp"
#include "gpu/gpu_count.hpp"
#include "gpu/kernel_library.hpp"
#include "jit/nvrtc.hpp"
#include "nvjpeg/gpu_jpeg.hpp"

namespace gpublur {
namespace {

void print_version(std::ostream& out) {
  out << "gpublur " << kVersion << "\n";
  try {
    const NvrtcVersion v = nvrtc_version();
    out << "NVRTC " << v.major << "." << v.minor << " (sm_" << v.archs.front() << " to sm_"
        << v.archs.back() << ")\n";
  } catch (const Error& e) {
    out << "NVRTC: not available: " << e.what() << "\n";
  }
  std::string why, nvjpeg;
  if (gpu_jpeg_available(why, &nvjpeg)) {
    out << nvjpeg << " (JPEG on the GPU)\n";
  } else {
    out << "nvJPEG: not available: " << why << "\n";
  }
  const std::vector<GpuInfo> gpus = probe_gpus(why);
  if (gpus.empty()) out << "GPU: none (" << why << ")\n";
  for (const GpuInfo& gpu : gpus) {
    if (gpu.ordinal == 0) out << "driver: " << driver_version_string(gpu.driver_version) << "\n";
    out << "GPU " << gpu.ordinal << ": " << gpu.name << ", compute capability "
        << gpu.arch.capability() << ", " << gpu.memory_bytes / (1024 * 1024) << " MiB\n";
  }
}

void write_text(const std::string& path, const std::string& text, std::ostream& out) {
  if (path == "-") {
    write_checked(out, text);
    if (!text.empty() && text.back() != '\n') write_checked(out, "\n");
    return;
  }
  write_file_atomically(path, std::vector<std::uint8_t>(text.begin(), text.end()),
                        Durability::kRenamed);
}

// --verbose's account of the operation, once per run: the spec's numbers, and the rules the
// command line derived them by.
void say_parameters(const Request& r, Reporter& reporter) {
  for (const std::string& line : operation_lines(r.blur, make_blur_spec(r.blur, r.channels))) {
    reporter.say(line, false, true);
  }
}

KernelChoices kernel_choices(const Request& r) {
  return KernelChoices{r.kernel, r.target, r.arch, !r.no_cache, r.cache_dir};
}

// The architecture to compile for: --arch, else the GPU's; nullopt with neither.
std::optional<Arch> compile_arch(const Request& r, const GpuPool* pool) {
  if (r.arch) return r.arch;
  if (pool && !pool->gpus().empty()) return pool->gpus().front().arch;
  return std::nullopt;
}

// --dump-source and --dump-ptx of the kernel a file's blur used (or would use).
void dump(const Request& r, const FileResult& file, KernelLibrary& kernels,
          const std::optional<Arch>& arch, std::ostream& out) {
  if (r.dump_source) {
    write_text(*r.dump_source,
               generate_kernel(file.spec, r.kernel, file.samples, arch ? arch->number() : 0).source,
               out);
  }
  if (r.dump_ptx) {
    if (!arch)
      throw UsageError("--dump-ptx needs a GPU to compile for, or --arch (e.g. --arch sm_90)");
    write_text(*r.dump_ptx,
               kernels.get(file.kernel_key, file.spec, file.samples, *arch)->cache.compiled.ptx,
               out);
  }
}

// A blur's spec and samples without blurring: those of the input image, or of an image of
// --channels whose alpha (if any) is used.
FileResult compile_target(const Request& r) {
  DecodedImage d;
  if (!r.input.empty()) {
    d = read_image(r.input, r.limits);
  } else {
    d.image = make_image(1, 1, r.channels);  // all 0: transparent where there is alpha
  }
  const ImageFormat keeps = d.image.bits() == 32 ? ImageFormat::kHdr : ImageFormat::kPng;
  const PreparedImage p = prepare_image(std::move(d), r.blur, keeps);
  FileResult f;
  f.spec = p.spec;
  f.samples = p.image.sample_format();
  f.kernel_key = kernel_key(p);
  return f;
}

int compile_only(const Request& r, std::ostream& out, std::ostream& err) {
  Reporter reporter(r, true, 0, out, err);
  say_parameters(r, reporter);
  KernelLibrary kernels(kernel_choices(r), [&](const std::string& line, bool warning) {
    reporter.say(line, warning, !warning);
  });
  std::optional<Arch> arch = r.arch;
  std::string why;
  if (!arch && r.device != DeviceChoice::kCpu) {
    if (const auto gpu = probe_gpu(why)) arch = gpu->arch;
  }
  dump(r, compile_target(r), kernels, arch, out);
  return kExitOk;
}

std::string kernel_json(const Request& r, const FileResult& file, KernelLibrary& kernels) {
  for (const auto& compiled : kernels.all()) {
    if (compiled->kernel.name.empty() || compiled->cache.key.empty()) continue;
    if (file.device != "gpu") break;
    const CompilePlan& p = compiled->cache.compiled.plan;
    return "{\"name\": " + json_string(compiled->kernel.name) +
           ", \"target\": " + json_string(std::string(target_name(p.target))) +
           ", \"arch\": " + json_string(p.arch.sm()) + ", \"cache\": " +
           json_string(r.no_cache            ? "off"
                       : compiled->cache.hit ? "hit"
                                             : "miss") +
           ", \"key\": " + json_string(compiled->cache.key) + "}";
  }
  return "";
}

Plan plan_of(const Request& r) {
  if (r.single) {
    if (r.output != "-") check_writable_destination(r.output);
    Plan plan;
    plan.jobs.push_back(single_job(r.input, r.output, r.format));
    return plan;
  }
  Plan plan = plan_batch(r.batch);
  if (plan.jobs.empty())
    throw UsageError("no images to blur: the inputs hold no image files gpublur reads");
  // Collisions were checked over the whole batch, so every part agrees on every output.
  plan.total = plan.jobs.size();
  if (r.shard) plan.jobs = shard(plan.jobs, r.shard->index, r.shard->count);
  return plan;
}

// A batch that --device gpu or --codec gpu cannot run (no GPU, no nvJPEG) is said once, before
// any work, not once a file. Only the finding is waited for, not the GPUs' start-up. (A single
// image's one error is the same either way, and it keeps its start-up beside its decode.)
void require_gpus(const Request& r, JpegCodec codec, BlurDevice& device) {
  const bool gpu = r.device == DeviceChoice::kGpu, jpeg = codec == JpegCodec::kGpu;
  if (r.single || (!gpu && !jpeg)) return;
  std::string why;
  if (!device.found(why)) {
    throw Error(gpu ? "no usable GPU: " + why + " (leave out --device gpu to blur on the CPU)"
                    : "--codec gpu: no GPU: " + why +
                          "; leave out --codec gpu to use the CPU's JPEG codec");
  }
  if (jpeg && !gpu_jpeg_available(why)) {
    throw Error("--codec gpu: " + why + "; leave out --codec gpu to use the CPU's JPEG codec");
  }
}

PipelineSettings pipeline_settings(const Request& r, JpegCodec codec) {
  PipelineSettings settings;
  settings.blur = r.blur;
  settings.encode = r.write;
  settings.limits = r.limits;
  settings.strip_metadata = r.strip;
  settings.skip_existing = r.skip_existing;
  settings.durability = r.fsync ? Durability::kFlushed : Durability::kRenamed;
  settings.threads = r.threads;
  settings.codec = codec;
  settings.cpu_while_gpus_start = !r.single && r.device == DeviceChoice::kAuto;
  settings.gpus = r.devices.empty() ? static_cast<std::size_t>(std::max(1, listed_gpu_count()))
                                    : r.devices.size();
  return settings;
}

// How a batch is split over processes (process_lanes.hpp): the GPU of each (-1: any; none: run
// here), and whether they share the memory budget.
struct Lanes {
  std::vector<int> gpus;
  bool share_budget = false;
};

// A process's threads where a batch is split for the CPU's sake: the threads of one process
// contend with each other (its allocator, its scheduler's queues), and a CPU-codec batch ran
// faster in processes of 16 threads than in one of 32 (bench/RESULTS.md). Each process takes
// at least this many files, too, so that a small batch does not pay for processes it cannot use.
constexpr std::size_t kThreadsPerProcess = 16;

// --processes, or by default one per GPU where nvJPEG may decode the batch on two or more GPUs:
// driven from one process, each GPU's decode calls took several times the host time they take
// in a process of their own, where the GPUs decode side by side (bench/RESULTS.md). A batch
// nvJPEG does not decode runs in a process per 16 threads; those processes share the memory
// budget, so the command's peak and each thread's room are what one process would have. (A
// process per GPU keeps the whole budget: a share would hold a 16-thread process of 4K images to
// a handful at once while nvJPEG starts, when the CPU's codec takes them all.) The GPUs are
// counted without initializing CUDA, which the processes could then not use.
Lanes lanes_of(const Request& r, JpegCodec codec, std::size_t jobs) {
  const bool gpu_jpeg = r.device != DeviceChoice::kCpu && starts_gpu_jpeg(codec, jobs);
  if (r.single || r.processes == 1) return {};
  std::vector<int> gpus = r.devices;
  if (gpus.empty() && r.device != DeviceChoice::kCpu) {
    for (int i = 0, n = visible_gpu_count(); i < n; ++i) gpus.push_back(i);
  }
  Lanes lanes;
  std::size_t count = r.processes;
  if (count == 0 && gpu_jpeg) {  // one per GPU, where each is named once
    const std::set<int> distinct(gpus.begin(), gpus.end());
    count = distinct.size() == gpus.size() ? gpus.size() : 1;
  } else if (count == 0) {
    const auto cores = static_cast<std::size_t>(r.threads ? static_cast<int>(r.threads)
                                                          : tbb::info::default_concurrency());
    count =
        std::min((cores + kThreadsPerProcess - 1) / kThreadsPerProcess, jobs / kThreadsPerProcess);
    lanes.share_budget = true;
  }
  count = std::min(count, jobs);
  if (count < 2) return {};
  for (std::size_t k = 0; k < count; ++k)
    lanes.gpus.push_back(gpus.empty() ? -1 : gpus[k % gpus.size()]);
  return lanes;
}

// One process's share of a batch (in a child: process_lanes.hpp).
LaneReport run_lane(const Request& r, JpegCodec codec, const std::vector<Job>& jobs, int gpu,
                    std::size_t lanes, bool share_budget, FileObserver& observer,
                    const SayLine& say) {
  KernelLibrary kernels(kernel_choices(r), [&](const std::string& line, bool warning) {
    say(line, warning, !warning);
  });
  BlurDevice device(
      r.device, gpu >= 0 ? std::vector<int>{gpu} : std::vector<int>{}, jobs.size(), kernels,
      [&](const std::string& line) { say(line, false, false); }, false,
      starts_gpu_jpeg(codec, jobs.size()));
  PipelineSettings settings = pipeline_settings(r, codec);
  const auto cores = static_cast<std::size_t>(r.threads ? static_cast<int>(r.threads)
                                                        : tbb::info::default_concurrency());
  settings.threads = static_cast<unsigned>(std::max<std::size_t>(1, cores / lanes));
  if (share_budget) settings.memory_budget /= lanes;  // lanes_of says when and why
  if (gpu >= 0) settings.gpus = 1;
  run_pipeline(jobs, settings, device, observer);
  LaneReport report;
  std::string why;
  if (GpuPool* pool = r.device == DeviceChoice::kCpu ? nullptr : device.gpus(why))
    report.stats = pool->stats();
  report.used_cpu = device.used_cpu();
  return report;
}

std::string devices_used(const std::vector<GpuWorkerStats>& stats, bool used_cpu) {
  long gpu_images = 0;
  for (const GpuWorkerStats& s : stats) gpu_images += s.images;
  return gpu_images > 0 ? (used_cpu ? "gpu+cpu" : "gpu") : "cpu";
}

int exit_code(const Request& r, const Reporter& reporter) {
  // A stop signal first: it may be what interrupted a write to standard output (EINTR).
  if (const int signal_number = stop_signal()) return 128 + signal_number;
  if (const std::optional<StdoutError>& e = reporter.output_error()) throw *e;
  const RunTotals& totals = reporter.totals();
  if (totals.failed == 0) return kExitOk;
  return r.single ? totals.exit_code : kExitFailure;
}

// `r` with --devices set to the first GPUs where a batch of JPEGs that starts nvJPEG pays for
// fewer than all of them (jpeg_route.hpp's gpus_for_jpeg), said with -v. As it is where --devices
// names them (`all` too), where --processes says how to split the batch, and where the files
// sampled were not all JPEGs (the others' blurs are work for every GPU).
Request with_jpeg_gpus(const Request& r, const BatchCodec& codec, std::size_t jobs,
                       Reporter& reporter) {
  if (r.single || !r.devices.empty() || r.every_gpu || r.processes != 0 ||
      r.device == DeviceChoice::kCpu || !starts_gpu_jpeg(codec.codec, jobs) || !codec.only_jpeg) {
    return r;
  }
  const auto visible = static_cast<std::size_t>(std::max(visible_gpu_count(), 0));
  const std::size_t used = gpus_for_jpeg(codec.pixels, visible);
  if (used >= visible) return r;
  Request fewer = r;
  for (std::size_t i = 0; i < used; ++i) fewer.devices.push_back(static_cast<int>(i));
  char pixels[32];
  std::snprintf(pixels, sizeof pixels, "%.2f", codec.pixels / 1e9);
  reporter.say("nvJPEG on " + std::to_string(used) + " of the " + std::to_string(visible) +
                   " GPUs, for about " + pixels +
                   " gigapixels of JPEG (k GPUs from (k - 1) k / 2 x " +
                   std::to_string(static_cast<int>(kGpuJpegSecondGpuPixels / 1e9)) +
                   "; --devices to choose)",
               false, true);
  return fewer;
}

// Whether a batch in one process blurs on one GPU (BlurDevice's one_gpu), said with -v: where
// nvJPEG does not decode it, a GPU's part of an image is its copies and its kernel, a small share
// of the host's (read, decode, encode, write), so one GPU keeps ahead of the process's threads,
// and contexts started together are each ready later than one alone (bench/RESULTS.md, runs
// 46-47). Not where --devices names the GPUs (`all` too). (A batch split over processes gives
// each process a GPU of its own.)
bool blurs_on_one_gpu(const Request& r, JpegCodec codec, std::size_t jobs, Reporter& reporter) {
  if (r.single || !r.devices.empty() || r.every_gpu || r.device == DeviceChoice::kCpu ||
      starts_gpu_jpeg(codec, jobs)) {
    return false;
  }
  const int visible = visible_gpu_count();
  if (visible < 2) return false;
  reporter.say("blurring on one of the " + std::to_string(visible) +
                   " GPUs, the first that other processes may share: without nvJPEG, one keeps "
                   "ahead of the CPU's stages (--devices to choose)",
               false, true);
  return true;
}

int blur_files(const Request& r, std::ostream& out, std::ostream& err, ContextAtEnd at_end) {
  const Plan plan = plan_of(r);
  const std::vector<Job>& jobs = plan.jobs;
  Reporter reporter(r, r.single, jobs.size(), out, err);
  say_parameters(r, reporter);
  if (r.shard) {
    reporter.say("shard " + std::to_string(r.shard->index) + "/" + std::to_string(r.shard->count) +
                     " from " + r.shard->source + ": " + std::to_string(jobs.size()) + " of " +
                     std::to_string(plan.total) + " files",
                 false, true);
  }
  for (const PlanNote& note : plan.notes) reporter.say(note.text, false, note.verbose);
  if (plan.ignored) {
    reporter.say(std::to_string(plan.ignored) +
                     " files in the directories given are not images gpublur reads; passed over",
                 false, true);
  }
  const BatchCodec codec = codec_for_batch(
      r.device == DeviceChoice::kCpu ? JpegCodec::kCpu : r.codec, jobs, r.limits);  // cli: not gpu
  if (!codec.why.empty()) reporter.say(codec.why, false, true);
  const Request b = with_jpeg_gpus(r, codec, jobs.size(), reporter);
  const Lanes lanes = lanes_of(b, codec.codec, jobs.size());
  if (!lanes.gpus.empty()) {
    reporter.say("the batch in " + std::to_string(lanes.gpus.size()) + " processes", false, true);
    make_output_directory(r.batch.output_dir);
    const StopSignals signals;
    const SayLine say = [&](const std::string& line, bool warning, bool verbose_only) {
      reporter.say(line, warning, verbose_only);
    };
    const LaneMain lane = [&](const std::vector<Job>& share, std::size_t k, FileObserver& observer,
                              const SayLine& lane_say) {
      return run_lane(b, codec.codec, share, lanes.gpus[k], lanes.gpus.size(), lanes.share_budget,
                      observer, lane_say);
    };
    const bool wait = r.no_detach || at_end == ContextAtEnd::kRelease;
    if (const auto report = run_in_lanes(jobs, lanes.gpus.size(), lane, reporter, say, wait)) {
      reporter.finish(report->stats, devices_used(report->stats, report->used_cpu), "");
      return exit_code(r, reporter);
    }
  }
  KernelLibrary kernels(kernel_choices(r), [&](const std::string& line, bool warning) {
    reporter.say(line, warning, !warning);
  });
  BlurDevice device(
      b.device, b.devices, jobs.size(), kernels,
      [&](const std::string& line) { reporter.say(line); }, at_end == ContextAtEnd::kRelease,
      starts_gpu_jpeg(codec.codec, jobs.size()),
      blurs_on_one_gpu(b, codec.codec, jobs.size(), reporter));
  require_gpus(r, codec.codec, device);
  if (!r.single) make_output_directory(r.batch.output_dir);  // once, not a failure per file
  const StopSignals signals;  // to the end: the dumps and the report, too, finish whole
  run_pipeline(jobs, pipeline_settings(b, codec.codec), device, reporter);
  std::string why;
  GpuPool* pool = r.device == DeviceChoice::kCpu ? nullptr : device.gpus(why);
  const std::vector<GpuWorkerStats> stats = pool ? pool->stats() : std::vector<GpuWorkerStats>{};
  std::string kernel;
  if (r.single) {
    const FileResult& file = reporter.single_result();
    if ((r.dump_source || r.dump_ptx) && !file.kernel_key.empty())
      dump(r, file, kernels, compile_arch(r, pool), out);
    kernel = kernel_json(r, file, kernels);
  }
  reporter.finish(stats, devices_used(stats, device.used_cpu()), kernel);
  return exit_code(r, reporter);
}

}  // namespace

bool may_open_gpu(const Request& r) {
  if (r.action == Request::Action::kVersion || r.device == DeviceChoice::kCpu) return false;
  return r.action == Request::Action::kBlur || (r.dump_ptx && !r.arch);
}

bool one_work_queue_suffices(const Request& r) {
  // A single image takes nvJPEG only when --codec gpu asks: auto takes it only in a batch with
  // enough JPEG pixels (jpeg_route.hpp's codec_for_batch).
  return r.single && r.codec != JpegCodec::kGpu;
}

int run(const Request& r, std::ostream& out, std::ostream& err, ContextAtEnd context_at_end) {
  switch (r.action) {
    case Request::Action::kVersion:
      print_version(out);
      flush_checked(out);
      return kExitOk;
    case Request::Action::kCompile:
      return compile_only(r, out, err);
    case Request::Action::kBlur:
      return blur_files(r, out, err, context_at_end);
  }
  return kExitOk;
}

}  // namespace gpublur
