// detached_exit_test.cpp — the split into a waiting parent and a worker, with real processes.
// Each case forks a "program" that splits; this test process becomes the subreaper of the
// worker, so it can see how the worker ends after its parent has gone.
#include <catch2/catch.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "base/detached_exit.hpp"
#include "support/test_pipe.hpp"

namespace {

using gpublur::DetachedExit;

using gpublur::test::Pipe;

void send(int fd, const std::string& text) {
  static_cast<void>(!::write(fd, text.data(), text.size()));
}

// What one end of a pipe says within 20 s (empty: nothing).
std::string receive(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 20000) != 1) return {};
  char buffer[64] = {};
  const ssize_t got = ::read(fd, buffer, sizeof buffer);
  return got > 0 ? std::string(buffer, static_cast<std::size_t>(got)) : std::string();
}

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

// Forks a program that splits and runs `worker` (which must end the process) in the worker.
// Returns the program's pid. The worker dies of SIGALRM should a case hang.
template <typename Worker>
pid_t start_program(Worker worker) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    DetachedExit split = DetachedExit::split();  // in the program, only the worker returns
    ::alarm(30);
    worker(split);
    ::_exit(99);
  }
  return pid;
}

struct Subreaper {
  Subreaper() { REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0); }
  ~Subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
};

}  // namespace

TEST_CASE("a detached worker's parent exits with its code while the worker goes on",
          "[detached_exit]") {
  Subreaper subreaper;
  Pipe go, said;
  const pid_t program = start_program([&](DetachedExit& split) {
    send(said.write, std::to_string(split.worker()));
    split.finish(7, /*detach=*/true);
    // Goes on only once the test has seen the parent end: a parent that waited for the worker
    // would not end before this times out.
    send(said.write, receive(go.read) == "go" ? "went on" : "timed out");
    ::_exit(0);
  });
  const pid_t worker = std::stoi(receive(said.read));
  const int status = wait_status(program);
  send(go.write, "go");
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  CHECK(receive(said.read) == "went on");
  const int worker_status = wait_status(worker);  // reparented here, the subreaper
  CHECK(WIFEXITED(worker_status));
}

TEST_CASE("an undetached worker is waited for, and its exit status is the program's",
          "[detached_exit]") {
  Subreaper subreaper;
  Pipe said;
  const pid_t program = start_program([&](DetachedExit& split) {
    split.finish(7, /*detach=*/false);
    ::usleep(100 * 1000);
    send(said.write, "ended");
    ::_exit(5);  // say, a leak checker's code after finish: the real status wins
  });
  const int status = wait_status(program);
  CHECK(receive(said.read) == "ended");
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 5);
}

TEST_CASE("a worker that dies of a signal takes its parent with it, by the same signal",
          "[detached_exit]") {
  Subreaper subreaper;
  const pid_t program = start_program([](DetachedExit&) { ::raise(SIGUSR1); });
  const int status = wait_status(program);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGUSR1);
}

TEST_CASE("a worker whose parent is killed is sent SIGTERM", "[detached_exit]") {
  Subreaper subreaper;
  Pipe said;
  const pid_t program = start_program([&](DetachedExit& split) {
    send(said.write, std::to_string(split.worker()));
    ::pause();
  });
  const pid_t worker = std::stoi(receive(said.read));
  ::kill(program, SIGKILL);
  wait_status(program);
  const int worker_status = wait_status(worker);
  REQUIRE(WIFSIGNALED(worker_status));
  CHECK(WTERMSIG(worker_status) == SIGTERM);
}

TEST_CASE("a stop signal sent to the parent goes to the worker, and the parent ends as it does",
          "[detached_exit]") {
  Subreaper subreaper;
  // The signal is sent as soon as the worker exists, which may be before the parent has its
  // handlers: the split must hold it until then. A race shows only now and then, so the case
  // tries many times: a split that did not hold the signal failed 2 of 300 runs with one try,
  // and 10 of 100 runs with these 40.
  for (int attempt = 0; attempt < 40; ++attempt) {
    Pipe said;
    const pid_t program = start_program([&](DetachedExit& split) {
      static volatile sig_atomic_t got = 0;
      // Held until sigsuspend: a signal between the test of `got` and a pause() would be lost.
      sigset_t term;
      sigset_t waiting;
      sigemptyset(&term);
      sigaddset(&term, SIGTERM);
      ::sigprocmask(SIG_BLOCK, &term, &waiting);
      ::signal(SIGTERM, [](int s) { got = s; });
      send(said.write, std::to_string(split.worker()));
      while (!got) ::sigsuspend(&waiting);
      split.finish(128 + got, false);  // as the pipeline does after a clean stop
      ::_exit(128 + got);
    });
    const pid_t worker = std::stoi(receive(said.read));
    REQUIRE(worker > 0);
    ::kill(program, SIGTERM);
    const int status = wait_status(program);
    INFO("attempt " << attempt << ", status " << status);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
    wait_status(worker);  // reparented here, the subreaper
  }
}
