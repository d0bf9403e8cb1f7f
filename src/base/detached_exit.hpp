// detached_exit.hpp — ending before the GPU driver's teardown does.
//
// A process that used the GPU takes a while to end after its last line of work: the driver
// tears its context down in library destructors and in the kernel's closing of the device
// files, after every exit handler, and nothing the process does can overlap that
// with its own work. So gpublur runs as a worker in a child process: the parent only waits until
// the worker has written its output and flushed its streams, then exits with the worker's code,
// while the worker goes on to end (and the driver to tear down) without anyone waiting.
#pragma once

#include <sys/types.h>

namespace gpublur {

class DetachedExit {
 public:
  /// Forks, before any thread starts. Returns in the child, the worker. The parent never
  /// returns: it exits as the worker tells it (finish), or, when the worker ends without a
  /// word, as the worker ended (the same exit status, or the same signal raised again). Should
  /// the fork fail, returns in the one process there is, and finish() does nothing.
  /// SIGINT, SIGTERM and SIGHUP sent to the parent are passed on to the worker, which stops
  /// cleanly (stop_signals.hpp) and says how the parent ends. The worker is sent SIGTERM if the
  /// parent dies first (say, killed by SIGKILL).
  static DetachedExit split();

  /// In the worker, once its work is done and `code` is what the process should exit with.
  /// detach: the parent exits with `code` now; first the worker's streams are flushed and
  /// pointed at /dev/null, so that a caller reading them through pipes sees them end with the
  /// parent. Not detach: the parent waits for the worker to end, as if there were one process.
  void finish(int code, bool detach);

  /// The worker's process id, in the worker; 0 when the fork failed.
  pid_t worker() const { return worker_; }

 private:
  DetachedExit(int fd, pid_t worker) : fd_(fd), worker_(worker) {}
  int fd_ = -1;  // the write end of the pipe to the parent; -1 when there is no parent
  pid_t worker_ = 0;
};

}  // namespace gpublur
