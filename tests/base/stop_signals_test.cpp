// stop_signals_test.cpp — a stop signal ends waits on input that may never come, on whichever
// thread the signal is delivered to; the handlers install and restore.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <future>

#include "base/stop_signals.hpp"
#include "codecs/image_decode.hpp"
#include "support/test_pipe.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace gpublur;
using namespace std::chrono_literals;

using gpublur::test::Pipe;

// What `wait` ends with: "readable", "stopped", or "still waiting" after `patience`.
template <typename Wait>
std::string outcome(std::future<Wait>& waiting, std::chrono::milliseconds patience) {
  if (waiting.wait_for(patience) != std::future_status::ready) return "still waiting";
  try {
    waiting.get();
    return "readable";
  } catch (const Stopped&) {
    return "stopped";
  }
}

}  // namespace

TEST_CASE("a stop signal ends a wait for a pipe that stays silent, on any thread",
          "[stop_signals]") {
  // Repeated: the signal is delivered to whichever thread the kernel picks.
  for (int attempt = 0; attempt < 5; ++attempt) {
    Pipe silent;
    const StopSignals signals;
    CHECK_FALSE(stop_requested());  // each run starts afresh
    auto waiting = std::async(std::launch::async, [&] { wait_readable(silent.read); });
    CHECK(outcome(waiting, 100ms) == "still waiting");
    REQUIRE(::kill(::getpid(), SIGTERM) == 0);
    const std::string ended = outcome(waiting, 5000ms);
    if (ended == "still waiting") ::close(std::exchange(silent.write, -1));  // let it end
    CHECK(ended == "stopped");
    CHECK(stop_signal() == SIGTERM);
    CHECK(Stopped().exit_code() == 128 + SIGTERM);
  }
}

TEST_CASE("data and a pipe's end make it readable; a stop asked for without a signal ends it",
          "[stop_signals]") {
  const StopSignals signals;
  Pipe pipe;
  REQUIRE(::write(pipe.write, "x", 1) == 1);
  CHECK_NOTHROW(wait_readable(pipe.read));
  Pipe ended;
  ::close(std::exchange(ended.write, -1));
  CHECK_NOTHROW(wait_readable(ended.read));  // read() then sees its end
  Pipe silent;
  auto waiting = std::async(std::launch::async, [&] { wait_readable(silent.read); });
  CHECK(outcome(waiting, 100ms) == "still waiting");
  request_stop();  // standard output gone, say
  CHECK(outcome(waiting, 5000ms) == "stopped");
  CHECK(stop_signal() == 0);
  CHECK(Stopped().exit_code() == kExitFailure);
  CHECK_THROWS_AS(wait_readable(pipe.read), Stopped);  // nothing more is read once stopping
}

TEST_CASE("reading a FIFO no one opens for writing waits until a stop signal, then gives up",
          "[stop_signals]") {
  test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const StopSignals signals;
  auto reading = std::async(std::launch::async, [&] { read_file(fifo); });
  CHECK(outcome(reading, 200ms) == "still waiting");  // neither an empty file nor an error
  REQUIRE(::kill(::getpid(), SIGINT) == 0);
  const std::string ended = outcome(reading, 5000ms);
  if (ended == "still waiting") ::close(::open(fifo.c_str(), O_WRONLY));  // let it end
  CHECK(ended == "stopped");
  CHECK(stop_signal() == SIGINT);
}

TEST_CASE("stop handlers, and the stop they saw, are those of their lifetime only",
          "[stop_signals]") {
  struct sigaction before {};
  ::sigaction(SIGTERM, nullptr, &before);
  {
    const StopSignals signals;
    struct sigaction during {};
    ::sigaction(SIGTERM, nullptr, &during);
    CHECK(during.sa_handler != before.sa_handler);
    CHECK((during.sa_flags & SA_RESTART) == 0);  // a blocked call returns EINTR
    // On this thread: handled before raise returns.
    REQUIRE(::raise(SIGHUP) == 0);
    CHECK(stop_requested());
  }
  struct sigaction after {};
  ::sigaction(SIGTERM, nullptr, &after);
  CHECK(after.sa_handler == before.sa_handler);
  // A later run in the same process (tests, Python) reads again.
  CHECK_FALSE(stop_requested());
  CHECK(stop_signal() == 0);
  Pipe pipe;
  REQUIRE(::write(pipe.write, "x", 1) == 1);
  CHECK_NOTHROW(wait_readable(pipe.read));
}
