// stop_signals.hpp — Ctrl-C, SIGTERM and SIGHUP during a run. The first asks the run to stop:
// nothing new starts, a read that waits (a pipe, a FIFO no one writes to) gives up at once, a
// file being written is finished whole, and the run ends with the signal's exit code (128 + its
// number: 130 for SIGINT, 143 for SIGTERM). Another, a second or more later (an impatient user),
// removes the temporary files being written (atomic_file.hpp) and ends the process at once, as
// the signal would have. (One signal delivered twice, as a shell and a parent process may both
// forward it, counts once.)
#pragma once

#include "base/errors.hpp"

namespace gpublur {

/// Installs the handlers for its lifetime (restoring the previous ones after); a stop asked for
/// lasts as long as it does, so a later run in the same process starts afresh. One at a time.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

/// Thrown by a wait or read that gave up because a stop was asked for: the file it was for is
/// left undone (interrupted), not failed.
class Stopped : public Error {
 public:
  Stopped() : Error("stopped before it was done") {}
  int exit_code() const noexcept override;
};

/// Whether a stop was asked for (any thread; async-signal-safe to read).
bool stop_requested();
/// The signal that asked for it, or 0.
int stop_signal();

/// Asks the run to stop as a stop signal does, without one (standard output has gone: nothing
/// more can be reported). stop_signal() stays 0. Thread-safe.
void request_stop();

/// Throws Stopped if a stop was asked for: for long loops, and for a read that a signal
/// interrupted (EINTR) before anything arrived.
void throw_if_stopped();

/// Waits until `fd` can be read without blocking (data, its end, or an error for read() to
/// report), and throws Stopped as soon as a stop is asked for, however long nothing arrives
/// (a pipe whose writer is silent; a FIFO opened with O_NONBLOCK that no one has opened for
/// writing yet, which Linux's poll() shows as not readable). Call it before each read() of
/// anything that may be a pipe, FIFO, terminal or socket; a regular file is readable at once.
/// A signal handler need not run on the waiting thread: the handlers wake every waiter.
void wait_readable(int fd);

}  // namespace gpublur
