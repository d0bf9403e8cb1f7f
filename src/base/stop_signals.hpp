// stop_signals.hpp — Ctrl-C, SIGTERM and SIGHUP during a run. The first asks the run to stop:
// nothing new starts, a file being written is finished whole, and the run ends with the signal's
// exit code (128 + its number: 130 for SIGINT, 143 for SIGTERM). Another, a second or more later
// (an impatient user), removes the temporary files being written (atomic_file.hpp) and ends the
// process at once, as the signal would have. (One signal delivered twice, as a shell and a parent
// process may both forward it, counts once.)
#pragma once

namespace gpublur {

/// Installs the handlers for its lifetime (restoring the previous ones after).
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

/// Whether a stop was asked for (any thread; async-signal-safe to read).
bool stop_requested();
/// The signal that asked for it, or 0.
int stop_signal();

}  // namespace gpublur
