// pipeline.cpp — the stages, on oneTBB's parallel_pipeline.
#include "pipeline.hpp"

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_pipeline.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>

#include "atomic_file.hpp"
#include "image_decode.hpp"
#include "image_encode.hpp"
#include "prepared_image.hpp"
#include "stop_signals.hpp"

namespace gpublur {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Bytes of decoded images in flight. A decode waits while the budget is spent (unless nothing
// is in flight), so a batch of large images holds a few at a time, not a token's worth each.
class MemoryBudget {
 public:
  explicit MemoryBudget(std::uint64_t limit) : limit_(limit) {}
  void wait_for_room() {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return in_use_ == 0 || in_use_ < limit_; });
  }
  void add(std::uint64_t bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    in_use_ += bytes;
  }
  void release(std::uint64_t bytes) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      in_use_ -= bytes;
    }
    room_.notify_all();
  }

 private:
  const std::uint64_t limit_;
  std::mutex mutex_;  // guards in_use_
  std::condition_variable room_;
  std::uint64_t in_use_ = 0;
};

// One job on its way through the stages.
struct Item {
  FileResult result;
  std::optional<PreparedImage> prepared;
  Metadata metadata;
  ChromaSubsampling subsampling = ChromaSubsampling::kAuto;
  std::uint64_t held = 0;  // bytes counted against the budget

  bool going() const { return result.status == FileResult::Status::kDone; }
};

std::uint64_t bytes_of(const PreparedImage& p) {
  return p.format == SampleFormat::k8    ? p.image.byte_count()
         : p.format == SampleFormat::k16 ? p.image16.byte_count()
                                         : p.imagef.byte_count();
}

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
  } catch (const Error& e) {
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

void read_and_prepare(Item& item, const PipelineSettings& s, MemoryBudget& budget) {
  FileResult& r = item.result;
  budget.wait_for_room();
  auto start = Clock::now();
  std::vector<std::uint8_t> bytes = read_file(r.job.input);
  r.stages.emplace_back("read", ms_since(start));
  r.bytes_in = bytes.size();
  start = Clock::now();
  DecodedImage decoded =
      decode_image(bytes, r.job.input == "-" ? "standard input" : r.job.input, s.limits);
  r.stages.emplace_back("decode", ms_since(start));
  bytes = {};
  r.width = decoded.width(), r.height = decoded.height(), r.channels = decoded.channels();
  r.bits = decoded.bits;
  r.format_in = std::string(format_name(decoded.format));
  if (!s.strip_metadata) item.metadata = std::move(decoded.metadata);
  item.subsampling = decoded.subsampling;
  start = Clock::now();
  item.prepared = prepare_image(std::move(decoded), s.blur, r.job.format);
  r.stages.emplace_back("prepare", ms_since(start));
  r.spec = item.prepared->spec;
  r.samples = item.prepared->format;
  r.kernel_key = kernel_key(*item.prepared);
  r.notes = item.prepared->notes;
  r.warning = item.prepared->warning;
  r.conversion = item.prepared->warning;
  item.held = bytes_of(*item.prepared);
  budget.add(item.held);
}

std::vector<std::uint8_t> encode(const FinishedImage& f, const Job& job, EncodeOptions options,
                                 const Metadata& metadata) {
  if (f.bits == 32) return encode_image(f.imagef, job.format, options, metadata);
  if (f.bits == 16) return encode_image(f.image16, job.format, options, metadata);
  return encode_image(f.image, job.format, options, metadata);
}

void write_output(const std::string& path, const std::vector<std::uint8_t>& bytes,
                  Durability durability) {
  if (path == "-") {
    std::cout.write(reinterpret_cast<const char*>(bytes.data()),
                    static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    if (!std::cout) throw IoError("cannot write to standard output");
    return;
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  if (error)
    throw IoError("cannot create '" + printable(parent.string()) + "': " + error.message());
  write_file_atomically(path, bytes, durability);
}

void finish_and_write(Item& item, const PipelineSettings& s) {
  FileResult& r = item.result;
  auto start = Clock::now();
  const bool linear = item.prepared->srgb_bits != 0;
  const FinishedImage finished = finish_image(std::move(*item.prepared));
  item.prepared.reset();
  if (linear) r.stages.emplace_back("from linear", ms_since(start));
  EncodeOptions options = s.encode;
  if (options.jpeg_subsampling == ChromaSubsampling::kAuto)
    options.jpeg_subsampling = item.subsampling;
  for (const std::string& lost : metadata_not_kept(item.metadata, r.job.format)) {
    r.notes.push_back(lost + " not kept: " + std::string(format_name(r.job.format)) +
                      " cannot hold it");
  }
  start = Clock::now();
  const std::vector<std::uint8_t> bytes = encode(finished, r.job, options, item.metadata);
  r.stages.emplace_back("encode", ms_since(start));
  r.bytes_out = bytes.size();
  if (stop_requested()) {  // nothing new is written once asked to stop
    r.status = FileResult::Status::kInterrupted;
    return;
  }
  start = Clock::now();
  write_output(r.job.output, bytes, s.durability);
  r.stages.emplace_back("write", ms_since(start));
}

}  // namespace

void run_pipeline(const std::vector<Job>& jobs, const PipelineSettings& settings,
                  BlurDevice& device, FileObserver& observer) {
  std::optional<tbb::global_control> threads;
  if (settings.threads > 0) {
    threads.emplace(tbb::global_control::max_allowed_parallelism, settings.threads);
  }
  const int concurrency =
      settings.threads > 0 ? static_cast<int>(settings.threads) : tbb::info::default_concurrency();
  // Two images per thread: one in a CPU stage, one waiting for or on the GPU.
  const std::size_t tokens = static_cast<std::size_t>(std::clamp(2 * concurrency, 4, 128));
  MemoryBudget budget(settings.memory_budget);
  std::size_t next = 0;
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
        stage(*item, [&] { read_and_prepare(*item, settings, budget); });
        return item;
      }) & tbb::make_filter<Item*, Item*>(tbb::filter_mode::parallel, [&](Item* item) {
        stage(*item,
              [&] { device.blur(*item->prepared, kernel_key(*item->prepared), item->result); });
        return item;
      }) & tbb::make_filter<Item*, Item*>(tbb::filter_mode::parallel, [&](Item* item) {
        stage(*item, [&] { finish_and_write(*item, settings); });
        return item;
      }) & tbb::make_filter<Item*, void>(tbb::filter_mode::serial_out_of_order, [&](Item* item) {
        const std::unique_ptr<Item> owned(item);
        budget.release(item->held);
        observer.file_done(item->result);
      }));
}

}  // namespace gpublur
