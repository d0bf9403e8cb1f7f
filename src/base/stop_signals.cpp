// stop_signals.cpp — sigaction handlers that only touch atomics, clock_gettime, write and unlink;
// a pipe that becomes readable on a stop, so that threads waiting in poll() wake whichever thread
// the signal was delivered to.
#include "base/stop_signals.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "base/atomic_file.hpp"

namespace gpublur {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
std::atomic<bool> stopping{false};
std::atomic<int> first_signal{0};
std::atomic<long long> first_at_ns{0};
// The stop pipe, while a StopSignals lives: a byte is written on the first stop, never read,
// so the read end stays readable for every poll() after it.
std::atomic<int> wake_read{-1};
std::atomic<int> wake_write{-1};
struct sigaction previous[3];

long long now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

// Async-signal-safe: an atomic exchange and write().
void stop() {
  if (stopping.exchange(true)) return;
  const int fd = wake_write.load();
  const char byte = 1;
  if (fd >= 0) static_cast<void>(!::write(fd, &byte, 1));
}

void on_signal(int signal_number) {
  const int saved_errno = errno;  // the interrupted code may be about to read errno
  int none = 0;
  if (first_signal.compare_exchange_strong(none, signal_number)) {
    first_at_ns.store(now_ns());
    stop();
    errno = saved_errno;
    return;
  }
  if (now_ns() - first_at_ns.load() < 1000000000LL) {  // the same signal, delivered twice
    errno = saved_errno;
    return;
  }
  remove_temporary_files();
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

StopSignals::StopSignals() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
    wake_read.store(fds[0]);
    wake_write.store(fds[1]);
  }
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  // Without SA_RESTART: a system call the signal interrupts on the thread it is delivered to
  // fails with EINTR instead of waiting on (read loops then call throw_if_stopped).
  action.sa_flags = 0;
  for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &action, &previous[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &previous[i], nullptr);
  const int read_end = wake_read.exchange(-1), write_end = wake_write.exchange(-1);
  if (read_end >= 0) ::close(read_end);
  if (write_end >= 0) ::close(write_end);
  stopping.store(false);  // a later run in this process (tests, Python) starts afresh
  first_signal.store(0);
}

int Stopped::exit_code() const noexcept {
  const int signal_number = stop_signal();
  return signal_number ? 128 + signal_number : kExitFailure;
}

bool stop_requested() { return stopping.load(std::memory_order_relaxed); }
int stop_signal() { return first_signal.load(); }

void request_stop() { stop(); }

void throw_if_stopped() {
  if (stop_requested()) throw Stopped();
}

void wait_readable(int fd) {
  for (;;) {
    throw_if_stopped();
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_read.load(), POLLIN, 0}};
    const nfds_t count = fds[1].fd >= 0 ? 2 : 1;
    const int ready = ::poll(fds, count, -1);
    if (ready < 0 && errno != EINTR && errno != EAGAIN) return;  // read() says what is wrong
    if (ready > 0 && fds[0].revents != 0 && !stop_requested()) return;
  }
}

}  // namespace gpublur
