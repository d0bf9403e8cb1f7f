// pipeline.cpp — the stages, on oneTBB's parallel_pipeline.
#include "batch/pipeline.hpp"

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>
#include <tbb/task_scheduler_observer.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>

#include "base/atomic_file.hpp"
#include "base/large_buffer.hpp"
#include "base/standard_output.hpp"
#include "base/stop_signals.hpp"
#include "batch/jpeg_route.hpp"
#include "batch/memory_budget.hpp"
#include "batch/prepared_image.hpp"
#include "batch/raw_read.hpp"
#include "batch/start_share.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "codecs/jpeg_codec.hpp"
#include "codecs/jpeg_markers.hpp"
#include "codecs/raw_samples.hpp"
#include "gpu/stack_limits.hpp"

namespace gpublur {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One job on its way through the stages.
struct Item {
  FileResult result;
  std::optional<PreparedImage> prepared;
  Metadata metadata;
  ChromaSubsampling subsampling = ChromaSubsampling::kAuto;
  TiffCompression tiff_compression = TiffCompression::kAuto;
  std::uint64_t held = 0;             // bytes held in the budget
  bool start_share = false;           // holds a place of the CPU's share while nvJPEG starts
  bool raw = false;                   // read straight into its raster (raw_read.hpp)
  std::vector<std::uint8_t> jpeg;     // the file, for the GPU's decoder (`prepared` has no samples)
  std::vector<std::uint8_t> encoded;  // the output as the GPU encoded it, without metadata

  bool going() const { return result.status == FileResult::Status::kDone; }
};

// Runs one stage's work on an item, turning what it throws into the item's failure.
template <typename F>
void stage(Item& item, F&& work) {
  if (!item.going()) return;
  if (stop_requested()) {
    item.result.status = FileResult::Status::kInterrupted;
    return;
  }
  try {
    work();
  } catch (const Stopped&) {  // a read that gave up: the file is undone, not failed
    item.result.status = FileResult::Status::kInterrupted;
  } catch (const Error& e) {
    if (stop_requested()) {  // e.g. a read cut short by the signal: not the file's fault
      item.result.status = FileResult::Status::kInterrupted;
      return;
    }
    item.result.status = FileResult::Status::kFailed;
    item.result.error = printable(e.what());
    item.result.exit_code = e.exit_code();
    if (const auto* compile = dynamic_cast<const CompileError*>(&e)) {
      item.result.error += " (options: " + compile->options() + ")\n" + compile->log() +
                           "\ngpublur: rerun with --dump-source FILE to see the generated source";
    }
  } catch (const std::bad_alloc&) {
    item.result.status = FileResult::Status::kFailed;
    item.result.error = "cannot blur '" + printable(item.result.job.input) + "': out of memory";
    item.result.exit_code = kExitFailure;
  } catch (const std::exception& e) {
    item.result.status = FileResult::Status::kFailed;
    item.result.error = "internal: " + printable(e.what());
    item.result.exit_code = kExitFailure;
  }
}

std::string input_name(const Job& job) { return job.input == "-" ? "standard input" : job.input; }

// A JPEG the GPU will decode: its header's facts, its samples not yet there. Empty where the CPU
// decodes it (--codec cpu, no GPU or no nvJPEG, a kind nvJPEG's hardware path does not take, a
// header libjpeg refuses, --linear, which needs the samples on the host).
std::optional<DecodedImage> undecoded_jpeg(const std::vector<std::uint8_t>& bytes, Item& item,
                                           const PipelineSettings& s, JpegRoute& route,
                                           StartShare& share) {
  if (!route.may_use_gpu() || s.blur.linear ||
      sniff_format(bytes.data(), bytes.size(), item.result.job.input) != ImageFormat::kJpeg) {
    return std::nullopt;
  }
  const auto start = Clock::now();
  JpegFacts facts;
  try {
    facts = read_jpeg_facts(bytes.data(), bytes.size(), s.limits);
  } catch (const IoError&) {
    return std::nullopt;  // the CPU's decoder reports it, in its words, with the file's name
  }
  item.result.stages.emplace_back("parse", ms_since(start));
  std::string why = facts.why_not;
  if (!facts.gpu_decodable) {
    item.result.notes.push_back("decoded on the CPU: " + why);
    return std::nullopt;
  }
  // While nvJPEG starts, the CPU's codec takes what arrives up to its share of files in flight;
  // the rest wait for nvJPEG (start_share.hpp).
  bool to_gpu = false;
  for (bool looked_again = false; !to_gpu;) {
    if (route.takes_decode(why)) {
      to_gpu = true;
    } else if (route.gpu_codec_starting() && !stop_requested()) {
      if (share.try_take()) {
        item.start_share = true;
        break;
      }
      share.wait_briefly();
    } else if (looked_again) {  // nvJPEG is not coming: the CPU's
      break;
    } else {  // or it started between the two looks
      looked_again = true;
    }
  }
  if (!to_gpu) {
    item.result.notes.push_back("decoded on the CPU: " + why);
    return std::nullopt;
  }
  DecodedImage d;
  d.format = ImageFormat::kJpeg;
  d.image = Image{facts.width, facts.height, facts.channels, {}};  // its samples: nvJPEG's
  d.metadata = std::move(facts.metadata);
  d.subsampling = facts.subsampling;
  return d;
}

// Fills the item's facts from `decoded` and prepares it for the blur.
void prepare(Item& item, DecodedImage&& decoded, const PipelineSettings& s) {
  FileResult& r = item.result;
  r.width = decoded.width(), r.height = decoded.height(), r.channels = decoded.channels();
  r.bits = decoded.image.bits();
  r.format_in = std::string(format_name(decoded.format));
  if (!s.strip_metadata) item.metadata = std::move(decoded.metadata);
  item.subsampling = decoded.subsampling;
  item.tiff_compression = decoded.tiff_compression;
  const auto start = Clock::now();
  item.prepared = prepare_image(std::move(decoded), s.blur, r.job.format);
  r.stages.emplace_back("prepare", ms_since(start));
  r.spec = item.prepared->spec;
  r.samples = item.prepared->image.sample_format();
  r.kernel_key = kernel_key(*item.prepared);
  r.notes = item.prepared->notes;
  r.warning = item.prepared->warning;
  r.conversion = item.prepared->warning;
}

DecodedImage decode_on_cpu(const std::vector<std::uint8_t>& bytes, FileResult& r,
                           const PipelineSettings& s) {
  const auto start = Clock::now();
  DecodedImage decoded = decode_image(bytes, input_name(r.job), s.limits);
  r.stages.emplace_back("decode", ms_since(start));
  if (decoded.format == ImageFormat::kJpeg) r.decoder = "libjpeg-turbo";
  return decoded;
}

// The bytes a regular file holds (0 where it cannot tell: standard input, a pipe, an error
// the read will report).
std::uint64_t file_bytes(const std::string& path) {
  if (path == "-") return 0;
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  return error ? 0 : static_cast<std::uint64_t>(size);
}

// Sets what the item holds in the budget.
void hold(Item& item, MemoryBudget& budget, std::uint64_t bytes) {
  budget.resize(item.held, bytes);
  item.held = bytes;
}

// The compression a TIFF output is written with: the one asked for, else the input's (kAuto: an
// uncompressed TIFF input keeps an uncompressed output).
TiffCompression tiff_compression_of(const Item& item, const PipelineSettings& s) {
  return s.encode.tiff_compression == TiffCompression::kAuto ? item.tiff_compression
                                                             : s.encode.tiff_compression;
}

// Whether the image will be written straight from its raster (raw_file): a raw output of the
// depth and channels it is blurred in.
bool written_raw(const Item& item, const PipelineSettings& s) {
  const AnyImage& image = item.prepared->image;
  return item.prepared->srgb_bits == 0 &&
         stored_raw(item.result.job.format, image.bits(), image.channels(),
                    tiff_compression_of(item, s));
}

// What an image read straight into its raster holds while it is blurred: its raster alone where
// the blur is in place (on a GPU: its samples go there and come back) and the output is written
// from it; twice that where a CPU blur makes its result beside it, or an encoder its file.
std::uint64_t raw_holds(const Item& item, const PipelineSettings& s, const BlurDevice& device) {
  const auto bytes = static_cast<std::uint64_t>(item.prepared->image.byte_count());
  return written_raw(item, s) && !device.may_blur_on_cpu(*item.prepared) ? bytes : 2 * bytes;
}

void read_and_prepare(Item& item, const PipelineSettings& s, MemoryBudget& budget, JpegRoute& route,
                      StartShare& share, BlurDevice& device) {
  FileResult& r = item.result;
  if (!r.job.error.empty()) throw IoError(r.job.error);  // found unreadable when planned
  // Room before the read, as for a raw image (PPM, BMP, uncompressed TIFF: the large ones),
  // which holds its file's bytes twice once decoded; set to what it holds once known.
  const std::uint64_t room = 2 * file_bytes(r.job.input);
  budget.acquire(room);
  item.held = room;
  const auto start = Clock::now();
  if (std::optional<RawRead> raw = read_raw_image(r.job.input, s.limits)) {
    r.stages.emplace_back("read", ms_since(start));
    r.bytes_in = raw->file_bytes;
    prepare(item, std::move(raw->decoded), s);
    item.raw = true;
    hold(item, budget, raw_holds(item, s, device));
    return;
  }
  std::vector<std::uint8_t> bytes = read_file(r.job.input, s.limits);
  r.stages.emplace_back("read", ms_since(start));
  r.bytes_in = bytes.size();
  if (std::optional<DecodedImage> undecoded = undecoded_jpeg(bytes, item, s, route, share)) {
    item.jpeg = std::move(bytes);
    prepare(item, std::move(*undecoded), s);
    hold(item, budget, item.jpeg.size());  // and its JPEG from the GPU, about as large
  } else {
    DecodedImage decoded = decode_on_cpu(bytes, r, s);
    recycle_large(std::move(bytes));
    prepare(item, std::move(decoded), s);
    // Counted twice: the image and its result (the blur's output, then the encoded file) are
    // held together at times.
    hold(item, budget, 2 * static_cast<std::uint64_t>(item.prepared->image.byte_count()));
  }
}

// The blur, with the GPU's JPEG codec where the route gives it the file. What nvJPEG hands back
// is decoded on the CPU (which reports a damaged file as it always does) and blurred again
// without it.
void blur_item(Item& item, const PipelineSettings& s, BlurDevice& device, JpegRoute& route,
               MemoryBudget& budget) {
  FileResult& r = item.result;
  // A raw image's room as it is blurred: twice its image where the GPUs have failed since it was
  // read (or never started) and the CPU blurs it. Where they are still starting, its blur waits
  // for them anyway: it waits here, so that the room is set for the device that will blur it.
  // (An image a GPU fails, whose blur the CPU then takes alone, is not counted again.)
  if (item.raw) {
    if (device.starting() && !device.may_blur_on_cpu(*item.prepared)) {
      std::string why;
      device.gpus(why);
    }
    hold(item, budget, raw_holds(item, s, device));
  }
  const std::string key = kernel_key(*item.prepared);
  CodecWork work;
  const bool gpu_decoded = !item.jpeg.empty();
  if (gpu_decoded) work.decode = &item.jpeg;
  if (r.job.format == ImageFormat::kJpeg && route.takes_encode(*item.prepared)) {
    const ChromaSubsampling asked = s.encode.jpeg_subsampling == ChromaSubsampling::kAuto
                                        ? item.subsampling
                                        : s.encode.jpeg_subsampling;
    work.encode = JpegEncodeSettings{s.encode.jpeg_quality,
                                     resolved_subsampling(asked, s.encode.jpeg_quality)};
  }
  const bool with_codec = work.decode || work.encode;
  if (!with_codec && s.cpu_while_gpus_start && !route.may_use_gpu() &&
      device.blur_on_cpu_while_starting(*item.prepared, r)) {
    return;
  }
  try {
    device.blur(*item.prepared, key, r, with_codec ? &work : nullptr);
  } catch (const CodecDeclined& e) {
    work = CodecWork{};
    if (gpu_decoded) {
      DecodedImage decoded = decode_on_cpu(item.jpeg, r, s);
      item.jpeg = {};
      prepare(item, std::move(decoded), s);  // (its notes replace the file's notes)
    }
    r.notes.push_back(std::string("the CPU's codec took it: ") + e.what());
    device.blur(*item.prepared, key, r);
    return;
  }
  if (gpu_decoded) {
    item.jpeg = {};
    r.decoder = JpegRoute::gpu_codec_name(work.decoder);
  }
  if (work.encode && !work.encoded.empty()) {
    item.encoded = std::move(work.encoded);
    r.encoder = "nvjpeg";
  }
}

void write_output(const std::string& path, const std::vector<ByteSpan>& pieces,
                  Durability durability) {
  if (path == "-") {
    for (const ByteSpan& piece : pieces)
      write_checked(std::cout, {reinterpret_cast<const char*>(piece.data), piece.size});
    return;
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  if (error)
    throw IoError("cannot create '" + printable(parent.string()) + "': " + error.message());
  write_file_atomically(path, pieces, durability);
}

// Writes the output's bytes, unless a stop was asked for (then nothing new is written).
void write_unless_stopped(FileResult& r, const std::vector<ByteSpan>& pieces,
                          const PipelineSettings& s) {
  r.bytes_out = 0;
  for (const ByteSpan& piece : pieces) r.bytes_out += piece.size;
  if (stop_requested()) {
    r.status = FileResult::Status::kInterrupted;
    return;
  }
  const auto start = Clock::now();
  write_output(r.job.output, pieces, s.durability);
  r.stages.emplace_back("write", ms_since(start));
}

void finish_and_write(Item& item, const PipelineSettings& s) {
  FileResult& r = item.result;
  auto start = Clock::now();
  const bool linear = item.prepared->srgb_bits != 0;
  AnyImage finished = finish_image(std::move(*item.prepared));
  item.prepared.reset();
  if (linear) r.stages.emplace_back("from linear", ms_since(start));
  EncodeOptions options = s.encode;
  if (options.jpeg_subsampling == ChromaSubsampling::kAuto)
    options.jpeg_subsampling = item.subsampling;
  options.tiff_compression = tiff_compression_of(item, s);
  for (const std::string& lost : metadata_not_kept(item.metadata, r.job.format)) {
    r.notes.push_back(lost);
  }
  start = Clock::now();
  if (item.encoded.empty()) {
    // A raw output: its header, then the image's own rows, with no encoded copy.
    if (const std::optional<RawFile> file =
            raw_file(finished, r.job.format, item.metadata, options.tiff_compression)) {
      r.stages.emplace_back("encode", ms_since(start));
      write_unless_stopped(r, file->pieces(), s);
      finished.visit([](auto& raster) { recycle_large(std::move(raster.pixels)); });
      return;
    }
  }
  std::vector<std::uint8_t> bytes;
  if (!item.encoded.empty()) {  // encoded on the GPU: the metadata the CPU's encoder writes
    bytes = with_jpeg_metadata(item.encoded, item.metadata);
    item.encoded = {};
    r.stages.emplace_back("metadata", ms_since(start));
  } else {
    // Its samples are freed as soon as the encoder is done with them.
    bytes = encode_image_consuming(std::move(finished), r.job.format, options, item.metadata);
    r.stages.emplace_back("encode", ms_since(start));
    if (r.job.format == ImageFormat::kJpeg) r.encoder = "libjpeg-turbo";
  }
  write_unless_stopped(r, {{bytes.data(), bytes.size()}}, s);
  recycle_large(std::move(bytes));
}

// The batch's CPU threads, a step below the GPU workers' threads in the scheduler's favour while
// they live: where the GPU decodes, its workers' host calls (nvJPEG's decode and encode calls,
// its start-up) set the batch's pace, and 32 threads decoding on the CPU beside them slowed
// nvJPEG's start-up by half. The caller's own thread is left as it is.
class BackgroundWorkers final : public tbb::task_scheduler_observer {
 public:
  explicit BackgroundWorkers(tbb::task_arena& arena) : tbb::task_scheduler_observer(arena) {
    observe(true);
  }
  ~BackgroundWorkers() override { observe(false); }
  void on_scheduler_entry(bool is_worker) override {
    constexpr int kNice = 5;  // below the default 0; a thread may always lower its own priority
    if (is_worker) ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kNice);
  }
};

}  // namespace

void run_pipeline(const std::vector<Job>& jobs, const PipelineSettings& settings,
                  BlurDevice& device, FileObserver& observer) {
  const int concurrency =
      settings.threads > 0 ? static_cast<int>(settings.threads) : tbb::info::default_concurrency();
  // Where the GPU decodes and encodes JPEGs, an image's whole trip is a wait in the blur stage,
  // and each waiting image holds a thread: threads that only wait, beside those that work, so
  // that on each GPU four full stacks (one on each of its worker's streams, two gathering) can
  // be under way while the CPU's threads go on. (With one number for any count of GPUs, each of
  // four GPUs was fed half stacks, which its decoder fills up with repeats: bench/RESULTS.md.)
  constexpr std::size_t kGpuJpegInFlight = (kSlotsPerWorker + 2) * kMaxCodecStack;
  JpegRoute route(settings.codec, device);
  const int waiting_threads =
      route.may_use_gpu()
          ? static_cast<int>(kGpuJpegInFlight * std::clamp<std::size_t>(settings.gpus, 1, 64))
          : 0;
  std::optional<tbb::global_control> threads;
  if (settings.threads > 0 || waiting_threads > 0) {
    threads.emplace(tbb::global_control::max_allowed_parallelism,
                    static_cast<std::size_t>(concurrency + waiting_threads));
  }
  tbb::task_arena arena(concurrency + waiting_threads);
  // Two images per working thread (one in a CPU stage, one waiting for or on the GPU), one per
  // waiting thread.
  const std::size_t tokens =
      static_cast<std::size_t>(std::clamp(2 * concurrency + waiting_threads, 4, 4096));
  MemoryBudget budget(settings.memory_budget);
  StartShare share(start_share_places(static_cast<std::size_t>(concurrency)));
  const RecyclingLargeBuffers recycling;  // an image's large buffers serve the next (to the end)
  std::optional<BackgroundWorkers> background;
  if (waiting_threads > 0) background.emplace(arena);
  std::size_t next = 0;
  arena.execute([&] {
    tbb::parallel_pipeline(
        tokens,
        tbb::make_filter<
            void, Item*>(tbb::filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> Item* {
          if (next == jobs.size() || stop_requested()) {
            fc.stop();
            return nullptr;
          }
          auto item = std::make_unique<Item>();
          item->result.job = jobs[next++];
          if (settings.skip_existing && item->result.job.exists) {
            item->result.status = FileResult::Status::kSkipped;
          }
          return item.release();
        }) & tbb::make_filter<Item*, Item*>(tbb::filter_mode::parallel, [&](Item* item) {
          stage(*item, [&] { read_and_prepare(*item, settings, budget, route, share, device); });
          return item;
        }) & tbb::make_filter<Item*, Item*>(tbb::filter_mode::parallel, [&](Item* item) {
          stage(*item, [&] { blur_item(*item, settings, device, route, budget); });
          return item;
        }) & tbb::make_filter<Item*, Item*>(tbb::filter_mode::parallel, [&](Item* item) {
          stage(*item, [&] { finish_and_write(*item, settings); });
          return item;
        }) & tbb::make_filter<Item*, void>(tbb::filter_mode::serial_out_of_order, [&](Item* item) {
          const std::unique_ptr<Item> owned(item);
          budget.release(item->held);
          if (item->start_share) share.give_back();
          observer.file_done(item->result);
        }));
  });
}

}  // namespace gpublur
