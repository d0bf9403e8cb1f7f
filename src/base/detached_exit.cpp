// detached_exit.cpp — a parent that waits for one byte, and the worker that sends it.
#include "base/detached_exit.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>

#include "base/errors.hpp"

namespace gpublur {
namespace {

void flush_streams() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
}

// Ends the parent as the worker ended: its exit status, or its signal raised here again (so a
// shell reports a crash as a crash).
[[noreturn]] void end_as(pid_t worker) {
  int status = 0;
  while (::waitpid(worker, &status, 0) < 0) {
    if (errno != EINTR) ::_exit(kExitFailure);
  }
  if (WIFSIGNALED(status)) {
    const int signal_number = WTERMSIG(status);
    ::signal(signal_number, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal_number);
    ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::raise(signal_number);
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure);
}

// The worker a signal to the parent is passed on to: a stop signal (`timeout`, `kill`, a
// scheduler) asks the work to stop, and the worker, not the parent, can stop it cleanly; the
// parent then ends as the worker does. (A terminal's Ctrl-C reaches both; the worker counts the
// two deliveries as one, stop_signals.hpp.)
volatile sig_atomic_t forward_to = 0;
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

void forward(int signal_number) {
  if (forward_to > 0) ::kill(static_cast<pid_t>(forward_to), signal_number);
}

void forward_stop_signals(pid_t worker) {
  forward_to = worker;
  struct sigaction action {};
  action.sa_handler = forward;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int signal_number : kStopSignals) ::sigaction(signal_number, &action, nullptr);
}

// The parent's life once it forwards stop signals. _exit: the parent has nothing of its own to
// flush, and the exit handlers and destructors it shares with the worker are the worker's to run.
[[noreturn]] void wait_for_worker(int fd, pid_t worker) {
  unsigned char code = 0;
  ssize_t got = 0;
  do {
    got = ::read(fd, &code, 1);
  } while (got < 0 && errno == EINTR);
  if (got == 1) ::_exit(code);
  end_as(worker);  // the worker ended without a word, or chose to be waited for
}

}  // namespace

DetachedExit DetachedExit::split() {
  flush_streams();  // nothing buffered now may be written by both processes
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return DetachedExit(-1, 0);
  // A caller that ignores SIGCHLD would have the worker reaped unseen, and waitpid fail.
  ::signal(SIGCHLD, SIG_DFL);
  // Stop signals wait, blocked, until the parent forwards them: one that came between the fork
  // and the parent's handlers (a caller may send one as soon as the worker exists) would kill
  // the parent outright instead of stopping the worker cleanly.
  sigset_t stop_signals;
  sigset_t caller_mask;
  sigemptyset(&stop_signals);
  for (int signal_number : kStopSignals) sigaddset(&stop_signals, signal_number);
  ::sigprocmask(SIG_BLOCK, &stop_signals, &caller_mask);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::sigprocmask(SIG_SETMASK, &caller_mask, nullptr);
    ::close(fds[0]);
    ::close(fds[1]);
    return DetachedExit(-1, 0);
  }
  if (pid > 0) {
    ::close(fds[1]);
    forward_stop_signals(pid);
    ::sigprocmask(SIG_SETMASK, &caller_mask, nullptr);  // a signal that waited is forwarded now
    wait_for_worker(fds[0], pid);
  }
  ::sigprocmask(SIG_SETMASK, &caller_mask, nullptr);  // a fork's child starts with none pending
  ::close(fds[0]);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::raise(SIGTERM);  // the parent died before prctl took effect
  return DetachedExit(fds[1], ::getpid());
}

void DetachedExit::finish(int code, bool detach) {
  if (fd_ < 0) return;
  if (detach) {
    flush_streams();
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
      for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
      if (null > 2) ::close(null);
    }
    ::prctl(PR_SET_PDEATHSIG, 0);  // the parent's exit now is the plan, not a reason to stop
    const unsigned char byte = static_cast<unsigned char>(code);
    while (::write(fd_, &byte, 1) < 0 && errno == EINTR) {
    }
  }
  ::close(fd_);  // without a byte: the parent waits for this process to end
  fd_ = -1;
}

}  // namespace gpublur
