// result_wire.cpp — field by field, in declaration order, the same order both ways.
#include "batch/result_wire.hpp"

#include <cstring>
#include <string>

#include "base/errors.hpp"
#include "base/little_endian.hpp"

namespace gpublur {
namespace {

class Writer {
 public:
  Writer& operator()(std::uint64_t v) {
    put_le(bytes_, v, 8);
    return *this;
  }
  Writer& operator()(std::int64_t v) { return (*this)(static_cast<std::uint64_t>(v)); }
  Writer& operator()(int v) { return (*this)(static_cast<std::int64_t>(v)); }
  Writer& operator()(bool v) { return (*this)(std::uint64_t{v ? 1u : 0u}); }
  Writer& operator()(double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return (*this)(bits);
  }
  Writer& operator()(const std::string& s) {
    (*this)(static_cast<std::uint64_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    return *this;
  }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
};

class Reader {
 public:
  explicit Reader(const std::vector<std::uint8_t>& bytes) : bytes_(bytes) {}
  std::uint64_t u64() {
    need(8);
    const std::uint64_t v = get_le(bytes_.data() + pos_, 8);
    pos_ += 8;
    return v;
  }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  int i32() { return static_cast<int>(i64()); }
  bool flag() { return u64() != 0; }
  double real() {
    const std::uint64_t bits = u64();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  std::string text() {
    const std::uint64_t n = u64();
    need(n);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return s;
  }
  void end() const {
    if (pos_ != bytes_.size()) throw InternalError("a worker process's message is too long");
  }

 private:
  void need(std::uint64_t n) const {
    if (n > bytes_.size() - pos_) throw InternalError("a worker process's message is cut short");
  }
  const std::vector<std::uint8_t>& bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<std::uint8_t> result_bytes(const FileResult& r) {
  Writer w;
  w(r.job.input)(r.job.output)(static_cast<int>(r.job.format))(r.job.exists);
  w(static_cast<int>(r.status))(r.error)(r.exit_code)(r.bytes_in)(r.bytes_out);
  w(r.width)(r.height)(r.channels)(r.bits)(r.format_in)(r.device)(r.decoder)(r.encoder)(r.stacked);
  w(static_cast<std::uint64_t>(r.stages.size()));
  for (const auto& [stage, ms] : r.stages) w(stage)(ms);
  w(static_cast<std::uint64_t>(r.notes.size()));
  for (const std::string& note : r.notes) w(note);
  w(r.warning)(r.conversion)(static_cast<int>(r.samples))(r.kernel_key);
  return w.take();
}

FileResult result_from_bytes(const std::vector<std::uint8_t>& bytes) {
  Reader in(bytes);
  FileResult r;
  r.job.input = in.text();
  r.job.output = in.text();
  r.job.format = static_cast<ImageFormat>(in.i32());
  r.job.exists = in.flag();
  r.status = static_cast<FileResult::Status>(in.i32());
  r.error = in.text();
  r.exit_code = in.i32();
  r.bytes_in = in.u64();
  r.bytes_out = in.u64();
  r.width = in.i32(), r.height = in.i32(), r.channels = in.i32(), r.bits = in.i32();
  r.format_in = in.text();
  r.device = in.text();
  r.decoder = in.text();
  r.encoder = in.text();
  r.stacked = in.i32();
  for (std::uint64_t n = in.u64(); n > 0; --n) {
    std::string stage = in.text();
    r.stages.emplace_back(std::move(stage), in.real());
  }
  for (std::uint64_t n = in.u64(); n > 0; --n) r.notes.push_back(in.text());
  r.warning = in.text();
  r.conversion = in.text();
  r.samples = static_cast<SampleFormat>(in.i32());
  r.kernel_key = in.text();
  in.end();
  return r;
}

std::vector<std::uint8_t> stats_bytes(const GpuWorkerStats& s) {
  Writer w;
  w(s.gpu.ordinal)(s.gpu.name)(s.gpu.arch.major)(s.gpu.arch.minor)(s.gpu.driver_version);
  w(static_cast<std::uint64_t>(s.gpu.memory_bytes))(s.gpu.sm_count)(s.gpu.shared);
  w(s.images)(s.launches)(s.busy_ms)(s.idle_ms)(s.launch_ms)(s.slot_wait_ms)(s.gpu_wait_ms);
  w(s.hand_back_ms)(s.first_launch_ms)(s.decode_call_ms)(s.encode_call_ms)(s.codec_start_ms);
  w(s.context_ready_at)(s.codec_ready_at)(s.first_stack_at);
  w(s.takes_codec)(s.failure);
  return w.take();
}

GpuWorkerStats stats_from_bytes(const std::vector<std::uint8_t>& bytes) {
  Reader in(bytes);
  GpuWorkerStats s;
  s.gpu.ordinal = in.i32();
  s.gpu.name = in.text();
  s.gpu.arch.major = in.i32();
  s.gpu.arch.minor = in.i32();
  s.gpu.driver_version = in.i32();
  s.gpu.memory_bytes = static_cast<std::size_t>(in.u64());
  s.gpu.sm_count = in.i32();
  s.gpu.shared = in.flag();
  s.images = static_cast<long>(in.i64());
  s.launches = static_cast<long>(in.i64());
  for (double* clock :
       {&s.busy_ms, &s.idle_ms, &s.launch_ms, &s.slot_wait_ms, &s.gpu_wait_ms, &s.hand_back_ms,
        &s.first_launch_ms, &s.decode_call_ms, &s.encode_call_ms, &s.codec_start_ms,
        &s.context_ready_at, &s.codec_ready_at, &s.first_stack_at}) {
    *clock = in.real();
  }
  s.takes_codec = in.flag();
  s.failure = in.text();
  in.end();
  return s;
}

}  // namespace gpublur
