// engine.cpp — the C++ side of `import gpublur` (nanobind): the command line's library behind
// Python calls, with no second implementation. Python (gpublur/_arrays.py) finds each array's
// address, shape, strides, device and stream; this file parses the blur's parameters with the
// command line's own parser (so a refusal reads as the command line says it), keeps GPU sessions
// and loaded kernels across calls, and blurs: host arrays through the same prepare / blur / finish
// steps as a file (CPU or GPU), device arrays where they are, on the caller's stream.
//
// nanobind rather than pybind11: smaller and faster bindings (a cached call costs little beside
// a blur), and its ndarray reads DLPack, so any framework's array can be taken apart here.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <streambuf>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "app/cli.hpp"
#include "app/operation_options.hpp"
#include "app/run.hpp"
#include "base/atomic_file.hpp"
#include "base/errors.hpp"
#include "batch/prepared_image.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "cpu/cpu_blur.hpp"
#include "gpu/gpu_blur.hpp"
#include "gpu/kernel_library.hpp"
#include "ops/decimal.hpp"
#include "ops/matrix.hpp"
#include "ops/unsharp.hpp"
#include "engine_gpus.hpp"

namespace nb = nanobind;
using namespace gpublur;
using namespace gpublur::engine;

namespace {

// ---- errors ---------------------------------------------------------------------------------

// Every entry point returns (error kind, message, result) instead of letting a C++ exception
// reach nanobind, and Python (gpublur/__init__.py) raises: one shape for every call, and the
// binding layer stays out of C++ unwinding. (A crash on the device machine first looked like an
// exception problem; it was a private libstdc++ in the module, see scripts/device/python.sh.)
using Outcome = std::tuple<std::string, std::string, nb::object>;

template <typename Body>
Outcome guarded(Body&& body) {
  try {
    return {"", "", body()};
  } catch (const UsageError& e) {
    return {"ValueError", e.what(), nb::none()};
  } catch (const IoError& e) {
    return {"OSError", e.what(), nb::none()};
  } catch (const std::bad_alloc&) {
    return {"MemoryError", "out of memory", nb::none()};
  } catch (const std::exception& e) {
    return {"RuntimeError", e.what(), nb::none()};
  }
}

// ---- parameters: the command line's parser and its words -----------------------------------

// The message of a command line the parser refused, without the "gpublur: error: " it prints.
std::string refusal(const std::string& printed) {
  std::string text = printed;
  const std::string prefix = "gpublur: error: ";
  if (text.rfind(prefix, 0) == 0) text = text.substr(prefix.size());
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Parses `args` (options as the command line takes them) after `words` (inputs and outputs).
Request parse(std::vector<std::string> words, const std::vector<std::string>& args) {
  words.insert(words.begin(), "gpublur");
  words.insert(words.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const std::string& w : words) argv.push_back(w.c_str());
  std::ostringstream out, err;
  ParseResult parsed = parse_command_line(static_cast<int>(argv.size()), argv.data(), out, err);
  if (!parsed.request) throw UsageError(refusal(err.str()));
  return std::move(*parsed.request);
}

// ---- parameters: the typed operations (convolve, unsharp) --------------------------------------

// What every operation shares: border, its value, alpha, linear light; refused in the command
// line's words.
struct Common {
  std::string border;
  std::vector<int> border_value;
  std::string alpha;
  bool linear = false;
};

template <typename Enum, std::size_t N>
Enum choice(const NameTable<Enum, N>& table, const std::string& value, const char* what) {
  const std::optional<Enum> parsed = table.parse(value);
  if (!parsed) {
    throw UsageError(std::string(what) + " must be one of " + table.choices(", ") + ", not '" +
                     value + "'");
  }
  return *parsed;
}

BlurParameters common_parameters(const Common& c) {
  BlurParameters p;
  p.border = choice(kBorderNames, c.border, "border");
  p.border_value = border_value_of(c.border_value);
  p.alpha = choice(kAlphaNames, c.alpha, "alpha");
  p.linear = c.linear;
  return p;
}

// convolve(): the matrix as rows of numbers (each the decimal its repr shows), the divisor and
// offset as numbers, checked and made into numbers by the matrix's front end, as --matrix is.
Request convolve_request(const std::vector<std::vector<double>>& rows,
                         const std::optional<double>& divisor, double offset, const Common& c) {
  Request r;
  r.blur = common_parameters(c);
  r.blur.operation = Operation::kMatrix;
  r.blur.matrix = matrix_of_rows(rows);
  if (divisor) {
    if (!std::isfinite(*divisor)) throw UsageError("divisor must be a finite number");
    r.blur.matrix.divisor = decimal_of(*divisor);
    r.blur.matrix.divisor_from = "divisor";
  }
  if (!std::isfinite(offset)) throw UsageError("offset must be a finite number");
  r.blur.matrix.offset = decimal_of(offset);
  make_matrix_numbers(r.blur.matrix);  // its refusals now, not per image
  return r;
}

// unsharp(): the Gaussian's size and sigma by the command line's rules, AMOUNT and THRESHOLD.
Request unsharp_request(const std::optional<int>& size, const std::optional<double>& sigma,
                        double amount, double threshold, const Common& c) {
  Request r;
  r.blur = common_parameters(c);
  r.blur.operation = Operation::kUnsharp;
  r.blur.size = resolve_kernel_size(size, sigma, std::nullopt, std::nullopt);
  r.blur.unsharp = {amount, threshold};
  check_unsharp(r.blur.unsharp, "unsharp");
  return r;
}

// ---- one set of blur parameters --------------------------------------------------------------

class Blurrer {
 public:
  explicit Blurrer(Request request)
      : request_(std::move(request)),
        library_(KernelChoices{request_.kernel, request_.target, std::nullopt, !request_.no_cache,
                               request_.cache_dir},
                 [this](const std::string& line, bool warning) {
                   std::lock_guard<std::mutex> lock(messages_mutex_);
                   messages_.emplace_back(warning, line);
                 }) {}

  /// What the kernel library said since the last call: (warning, line) pairs.
  std::vector<std::pair<bool, std::string>> messages() {
    std::lock_guard<std::mutex> lock(messages_mutex_);
    return std::exchange(messages_, {});
  }

  /// Arrays on a GPU: `n` images of h x w x c samples of `bits`, blurred from `in` into `out` on
  /// `stream`. `transparent`: some alpha below its maximum (the caller looked), which makes the
  /// blur premultiplied as the command line's is.
  void device(std::uintptr_t in, std::size_t in_pitch, std::size_t in_image_pitch,
              std::uintptr_t out, std::size_t out_pitch, std::size_t out_image_pitch, int n, int h,
              int w, int c, int bits, int ordinal, std::uintptr_t stream, bool transparent) {
    if (request_.blur.linear) {
      throw UsageError(
          "linear=True converts sRGB on the CPU: give a NumPy array, or convert a GPU array to "
          "linear light first");
    }
    check_shape(w, h, c);
    BlurSpec spec = make_blur_spec(request_.blur, c);
    spec.premultiplied = !spec.keep_alpha && bits != 32 &&
                         request_.blur.alpha == AlphaMode::kPremultiplied && (c == 2 || c == 4) &&
                         transparent;
    const std::string key = "c" + std::to_string(c) + "-b" + std::to_string(bits) +
                            (spec.premultiplied ? "-premultiplied" : "");
    const GpuKernel& kernel = loaded(ordinal, key, spec, sample_format(bits));
    kernel.blur_on_stream({in, in_pitch, in_image_pitch}, {out, out_pitch, out_image_pitch}, w, h,
                          n, stream);
  }

  /// Host arrays, as one file each: prepare_image's decisions, the blur on `ordinal`'s GPU (one
  /// launch per run of images needing the same kernel) or on the CPU (`ordinal` < 0), then
  /// finish_image. `in` and `out` hold n * h * w * c contiguous samples of `bits`.
  void host(const void* in, void* out, int n, int h, int w, int c, int bits, int ordinal,
            unsigned threads) {
    check_shape(w, h, c);
    const std::size_t samples =
        static_cast<std::size_t>(h) * static_cast<std::size_t>(w) * static_cast<std::size_t>(c);
    const std::size_t bytes = samples * static_cast<std::size_t>(bits / 8);
    const ImageFormat holds = bits == 32 ? ImageFormat::kHdr : ImageFormat::kPng;
    std::vector<PreparedImage> prepared;
    prepared.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const auto* image =
          static_cast<const std::uint8_t*>(in) + static_cast<std::size_t>(i) * bytes;
      DecodedImage d;
      d.image = image_of(image, w, h, c, bits);
      prepared.push_back(prepare_image(std::move(d), request_.blur, holds));
    }
    for (std::size_t first = 0; first < prepared.size();) {
      std::size_t end = first + 1;  // a run of images that take the same kernel
      while (end < prepared.size() && kernel_key(prepared[end]) == kernel_key(prepared[first]))
        ++end;
      if (ordinal >= 0) {
        blur_run_on_gpu(prepared, first, end, ordinal);
      } else {
        for (std::size_t i = first; i < end; ++i) blur_on_cpu_in_place(prepared[i], threads);
      }
      first = end;
    }
    for (int i = 0; i < n; ++i) {
      const AnyImage f = finish_image(std::move(prepared[static_cast<std::size_t>(i)]));
      std::memcpy(static_cast<std::uint8_t*>(out) + static_cast<std::size_t>(i) * bytes, f.data(),
                  bytes);
    }
  }

 private:
  const GpuKernel& loaded(int ordinal, const std::string& key, const BlurSpec& spec,
                          SampleFormat format) {
    std::lock_guard<std::mutex> lock(kernels_mutex_);
    const std::string where = std::to_string(ordinal) + "/" + key;
    if (auto it = kernels_.find(where); it != kernels_.end()) return *it->second.kernel;
    GpuSession& s = session(ordinal);
    Loaded entry;
    entry.blur = library_.get(key, spec, format, s.info().arch);
    try {
      entry.kernel = std::make_unique<GpuKernel>(s, entry.blur->kernel, entry.blur->cache.compiled);
    } catch (const CudaError&) {
      // A cached kernel the driver rejects (written by a build it no longer accepts) is a miss.
      if (!entry.blur->cache.hit) throw;
      entry.blur = library_.recompile(key, spec, format, s.info().arch);
      entry.kernel = std::make_unique<GpuKernel>(s, entry.blur->kernel, entry.blur->cache.compiled);
    }
    return *kernels_.emplace(where, std::move(entry)).first->second.kernel;
  }

  // Images [first, end) of one kernel (and so of one depth, `R`) as one stack on the GPU.
  template <typename R>
  static void stack_on_gpu(std::vector<PreparedImage>& p, std::size_t first, std::size_t end,
                           const GpuKernel& kernel) {
    std::vector<R> images;
    for (std::size_t i = first; i < end; ++i) images.push_back(std::move(p[i].image.get<R>()));
    kernel.blur_in_place(images);
    for (std::size_t i = first; i < end; ++i) p[i].image = std::move(images[i - first]);
  }

  void blur_run_on_gpu(std::vector<PreparedImage>& p, std::size_t first, std::size_t end,
                       int ordinal) {
    const PreparedImage& one = p[first];
    const GpuKernel& kernel = loaded(ordinal, kernel_key(one), one.spec, one.image.sample_format());
    one.image.visit([&](const auto& raster) {
      stack_on_gpu<std::decay_t<decltype(raster)>>(p, first, end, kernel);
    });
  }

  static void blur_on_cpu_in_place(PreparedImage& p, unsigned threads) {
    p.image.visit([&](auto& raster) { raster = blur_on_cpu(raster, p.spec, threads); });
  }

  struct Loaded {
    std::shared_ptr<const CompiledBlur> blur;
    std::unique_ptr<GpuKernel> kernel;
  };
  Request request_;
  std::mutex messages_mutex_;
  std::vector<std::pair<bool, std::string>> messages_;
  KernelLibrary library_;
  std::mutex kernels_mutex_;
  std::map<std::string, Loaded> kernels_;
};

// ---- files -----------------------------------------------------------------------------------

template <typename Sample>
nb::ndarray<nb::numpy> to_numpy(Raster<Sample>&& image) {
  auto* owner = new std::vector<Sample>(std::move(image.pixels));
  nb::capsule free_it(owner, [](void* p) noexcept { delete static_cast<std::vector<Sample>*>(p); });
  const std::size_t shape[3] = {static_cast<std::size_t>(image.height),
                                static_cast<std::size_t>(image.width),
                                static_cast<std::size_t>(image.channels)};
  return nb::ndarray<nb::numpy>(owner->data(), 3, shape, free_it, nullptr, nb::dtype<Sample>());
}

nb::ndarray<nb::numpy> read_array(const std::string& path, const DecodeLimits& limits) {
  DecodedImage d;
  {
    nb::gil_scoped_release release;
    d = read_image(path, limits);
  }
  return d.image.visit([](auto& raster) { return to_numpy(std::move(raster)); });
}

// Writes h x w x c samples of `bits` at `data` to `path`, in the format its extension names.
void write_array(const std::string& path, std::uintptr_t data, int h, int w, int c, int bits,
                 const std::vector<std::string>& args) {
  check_shape(w, h, c);
  const Request options = parse({"in.png", "out.png"}, args);
  nb::gil_scoped_release release;
  const AnyImage image = image_of(reinterpret_cast<const void*>(data), w, h, c, bits);
  const std::vector<std::uint8_t> bytes = image.visit(
      [&](const auto& raster) { return encode_for_path(raster, path, options.write, {}); });
  write_file_atomically(path, bytes, Durability::kRenamed);
}

// A stream that hands each complete line to `line` (the --json records of a batch).
class LineBuffer : public std::streambuf {
 public:
  explicit LineBuffer(std::function<void(const std::string&)> line) : line_(std::move(line)) {}

 protected:
  int overflow(int ch) override {
    if (ch == traits_type::eof()) return 0;
    if (ch == '\n') {
      line_(pending_);
      pending_.clear();
    } else {
      pending_.push_back(static_cast<char>(ch));
    }
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) overflow(static_cast<unsigned char>(s[i]));
    return n;
  }

 private:
  std::function<void(const std::string&)> line_;
  std::string pending_;
};

// A batch, as the command line runs it: `words` are the inputs and options (with -o DIR). Every
// --json line goes to `on_line` (with the GIL held) as it is written. Returns the exit code and
// what was said on stderr.
std::pair<int, std::string> run_batch(const std::vector<std::string>& words,
                                      const std::function<void(const std::string&)>& on_line) {
  Request request = parse(words, {"--json", "--quiet"});
  // One process unless asked: a fork of this interpreter could not use CUDA where the process
  // already has (an array blurred on a GPU, torch), nor carry its threads.
  if (request.processes == 0) request.processes = 1;
  std::mutex mutex;  // lines come from the pipeline's threads
  LineBuffer lines([&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex);
    nb::gil_scoped_acquire acquire;
    on_line(line);
  });
  std::ostream out(&lines);
  std::ostringstream err;
  int code = 0;
  {
    nb::gil_scoped_release release;
    code = run(request, out, err, ContextAtEnd::kRelease);
  }
  return {code, err.str()};
}

// (address, shape, strides in bytes, dtype code/bits/lanes, device type, device id) of anything
// with __dlpack__, for the arrays whose framework Python does not know.
nb::tuple dlpack_view(nb::ndarray<> a) {
  std::vector<std::size_t> shape;
  std::vector<std::int64_t> strides;
  const std::int64_t item = a.dtype().bits / 8;
  for (std::size_t i = 0; i < a.ndim(); ++i) {
    shape.push_back(a.shape(i));
    strides.push_back(a.stride(i) * item);
  }
  return nb::make_tuple(reinterpret_cast<std::uintptr_t>(a.data()), shape, strides,
                        static_cast<int>(a.dtype().code), static_cast<int>(a.dtype().bits),
                        a.device_type(), a.device_id());
}

}  // namespace

NB_MODULE(_engine, m) {
  m.doc() = "gpublur's C++ engine; use the gpublur package's functions.";

  nb::class_<Blurrer>(m, "Blurrer")
      .def("messages", &Blurrer::messages)
      .def("device",
           [](Blurrer& b, std::uintptr_t in, std::size_t in_pitch, std::size_t in_image_pitch,
              std::uintptr_t out, std::size_t out_pitch, std::size_t out_image_pitch, int n, int h,
              int w, int c, int bits, int ordinal, std::uintptr_t stream, bool transparent) {
             return guarded([&] {
               b.device(in, in_pitch, in_image_pitch, out, out_pitch, out_image_pitch, n, h, w, c,
                        bits, ordinal, stream, transparent);
               return nb::none();
             });
           })
      .def("host", [](Blurrer& b, std::uintptr_t in, std::uintptr_t out, int n, int h, int w, int c,
                      int bits, int ordinal, unsigned threads) {
        return guarded([&] {
          {
            nb::gil_scoped_release release;
            b.host(reinterpret_cast<const void*>(in), reinterpret_cast<void*>(out), n, h, w, c,
                   bits, ordinal, threads);
          }
          return nb::none();
        });
      });

  // The blur's parameters, parsed as the command line's options: a Blurrer, or the refusal.
  m.def("make_blurrer", [](const std::vector<std::string>& args) {
    return guarded([&] {
      return nb::cast(new Blurrer(parse({"in.png", "out.png"}, args)),
                      nb::rv_policy::take_ownership);
    });
  });
  // The typed operations: a Blurrer for a matrix or an unsharp mask, or the refusal.
  m.def("make_convolver",
        [](const std::vector<std::vector<double>>& rows, std::optional<double> divisor,
           double offset, const std::string& border, const std::vector<int>& border_value,
           const std::string& alpha, bool linear) {
          return guarded([&] {
            const Common c{border, border_value, alpha, linear};
            return nb::cast(new Blurrer(convolve_request(rows, divisor, offset, c)),
                            nb::rv_policy::take_ownership);
          });
        });
  m.def("make_sharpener",
        [](std::optional<int> size, std::optional<double> sigma, double amount, double threshold,
           const std::string& border, const std::vector<int>& border_value,
           const std::string& alpha, bool linear) {
          return guarded([&] {
            const Common c{border, border_value, alpha, linear};
            return nb::cast(new Blurrer(unsharp_request(size, sigma, amount, threshold, c)),
                            nb::rv_policy::take_ownership);
          });
        });
  m.def("gpus", [] {
    std::vector<std::tuple<int, std::string, std::string>> list;
    for (const GpuInfo& g : gpus().info) list.emplace_back(g.ordinal, g.name, g.arch.sm());
    return std::make_pair(list, gpus().why);
  });
  m.def("device_of", [](std::uintptr_t pointer) {
    return guarded([&] {
      if (gpus().info.empty()) throw UsageError("a CUDA array, but no usable GPU: " + gpus().why);
      return nb::cast(device_of_pointer(pointer));
    });
  });
  m.def("read", [](const std::string& path, std::uint64_t max_pixels, std::uint64_t max_bytes) {
    return guarded([&] { return nb::cast(read_array(path, DecodeLimits{max_pixels, max_bytes})); });
  });
  m.def("write", [](const std::string& path, std::uintptr_t data, int h, int w, int c, int bits,
                    const std::vector<std::string>& args) {
    return guarded([&] {
      write_array(path, data, h, w, c, bits, args);
      return nb::none();
    });
  });
  m.def("run_batch", [](const std::vector<std::string>& words,
                        const std::function<void(const std::string&)>& on_line) {
    return guarded([&] { return nb::cast(run_batch(words, on_line)); });
  });
  m.def("dlpack_view", &dlpack_view);
  m.def("version", [] { return std::string(GPUBLUR_VERSION); });
}
