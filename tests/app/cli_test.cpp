// cli_test.cpp — parsing, validation and the exit codes they lead to.
#include <catch2/catch.hpp>

#include <sstream>
#include <vector>

#include "app/cli.hpp"
#include "base/errors.hpp"

using namespace gpublur;

namespace {
struct Parsed {
  ParseResult result;
  std::string out, err;
};

Parsed parse(std::vector<const char*> args) {
  args.insert(args.begin(), "gpublur");
  std::ostringstream out, err;
  Parsed p{parse_command_line(static_cast<int>(args.size()), args.data(), out, err), "", ""};
  p.out = out.str();
  p.err = err.str();
  return p;
}

Request request(std::vector<const char*> args) {
  Parsed p = parse(std::move(args));
  REQUIRE(p.result.request);
  return *p.result.request;
}

// The kernel size a blur of a.png into b.png with `args` uses.
KernelSize sizes(std::vector<const char*> args) {
  args.insert(args.begin(), {"a.png", "b.png"});
  return request(std::move(args)).blur.size;
}

void require_usage_error(std::vector<const char*> args, const std::string& fragment) {
  CAPTURE(fragment);
  try {
    parse(std::move(args));
    FAIL("expected a usage error");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), Catch::Contains(fragment));
    CHECK(e.exit_code() == 2);
  }
}

// A value CLI11 itself refuses: one line on stderr naming the choices, exit code 2.
void require_parse_error(std::vector<const char*> args, const std::string& fragment) {
  CAPTURE(fragment);
  const Parsed p = parse(std::move(args));
  CHECK_FALSE(p.result.request);
  CHECK(p.result.exit_code == 2);
  CHECK_THAT(p.err, Catch::Contains(fragment));
  CHECK(std::count(p.err.begin(), p.err.end(), '\n') == 1);
}
}  // namespace

TEST_CASE("the everyday command parses", "[cli]") {
  const Request r = request({"in.png", "out.png", "--size", "7", "--sigma", "1.5"});
  CHECK(r.action == Request::Action::kBlur);
  CHECK(r.input == "in.png");
  CHECK(r.output == "out.png");
  CHECK(r.blur.size.x.size == 7);
  CHECK(r.blur.size.x.sigma == 1.5);
  CHECK(r.target == Target::kCubin);
  CHECK(r.device == DeviceChoice::kAuto);
  CHECK(r.blur.border == Border::kClamp);
  CHECK(r.blur.alpha == AlphaMode::kPremultiplied);
  CHECK(r.kernel == KernelVariant::kAuto);
}

TEST_CASE("options with values", "[cli]") {
  const Request r = request({"a.png", "b.jpg", "--sigma", "2", "--target", "ptx", "--device", "cpu",
                             "--border", "constant", "--border-value", "1,2,3,4", "--kernel",
                             "naive", "--alpha", "straight", "--arch", "sm_90", "--dump-ptx"});
  CHECK(r.kernel == KernelVariant::kNaive);
  CHECK(r.target == Target::kPtx);
  CHECK(r.device == DeviceChoice::kCpu);
  CHECK(r.blur.border == Border::kConstant);
  CHECK(r.blur.alpha == AlphaMode::kStraight);
  CHECK(r.blur.border_value == std::array<std::uint8_t, 4>{1, 2, 3, 4});
  CHECK(r.arch->number() == 90);
  CHECK(*r.dump_ptx == "-");
  const Request compile = request({"--arch", "sm_90", "--size", "7", "--dump-ptx", "k.ptx"});
  CHECK(compile.dump_ptx == "k.ptx");
  CHECK(compile.action == Request::Action::kCompile);
  CHECK(request({"--size", "3", "--border-value", "9", "--dump-source"}).blur.border_value ==
        std::array<std::uint8_t, 4>{9, 9, 9, 9});
  CHECK(request({"--version"}).action == Request::Action::kVersion);
}

TEST_CASE("help exits 0 and documents rules, borders and exit codes", "[cli]") {
  const Parsed p = parse({"--help"});
  CHECK_FALSE(p.result.request);
  CHECK(p.result.exit_code == 0);
  for (const char* text : {"2*ceil(3*sigma)+1", "0.3*((size-1)*0.5-1)+0.8", "aaa|abcd", "cba|abcd",
                           "dcb|abcd", "Exit codes", "usage error", "--dump-ptx"}) {
    CHECK_THAT(p.out, Catch::Contains(text));
  }
}

TEST_CASE("CLI11 parse errors are one line and exit 2", "[cli]") {
  for (auto args : {std::vector<const char*>{"--size", "seven"}, {"--bogus"}}) {
    const Parsed p = parse(args);
    CHECK_FALSE(p.result.request);
    CHECK(p.result.exit_code == 2);
    CHECK_THAT(p.err, Catch::StartsWith("gpublur: error: "));
    CHECK(std::count(p.err.begin(), p.err.end(), '\n') == 1);
  }
}

TEST_CASE("bad values are usage errors that say what to do", "[cli]") {
  require_usage_error({"a.png", "b.png", "--size", "4"}, "try --size 3 or --size 5");
  require_usage_error({"a.png", "b.png", "--size", "0"}, "odd number");
  require_usage_error({"a.png", "b.png", "--size", "-3"}, "odd number");
  require_usage_error({"a.png", "b.png", "--sigma", "-1"}, "--sigma must be a finite number > 0");
  require_usage_error({"a.png", "b.png", "--sigma", "nan"}, "--sigma must be a finite number > 0");
  require_usage_error({"a.png", "b.png", "--sigma", "inf"}, "--sigma must be a finite number > 0");
  require_usage_error({"a.png", "b.png", "--sigma", "1e9"}, "explicit --size");
  require_usage_error({"a.png", "b.png"}, "give --size, --sigma or both");
  require_usage_error({"a.png", "b.gif", "--size", "3"}, "unknown extension");
  require_usage_error({"a.png", "--size", "3"}, "missing the output image");
  require_usage_error({"--size", "3"}, "missing input and output");
  require_usage_error({"--size", "3", "--dump-ptx", "--device", "cpu"}, "needs --arch");
  require_usage_error({"a.png", "b.png", "--size", "3", "--png-level", "13"},
                      "--png-level must be 0 to 12");
  require_usage_error({"a.png", "b.png", "c.png", "--size", "3"}, "name an output directory");
  require_usage_error({"a.png", "-", "--size", "3"}, "needs --format");
  require_usage_error({"--size", "3", "-o", "out"}, "give the images to blur");
  require_usage_error({"--size", "3", "--from-list", "l.txt", "a.png", "b.png"},
                      "needs an output directory");
  require_usage_error({"a.png", "-o", "out", "--size", "3", "--dump-ptx"}, "give one image");
  require_usage_error({"a.png", "b.png", "--size", "3", "--format", "gif"}, "does not write 'gif'");
  require_usage_error({"a.png", "b.png", "--size", "3", "--devices", "0,x"}, "--devices");
  require_usage_error({"a.png", "b.png", "--size", "3", "--jpeg-subsampling", "411"},
                      "444, 422 or 420");
  require_usage_error({"a.png", "b.jpg", "--size", "3", "--jpeg-quality", "0"},
                      "--jpeg-quality must be 1 to 100");
  // oneTBB aborted at 100000 threads (pthread_create); the largest unsigned ran out of memory.
  for (const char* threads : {"1025", "100000", "4294967295"}) {
    require_usage_error({"in", "-o", "out", "--size", "3", "--threads", threads},
                        "--threads must be 1 to 1024 (got " + std::string(threads) + ")");
  }
  CHECK(request({"in", "-o", "out", "--size", "3", "--threads", "1024"}).threads == 1024);
  CHECK(request({"in", "-o", "out", "--size", "3", "--threads", "0"}).threads == 0);
  // An absurd sigma is said as it was written, not in its 309 digits.
  try {
    parse({"a.png", "b.png", "--sigma", "1e308"});
    FAIL("expected a usage error");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("--sigma 1e+308 would need a kernel wider than 4095"));
    CHECK(std::string(e.what()).size() < 120);
  }
  require_usage_error({"a.png", "b.png", "--sigma", "1000.5"}, "--sigma 1000.5 would need");
}

TEST_CASE("bad choices are errors that list the choices", "[cli]") {
  require_parse_error({"--size", "3", "--target", "sass"}, "choose one of cubin, ptx");
  require_parse_error({"--size", "3", "--device", "tpu"}, "choose one of auto, gpu, cpu");
  require_parse_error({"--size", "3", "--border", "mirror"},
                      "choose one of clamp, reflect, reflect101, wrap, constant");
  require_parse_error({"--size", "3", "--kernel", "fast"}, "choose one of auto, mma, tiled");
  require_parse_error({"--size", "3", "--alpha", "pre"}, "choose one of premultiplied, straight");
  require_usage_error({"--size", "3", "--dump-ptx", "--arch", "90"}, "write it like sm_90");
  require_usage_error({"--size", "3", "--dump-ptx", "--border-value", "300"}, "0..255");
}

TEST_CASE("the batch form: inputs, -o, and its options", "[cli]") {
  const Request r = request({"a.png",     "dir",      "-o",           "out",
                             "-r",        "--format", "jpg",          "--skip-existing",
                             "--sigma",   "2",        "--threads",    "3",
                             "--devices", "0,0,1",    "--max-pixels", "1000",
                             "--strip",   "-q",       "--from-list",  "-",
                             "--fsync"});
  CHECK_FALSE(r.single);
  CHECK(r.action == Request::Action::kBlur);
  CHECK(r.batch.paths == std::vector<std::string>{"a.png", "dir"});
  CHECK(r.batch.output_dir == "out");
  CHECK(r.batch.recursive);
  CHECK(r.batch.from_list == "-");
  CHECK(r.format == ImageFormat::kJpeg);
  CHECK(r.batch.format == ImageFormat::kJpeg);
  CHECK(r.skip_existing);
  CHECK(r.fsync);
  CHECK_FALSE(request({"a.png", "-o", "out", "--sigma", "2"}).fsync);
  CHECK(r.batch.follow_links);
  CHECK_FALSE(request({"dir", "-o", "out", "-P", "--sigma", "2"}).batch.follow_links);
  CHECK_FALSE(
      request({"dir", "-o", "out", "--no-follow-links", "--sigma", "2"}).batch.follow_links);
  CHECK(r.threads == 3);
  CHECK(r.devices == std::vector<int>{0, 0, 1});
  CHECK_FALSE(r.every_gpu);
  // `all` named: every GPU whatever the batch (the default may start nvJPEG on fewer).
  const Request all = request({"a.jpg", "-o", "out", "--sigma", "2", "--devices", "all"});
  CHECK((all.devices.empty() && all.every_gpu));
  CHECK_FALSE(request({"a.jpg", "-o", "out", "--sigma", "2"}).every_gpu);
  CHECK(r.limits.max_pixels == 1000);
  CHECK(request({"a.png", "-o", "out", "--sigma", "2", "--max-bytes", "5000"}).limits.max_bytes ==
        5000);
  const Request defaults = request({"a.png", "-o", "out", "--sigma", "2"});
  CHECK(defaults.limits.max_pixels == std::uint64_t{1} << 27);
  CHECK(defaults.limits.max_bytes == std::uint64_t{1} << 30);
  CHECK(r.strip);
  CHECK(r.quiet);
  const Request pipe = request({"-", "-", "--format", "png", "--sigma", "2"});
  CHECK(pipe.single);
  CHECK(pipe.input == "-");
  CHECK(pipe.output == "-");
}

TEST_CASE("size and sigma derivation", "[cli]") {
  const KernelSize both = sizes({"--size", "7", "--sigma", "1.5"});
  CHECK(both.x.size == 7);
  CHECK(both.x.sigma == 1.5);
  CHECK(both.y.size == 7);
  CHECK(both.y.sigma == 1.5);
  const KernelSize from_sigma = sizes({"--sigma", "1.5"});
  CHECK(from_sigma.x.size == 11);
  CHECK_THAT(from_sigma.x.rule, Catch::Contains("size from sigma"));
  const KernelSize from_size = sizes({"--size", "7"});
  CHECK(from_size.x.sigma == Approx(1.4));
  CHECK_THAT(from_size.x.rule, Catch::Contains("OpenCV"));
}

TEST_CASE("anisotropic kernels: the vertical axis by the same rules", "[cli]") {
  const KernelSize k = sizes({"--size", "7", "--sigma", "1.5", "--sigma-y", "4"});
  CHECK(k.x.size == 7);
  CHECK(k.y.size == 25);
  CHECK(k.y.sigma == 4.0);
  const KernelSize s = sizes({"--sigma", "2", "--size-y", "3"});
  CHECK(s.x.size == 13);
  CHECK(s.y.size == 3);
  CHECK(s.y.sigma == Approx(0.8));
  require_usage_error({"a.png", "b.png", "--size", "3", "--size-y", "4"},
                      "--size-y must be an odd number");
  require_usage_error({"a.png", "b.png", "--size", "3", "--sigma-y", "0"},
                      "--sigma-y must be a finite number > 0");
}

TEST_CASE("the JPEG codec option: auto by default, and gpu needs a GPU", "[cli]") {
  CHECK(request({"a.jpg", "b.jpg", "--size", "7"}).codec == JpegCodec::kAuto);
  CHECK(request({"a.jpg", "b.jpg", "--size", "7", "--codec", "gpu"}).codec == JpegCodec::kGpu);
  CHECK(request({"a.jpg", "b.jpg", "--size", "7", "--codec", "cpu"}).codec == JpegCodec::kCpu);
  require_usage_error({"a.jpg", "b.jpg", "--size", "7", "--codec", "gpu", "--device", "cpu"},
                      "--codec gpu needs a GPU");
  require_parse_error({"a.jpg", "b.jpg", "--size", "7", "--codec", "fast"}, "--codec");
}

TEST_CASE("a failing call's error names the function the checking macro was given", "[errors]") {
  CHECK(called_function("api().cuModuleLoadData(&raw, image)") == "cuModuleLoadData");
  CHECK(called_function("nv.nvjpegDecodeBatched(handle, s.state)") == "nvjpegDecodeBatched");
  CHECK(called_function("driver->cuInit(0)") == "cuInit");
  CHECK(called_function("cuInit") == "cuInit");
  CHECK(called_function("cuda::api().cuMemcpy2DAsync(&copy, slot.stream.get())") ==
        "cuMemcpy2DAsync");
}
