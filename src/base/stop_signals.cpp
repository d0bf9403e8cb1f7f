// stop_signals.cpp — sigaction handlers that only touch atomics, clock_gettime and unlink.
#include "base/stop_signals.hpp"

#include <signal.h>
#include <time.h>

#include <atomic>

#include "base/atomic_file.hpp"

namespace gpublur {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
std::atomic<int> first_signal{0};
std::atomic<long long> first_at_ns{0};
struct sigaction previous[3];

long long now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

void on_signal(int signal_number) {
  int none = 0;
  if (first_signal.compare_exchange_strong(none, signal_number)) {
    first_at_ns.store(now_ns());
    return;
  }
  if (now_ns() - first_at_ns.load() < 1000000000LL) return;  // the same signal, delivered twice
  remove_temporary_files();
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

StopSignals::StopSignals() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &action, &previous[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &previous[i], nullptr);
}

bool stop_requested() { return first_signal.load(std::memory_order_relaxed) != 0; }
int stop_signal() { return first_signal.load(); }

}  // namespace gpublur
