// pipeline.cpp — one invocation: GPU start-up and NVRTC loading run on other threads while the
// image decodes; then generate, compile (or load from the kernel cache), blur, encode.
#include "pipeline.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <future>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

#include "atomic_file.hpp"
#include "codegen.hpp"
#include "cpu_blur.hpp"
#include "errors.hpp"
#include "gpu_blur.hpp"
#include "image_io.hpp"
#include "kernel_cache.hpp"
#include "nvrtc.hpp"
#include "run_report.hpp"
#include "srgb.hpp"
#include "version.hpp"

namespace gpublur {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void write_text(const std::string& path, const std::string& text, std::ostream& out) {
  if (path == "-") {
    out << text;
    if (!text.empty() && text.back() != '\n') out << '\n';
    out.flush();
    return;
  }
  write_file_atomically(path, std::vector<std::uint8_t>(text.begin(), text.end()));
}

std::string taps_text(const Weights& w) {
  std::string s;
  for (auto t : w.taps) s += (s.empty() ? "" : " ") + std::to_string(t);
  return s;
}

std::string json_number(double v) {
  std::ostringstream s;
  s << std::setprecision(17) << v;
  return s.str();
}

int print_version(std::ostream& out) {
  out << "gpublur " << kVersion << "\n";
  try {
    const NvrtcVersion v = nvrtc_version();
    out << "NVRTC " << v.major << "." << v.minor << " (sm_" << v.archs.front() << " to sm_"
        << v.archs.back() << ")\n";
  } catch (const Error& e) {
    out << "NVRTC: not available: " << e.what() << "\n";
  }
  std::string why;
  if (const auto gpu = probe_gpu(why)) {
    out << "driver: " << driver_version_string(gpu->driver_version) << "\n";
    out << "GPU " << gpu->ordinal << ": " << gpu->name << ", compute capability "
        << gpu->arch.capability() << ", " << gpu->memory_bytes / (1024 * 1024) << " MiB\n";
  } else {
    out << "GPU: none (" << why << ")\n";
  }
  return kExitOk;
}

// GPU start-up, run on its own thread: driver, cuInit, device query, primary context.
struct GpuStartup {
  std::optional<GpuInfo> info;
  std::unique_ptr<GpuSession> session;  // null when there is no GPU or it only compiles
  std::string why;                      // why there is no GPU
  double ms = 0;
};

GpuStartup start_gpu(bool open_session) {
  const auto start = Clock::now();
  GpuStartup s;
  s.info = probe_gpu(s.why);
  try {
    if (s.info && open_session) s.session = std::make_unique<GpuSession>(*s.info);
  } catch (const CudaError& e) {  // a GPU whose context cannot be created is not usable
    s.info.reset();
    s.why = std::string("the GPU is not usable: ") + e.what();
  }
  s.ms = ms_since(start);
  return s;
}

// NVRTC loading, run on its own thread: what the cache key and the compile plan need.
struct NvrtcStartup {
  NvrtcVersion version;
  std::string identity;
};

class Invocation {
 public:
  Invocation(const Request& o, std::ostream& out, std::ostream& err, ContextAtEnd context_at_end)
      : o_(o), out_(out), err_(err), context_at_end_(context_at_end) {}
  int run();

 private:
  void start_background_work();
  void read_input(const std::vector<std::uint8_t>& file);
  void wait_for_gpu();
  bool nvrtc_usable();
  const CompiledKernel& compile(const GeneratedKernel& kernel, bool skip_lookup = false);
  template <typename Sample>
  void blur_on_gpu_in_place(Raster<Sample>& image, const GeneratedKernel& kernel);
  void finish_with_gpu();
  void report_facts(const KernelSize& k, const BlurSpec& spec);
  void print_spec(const KernelSize& k, const BlurSpec& spec);
  bool keep_16_bit();
  bool keep_hdr();
  template <typename Sample>
  bool premultiply(const Raster<Sample>* image, int channels);
  template <typename Sample>
  void blur(Raster<Sample>& image, const BlurSpec& spec, SampleFormat format);
  template <typename Sample>
  void blur_and_write(Raster<Sample>& image, const BlurSpec& spec, SampleFormat format);
  void blur_linear(const BlurSpec& spec, bool sixteen);
  template <typename Sample>
  void write_output(const Raster<Sample>& image);
  WriteOptions write_options() const;

  const Request& o_;
  std::ostream& out_;
  std::ostream& err_;
  const ContextAtEnd context_at_end_;
  const Clock::time_point start_ = Clock::now();
  RunReport report_;
  bool blurring_ = false;
  std::future<GpuStartup> gpu_future_;
  std::future<NvrtcStartup> nvrtc_future_;
  std::optional<NvrtcStartup> nvrtc_;
  std::string nvrtc_problem_;  // why NVRTC could not be loaded
  std::optional<GpuStartup> gpu_;
  std::optional<ReadImage> input_;
  std::optional<CacheResult> compiled_;
  std::unique_ptr<FileKernelStore> store_;
  std::string device_used_ = "none";
};

// GPU start-up (when an image will be blurred and may go to the GPU) and NVRTC loading (also
// for --dump-ptx) begin on other threads now, so they overlap the decoding.
void Invocation::start_background_work() {
  const bool may_run_on_gpu = blurring_ && o_.device != DeviceChoice::kCpu;
  if (may_open_gpu(o_)) {
    gpu_future_ = std::async(std::launch::async, start_gpu, may_run_on_gpu);
  }
  if (may_run_on_gpu || o_.dump_ptx) {
    nvrtc_future_ = std::async(std::launch::async, [] {
      return NvrtcStartup{nvrtc_version(), nvrtc_identity()};
    });
  }
}

void Invocation::read_input(const std::vector<std::uint8_t>& file) {
  if (o_.input.empty()) return;
  const auto start = Clock::now();
  input_ = decode_image(file, o_.input);
  report_.stage("decode", ms_since(start));
}

void Invocation::wait_for_gpu() {
  if (!gpu_future_.valid()) return;
  const auto start = Clock::now();
  gpu_ = gpu_future_.get();
  report_.stage("init", ms_since(start));
  if (o_.verbose && gpu_->info) {
    err_ << "gpublur: GPU start-up took " << std::fixed << std::setprecision(1) << gpu_->ms
         << " ms, overlapped with reading the image\n";
  }
}

// Whether NVRTC loaded (on its thread); if not, nvrtc_problem_ says why. Without it there is
// nothing to run on the GPU, so --device auto falls back to the CPU.
bool Invocation::nvrtc_usable() {
  if (nvrtc_) return true;
  try {
    nvrtc_ = nvrtc_future_.valid() ? nvrtc_future_.get()
                                   : NvrtcStartup{nvrtc_version(), nvrtc_identity()};
  } catch (const Error& e) {
    nvrtc_problem_ = e.what();
    return false;
  }
  return true;
}

const CompiledKernel& Invocation::compile(const GeneratedKernel& kernel, bool skip_lookup) {
  if (!o_.arch && !(gpu_ && gpu_->info)) {
    throw UsageError("--dump-ptx needs a GPU to compile for, or --arch (e.g. --arch sm_90)");
  }
  const auto start = Clock::now();
  if (!nvrtc_usable()) throw Error(nvrtc_problem_);
  const NvrtcStartup& nvrtc = *nvrtc_;
  const CompilePlan plan =
      plan_compile(o_.arch ? *o_.arch : gpu_->info->arch, o_.target, nvrtc.version);
  if (!plan.note.empty()) err_ << "gpublur: note: " << plan.note << "\n";
  if (!o_.no_cache && !store_) {
    store_ = std::make_unique<FileKernelStore>(o_.cache_dir.empty() ? default_cache_dir()
                                                                    : o_.cache_dir);
  }
  compiled_ =
      compile_cached(kernel, plan, store_.get(), nvrtc.identity, compile_kernel, skip_lookup);
  const double ms = ms_since(start);
  report_.stage(compiled_->hit ? "cache hit" : "compile", ms);
  if (!compiled_->store_problem.empty()) {
    err_ << "gpublur: warning: kernel cache not written (" << compiled_->store_problem
         << "); continuing\n";
  }
  if (o_.verbose) {
    const CompilePlan& p = compiled_->compiled.plan;
    err_ << "gpublur: " << (compiled_->hit ? "kernel cache hit: loaded " : "compiled ")
         << kernel.name << " (" << target_name(p.target) << " for "
         << (p.target == Target::kCubin ? p.arch.sm() : p.arch.compute()) << ") in " << std::fixed
         << std::setprecision(1) << ms << " ms"
         << (store_ ? "; cache " + store_->path_for(compiled_->key) : std::string("; cache off"))
         << "\n";
    if (!compiled_->compiled.log.empty())
      err_ << "gpublur: NVRTC says:\n" << compiled_->compiled.log << "\n";
  }
  return compiled_->compiled;
}

// A cached entry the driver rejects (say, written by a build it no longer accepts) is a miss:
// compile afresh, replace it, and load once more. Rejection happens at load, before the image
// is touched, so the retry blurs the same input.
template <typename Sample>
void Invocation::blur_on_gpu_in_place(Raster<Sample>& image, const GeneratedKernel& kernel) {
  std::optional<GpuKernel> loaded;
  try {
    loaded.emplace(*gpu_->session, kernel, compiled_->compiled);
  } catch (const CudaError& e) {
    if (!compiled_->hit) throw;
    err_ << "gpublur: warning: cached kernel rejected (" << e.what() << "); recompiling\n";
    compile(kernel, /*skip_lookup=*/true);
    loaded.emplace(*gpu_->session, kernel, compiled_->compiled);
  }
  report_.stage("load", loaded->load_ms());
  const GpuTimes t = loaded->blur_in_place(image);
  report_.stage("pin", t.pin_ms);
  report_.stage("upload", t.upload_ms);
  report_.stage("kernel", t.kernel_ms);
  report_.stage("download", t.download_ms);
  if (o_.verbose) {
    err_ << "gpublur: blurred on " << gpu_->info->name << " (" << gpu_->info->arch.sm()
         << "), kernel " << std::fixed << std::setprecision(3) << t.kernel_ms << " ms"
         << (t.pinned ? "" : "; the driver would not pin the image, so its copies were staged")
         << "\n";
  }
  loaded.reset();
  finish_with_gpu();
}

// Under kLeaveToExit the context stays retained to the end of the process: the exit costs
// about the same with it or without it, so releasing it first only adds the release (H100 host:
// release 22-26 ms, then the exit 47 ms; kept, the exit 46 ms). The session is given up on
// purpose, so nothing releases it before the driver's exit handler.
void Invocation::finish_with_gpu() {
  if (context_at_end_ == ContextAtEnd::kLeaveToExit) {
    static_cast<void>(gpu_->session.release());
  } else {
    gpu_->session.reset();
  }
}

void Invocation::report_facts(const KernelSize& k, const BlurSpec& spec) {
  report_.fact("gpublur", json_string(kVersion));
  if (input_) {
    const int bits = input_->bits;
    const int width = bits == 32   ? input_->imagef.width
                      : bits == 16 ? input_->image16.width
                                   : input_->image.width;
    const int height = bits == 32   ? input_->imagef.height
                       : bits == 16 ? input_->image16.height
                                    : input_->image.height;
    const int channels = bits == 32   ? input_->imagef.channels
                         : bits == 16 ? input_->image16.channels
                                      : input_->image.channels;
    report_.fact("input", "{\"path\": " + json_string(o_.input) +
                              ", \"bits\": " + std::to_string(input_->bits) + ", \"width\": " +
                              std::to_string(width) + ", \"height\": " + std::to_string(height) +
                              ", \"channels\": " + std::to_string(channels) +
                              ", \"conversion\": " + json_string(input_->conversion) + "}");
  }
  if (!o_.output.empty()) report_.fact("output", json_string(o_.output));
  auto axis = [](const AxisSize& a, const Weights& w) {
    std::string taps;
    for (auto t : w.taps) taps += (taps.empty() ? "" : ", ") + std::to_string(t);
    return "{\"size\": " + std::to_string(a.size) + ", \"sigma\": " + json_number(a.sigma) +
           ", \"rule\": " + json_string(a.rule) + ", \"taps\": [" + taps + "]}";
  };
  report_.fact("x", axis(k.x, spec.x));
  report_.fact("y", axis(k.y, spec.y));
  report_.fact("border", json_string(std::string(border_name(spec.border))));
  report_.fact("device", json_string(device_used_));
  if (gpu_ && gpu_->info) {
    report_.fact("gpu", "{\"name\": " + json_string(gpu_->info->name) +
                            ", \"arch\": " + json_string(gpu_->info->arch.sm()) + ", \"driver\": " +
                            json_string(driver_version_string(gpu_->info->driver_version)) + "}");
  }
  if (compiled_) {
    const CompilePlan& p = compiled_->compiled.plan;
    report_.fact("kernel", "{\"target\": " + json_string(std::string(target_name(p.target))) +
                               ", \"arch\": " + json_string(p.arch.sm()) + ", \"cache\": " +
                               json_string(store_ ? (compiled_->hit ? "hit" : "miss") : "off") +
                               ", \"key\": " + json_string(compiled_->key) + "}");
  }
}

void Invocation::print_spec(const KernelSize& k, const BlurSpec& spec) {
  if (!o_.verbose) return;
  err_ << "gpublur: size " << k.x.size << ", sigma " << k.x.sigma << " (" << k.x.rule << ")\n"
       << "gpublur: taps (sum 2^" << kWeightBits << "): " << taps_text(spec.x) << "\n";
  if (k.y.size != k.x.size || k.y.sigma != k.x.sigma) {
    err_ << "gpublur: vertical: size " << k.y.size << ", sigma " << k.y.sigma << " (" << k.y.rule
         << "), taps " << taps_text(spec.y) << "\n";
  }
  err_ << "gpublur: border " << border_name(spec.border) << ", " << spec.channels << " channels\n";
}

// 16-bit input keeps its depth only in PNG output; for any other format the user named, it is
// converted to 8 bits first (said with --verbose). Returns whether the 16-bit path runs.
bool Invocation::keep_16_bit() {
  if (!input_ || input_->bits != 16) return false;
  if (!blurring_ || format_for_path(o_.output) == ImageFormat::kPng) return true;
  input_->image = to_8_bit(input_->image16);
  input_->image16 = Image16{};
  input_->bits = 8;
  if (o_.verbose) err_ << "gpublur: 16-bit input converted to 8 bits: only PNG output keeps 16\n";
  return false;
}

// HDR input stays floating-point when the output is .hdr; for any other format it is reduced to
// 8 bits as stb_image would (a warning says so). Returns whether the floating-point path runs.
bool Invocation::keep_hdr() {
  if (!input_ || input_->bits != 32) return false;
  if (!blurring_ || format_for_path(o_.output) == ImageFormat::kHdr) {
    if (o_.blur.linear) throw UsageError("--linear: HDR images are in linear light already");
    return true;
  }
  input_->image = to_8_bit(input_->imagef);
  input_->imagef = ImageF{};
  input_->bits = 8;
  input_->conversion = "HDR input reduced to 8 bits (gamma 2.2, clamped); write .hdr to keep it";
  err_ << "gpublur: warning: " << input_->conversion << "\n";
  return false;
}

// Whether to blur premultiplied: asked for (the default), the image has alpha, and some pixel
// is not opaque (premultiplying an opaque image by 1 changes nothing, so it takes the faster
// straight blur, with the same result). Without an image (compile-and-dump only), an alpha
// channel is assumed to be used.
template <typename Sample>
bool Invocation::premultiply(const Raster<Sample>* image, int channels) {
  if (o_.blur.alpha != AlphaMode::kPremultiplied || (channels != 2 && channels != 4)) return false;
  if (image && !has_transparency(*image)) {
    if (o_.verbose) err_ << "gpublur: alpha: every pixel is opaque; nothing to premultiply\n";
    return false;
  }
  if (o_.verbose) err_ << "gpublur: alpha: premultiplied (--alpha straight to blur it apart)\n";
  return true;
}

// Generates the kernel, compiles it when the GPU runs or PTX is wanted, and blurs `image` in
// place (on the GPU, or on the CPU saying why). Leaves it alone when only dumping.
template <typename Sample>
void Invocation::blur(Raster<Sample>& image, const BlurSpec& spec, SampleFormat format) {
  wait_for_gpu();
  const bool have_gpu = gpu_ && gpu_->info;
  // The kernel is written for the architecture it will be compiled for (0: none known).
  const int arch = o_.arch ? o_.arch->number() : have_gpu ? gpu_->info->arch.number() : 0;
  const GeneratedKernel kernel = generate_kernel(spec, o_.kernel, format, arch);
  if (o_.dump_source) write_text(*o_.dump_source, kernel.source, out_);
  if (o_.device == DeviceChoice::kGpu && !have_gpu) {
    throw Error("no usable GPU: " + (gpu_ ? gpu_->why : std::string("not asked for")) +
                " (leave out --device gpu to blur on the CPU)");
  }
  bool gpu_run = blurring_ && have_gpu && gpu_->session;
  if (gpu_run && o_.device == DeviceChoice::kAuto && !nvrtc_usable()) gpu_run = false;
  if (gpu_run || o_.dump_ptx) compile(kernel);
  if (o_.dump_ptx) write_text(*o_.dump_ptx, compiled_->compiled.ptx, out_);
  if (!blurring_) return;
  if (gpu_run) {
    device_used_ = "gpu";
    blur_on_gpu_in_place(image, kernel);
    return;
  }
  device_used_ = "cpu";
  if (o_.device == DeviceChoice::kAuto) {
    err_ << "gpublur: " << (have_gpu ? nvrtc_problem_ : gpu_->why) << "; blurring on the CPU\n";
  }
  const auto start = Clock::now();
  image = blur_on_cpu(image, spec);
  report_.stage("cpu blur", ms_since(start));
}

template <typename Sample>
void Invocation::blur_and_write(Raster<Sample>& image, const BlurSpec& spec, SampleFormat format) {
  blur(image, spec, format);
  if (!blurring_) return;
  write_output(image);
}

// --linear: sRGB decoded to 16-bit linear light, blurred exactly, encoded back to the input's
// depth. The constant border value, given in sRGB, is decoded the same way.
void Invocation::blur_linear(const BlurSpec& spec, bool sixteen) {
  BlurSpec linear_spec = spec;
  linear_spec.border_value16 = std::array<std::uint16_t, 4>{};
  for (std::size_t c = 0; c < 4; ++c) {
    const bool alpha = (spec.channels == 2 || spec.channels == 4) &&
                       c == static_cast<std::size_t>(spec.channels - 1);
    const double v = spec.border_value[c] / 255.0;
    (*linear_spec.border_value16)[c] =
        static_cast<std::uint16_t>(std::lround(65535.0 * (alpha ? v : srgb_to_linear(v))));
  }
  auto start = Clock::now();
  Image16 linear;
  if (input_) linear = sixteen ? decode_srgb(input_->image16) : decode_srgb(input_->image);
  report_.stage("to linear", ms_since(start));
  blur(linear, linear_spec, SampleFormat::k16);
  if (!blurring_) return;
  if (sixteen) {
    write_output(encode_srgb16(linear));
  } else {
    write_output(encode_srgb8(linear));
  }
}

// Encodes and writes the output, timed apart: "write" is the temporary file, fsync and rename.
template <typename Sample>
void Invocation::write_output(const Raster<Sample>& image) {
  auto start = Clock::now();
  const std::vector<std::uint8_t> file = encode_for_path(image, o_.output, write_options());
  report_.stage("encode", ms_since(start));
  start = Clock::now();
  write_file_atomically(o_.output, file);
  report_.stage("write", ms_since(start));
}

WriteOptions Invocation::write_options() const { return o_.write; }

int Invocation::run() {
  const KernelSize& k = o_.blur.size;
  blurring_ = o_.action == Request::Action::kBlur;
  if (blurring_) check_writable_destination(o_.output);
  // GPU start-up begins before the input is read, unless the input cannot be opened at all:
  // then read_file reports that at once, without first waiting for a GPU nobody will use.
  const bool input_openable = !o_.input.empty() && ::access(o_.input.c_str(), R_OK) == 0;
  if (input_openable || o_.input.empty()) start_background_work();
  const std::vector<std::uint8_t> file =
      o_.input.empty() ? std::vector<std::uint8_t>{} : read_file(o_.input);
  read_input(file);
  const bool hdr = keep_hdr();
  const bool sixteen = keep_16_bit();
  const int channels = !input_   ? o_.channels
                       : hdr     ? input_->imagef.channels
                       : sixteen ? input_->image16.channels
                                 : input_->image.channels;
  BlurSpec spec = make_blur_spec(o_.blur, channels);
  print_spec(k, spec);
  if (hdr) {
    blur_and_write(input_->imagef, spec, SampleFormat::kFloat);
  } else if (sixteen) {
    spec.premultiplied = premultiply(input_ ? &input_->image16 : nullptr, channels);
    if (o_.blur.linear) {
      blur_linear(spec, true);
    } else {
      blur_and_write(input_->image16, spec, SampleFormat::k16);
    }
  } else {
    spec.premultiplied = premultiply(input_ ? &input_->image : nullptr, channels);
    if (o_.blur.linear) {
      blur_linear(spec, false);
    } else {
      Image none;  // compile-and-dump only
      blur_and_write(input_ ? input_->image : none, spec, SampleFormat::k8);
    }
  }
  report_.total_ms = ms_since(start_);
  if (o_.timings) report_.print_timings(err_);
  if (o_.json) {
    report_facts(k, spec);
    out_ << report_.to_json() << "\n";
  }
  return kExitOk;
}

}  // namespace

bool may_open_gpu(const Request& o) {
  if (o.action == Request::Action::kVersion || o.device == DeviceChoice::kCpu) return false;
  return o.action == Request::Action::kBlur || (o.dump_ptx && !o.arch);
}

int run(const Request& o, std::ostream& out, std::ostream& err, ContextAtEnd context_at_end) {
  if (o.action == Request::Action::kVersion) return print_version(out);
  return Invocation(o, out, err, context_at_end).run();
}

}  // namespace gpublur
