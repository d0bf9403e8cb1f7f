// reporter_test.cpp — what a run tells its user: standard output that fails, --json lines.
#include <catch2/catch.hpp>

#include <cerrno>
#include <chrono>
#include <sstream>
#include <streambuf>

#include "app/reporter.hpp"
#include "base/number_text.hpp"
#include "base/standard_output.hpp"
#include "base/stop_signals.hpp"

namespace {

using namespace gpublur;

// A stream whose every write fails as a pipe with no reader does (or a full disk).
class FailingBuffer : public std::streambuf {
 public:
  explicit FailingBuffer(int error_number) : error_number_(error_number) {}

 protected:
  int_type overflow(int_type) override {
    errno = error_number_;
    return traits_type::eof();
  }
  std::streamsize xsputn(const char*, std::streamsize) override {
    errno = error_number_;
    return 0;
  }

 private:
  int error_number_;
};

// A batch's request with --json.
Request json_batch() {
  Request request;
  request.single = false;
  request.json = true;
  return request;
}

FileResult done_file(const std::string& input) {
  FileResult r;
  r.job.input = input;
  r.job.output = "out/" + input;
  r.status = FileResult::Status::kDone;
  return r;
}

}  // namespace

TEST_CASE("a write to standard output that fails is an error with its reason and code",
          "[reporter]") {
  FailingBuffer closed(EPIPE);
  std::ostream to_closed(&closed);
  try {
    write_checked(to_closed, "{}\n");
    FAIL("no error");
  } catch (const StdoutError& e) {
    CHECK(std::string(e.what()) == "cannot write to standard output: Broken pipe");
    CHECK(e.exit_code() == kExitClosedOutput);
  }
  CHECK_THROWS_WITH(write_checked(to_closed, "more"), "cannot write to standard output");
  FailingBuffer full(ENOSPC);
  std::ostream to_full(&full);
  try {
    flush_checked(to_full << "text");
    FAIL("no error");
  } catch (const StdoutError& e) {
    CHECK(e.exit_code() == kExitFailure);
  }
  std::ostringstream fine;
  write_checked(fine, "text");
  CHECK(fine.str() == "text");
}

TEST_CASE("numbers are written as a person writes them: the shortest that reads back",
          "[reporter]") {
  CHECK(number_text(1.4) == "1.4");
  CHECK(number_text(0.3 * ((7 - 1) * 0.5 - 1) + 0.8) == "1.4");  // OpenCV's rule for size 7
  CHECK(number_text(0.1) == "0.1");
  CHECK(number_text(2) == "2");
  CHECK(number_text(1e308) == "1e+308");
  CHECK(number_text(0.1 + 0.2) == "0.30000000000000004");  // all it takes to tell it from 0.3
  CHECK(std::stod(number_text(1.0 / 3)) == 1.0 / 3);
  // --json's parameters: the sigma OpenCV's rule gives for size 7.
  Request request = json_batch();
  request.blur.size.x = request.blur.size.y = {7, 0.3 * ((7 - 1) * 0.5 - 1) + 0.8, "rule"};
  std::ostringstream out, err;
  Reporter reporter(request, false, 0, out, err);
  reporter.finish({}, "cpu", "");
  CHECK_THAT(out.str(), Catch::Contains("\"size\": 7, \"sigma\": 1.4, "));
}

TEST_CASE("a failure or warning repeated word for word is said once, with its count at the end",
          "[reporter]") {
  const Request request = json_batch();
  std::ostringstream out, err;
  Reporter reporter(request, false, 5, out, err);
  const std::string hdr = "an 8-bit image cannot be written as .hdr; HDR output needs HDR input";
  for (const char* name : {"a.png", "b.png", "c.png"}) {
    FileResult r = done_file(name);
    r.status = FileResult::Status::kFailed;
    r.error = hdr;
    r.exit_code = kExitUsage;
    reporter.file_done(r);
  }
  FileResult unreadable = done_file("d.png");
  unreadable.status = FileResult::Status::kFailed;
  unreadable.error = "cannot read 'd.png': Permission denied";
  reporter.file_done(unreadable);
  for (const char* name : {"e.hdr", "f.hdr"}) {
    FileResult r = done_file(name);
    r.warning = "HDR input reduced to 8 bits";
    reporter.file_done(r);
  }
  reporter.finish({}, "cpu", "");
  CHECK_THAT(err.str(),
             Catch::StartsWith("gpublur: error: a.png: " + hdr + "\n" +  // the message names none
                               "gpublur: error: cannot read 'd.png': Permission denied\n" +
                               "gpublur: warning: e.hdr: HDR input reduced to 8 bits\n" +
                               "gpublur: error: " + hdr + " (3 files)\n" +
                               "gpublur: warning: HDR input reduced to 8 bits (2 files)\n" +
                               "gpublur: 2 blurred, 4 failed of 5 in "));
  const std::string said = err.str();
  CHECK(std::count(said.begin(), said.end(), '\n') == 6);
  // --json still has every file's line, each with its error.
  const std::string json = out.str();
  CHECK(std::count(json.begin(), json.end(), '\n') == 7);
  std::size_t errors = 0;
  for (std::size_t at = 0; (at = json.find("\"error\": \"an 8-bit", at)) != std::string::npos; ++at)
    ++errors;
  CHECK(errors == 3);
}

TEST_CASE("a batch whose --json lines cannot be written stops, and says so once", "[reporter]") {
  const StopSignals signals;  // the stop the reporter asks for ends with it
  const Request request = json_batch();
  FailingBuffer closed(EPIPE);
  std::ostream out(&closed);
  std::ostringstream err;
  Reporter reporter(request, false, 3, out, err);
  CHECK_FALSE(reporter.output_error());
  reporter.file_done(done_file("a.png"));
  REQUIRE(reporter.output_error());
  CHECK(reporter.output_error()->exit_code() == kExitClosedOutput);
  CHECK(stop_requested());  // nothing new starts
  reporter.file_done(done_file("b.png"));
  reporter.finish({}, "cpu", "");
  CHECK(std::string(reporter.output_error()->what()) ==
        "cannot write to standard output: Broken pipe");
  CHECK(err.str().find("cannot write") == std::string::npos);  // run says it, once, at the end
}

TEST_CASE("a batch's summary says when each GPU's context, nvJPEG and first stack were ready",
          "[reporter]") {
  const Request request = json_batch();
  std::ostringstream out, err;
  const auto before = std::chrono::steady_clock::now();
  Reporter reporter(request, false, 0, out, err);
  GpuWorkerStats gpu;
  gpu.gpu.ordinal = 1;
  gpu.takes_codec = true;
  // Marks on the steady clock: the context 1.5 s after the reporter began (at most; it began a
  // little after `before`), nvJPEG never.
  gpu.context_ready_at = std::chrono::duration<double>(before.time_since_epoch()).count() + 1.5;
  reporter.finish({gpu}, "gpu", "");
  const std::string json = out.str();
  const std::string key = "\"ready_s\": {\"context\": ";
  const std::size_t at = json.find(key);
  REQUIRE(at != std::string::npos);
  const double context = std::stod(json.substr(at + key.size()));
  CHECK((context > 1.0 && context <= 1.5));
  CHECK_THAT(json, Catch::Contains("\"jpeg\": null, \"first_stack\": null}"));
}
