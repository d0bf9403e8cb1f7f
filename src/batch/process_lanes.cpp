// process_lanes.cpp — forking the lanes, the messages through their pipes, and the parent's loop.
#include "batch/process_lanes.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <set>

#include "base/little_endian.hpp"
#include "base/stop_signals.hpp"
#include "batch/result_wire.hpp"

namespace gpublur {
namespace {

// A message: one kind byte, the payload's length (8 bytes), the payload.
enum Kind : std::uint8_t { kResult = 'R', kStats = 'S', kLine = 'L', kEnd = 'E' };
constexpr std::size_t kHeader = 9;

// The child's end of its pipe: whole messages, from any of its threads.
class PipeWriter {
 public:
  explicit PipeWriter(int fd) : fd_(fd) {}
  void send(Kind kind, const std::vector<std::uint8_t>& payload) {
    std::vector<std::uint8_t> message{kind};
    put_le(message, payload.size(), 8);
    message.insert(message.end(), payload.begin(), payload.end());
    const std::lock_guard<std::mutex> lock(mutex_);
    std::size_t done = 0;
    while (done < message.size()) {
      const ssize_t n = ::write(fd_, message.data() + done, message.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) std::_Exit(kExitFailure);  // the parent is gone: nobody to report to
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  const int fd_;
  std::mutex mutex_;  // one message at a time
};

class PipeObserver final : public FileObserver {
 public:
  explicit PipeObserver(PipeWriter& pipe) : pipe_(pipe) {}
  void file_done(const FileResult& result) override { pipe_.send(kResult, result_bytes(result)); }

 private:
  PipeWriter& pipe_;
};

std::vector<std::uint8_t> text_bytes(const std::string& text) {
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

// In the child: the lane's work, its report, and the end of the process.
[[noreturn]] void run_child(const std::vector<Job>& jobs, std::size_t lane,
                            const LaneMain& lane_main, int fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the parent gone, nothing it runs is wanted
  // Everything for the user goes through the pipe; a caller reading the streams through pipes
  // sees them end with the parent, not with this process's GPU teardown.
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
  }
  PipeWriter pipe(fd);
  PipeObserver observer(pipe);
  const SayLine say = [&](const std::string& line, bool warning, bool verbose_only) {
    pipe.send(kLine, text_bytes(std::string(1, warning ? 'w' : '-') + (verbose_only ? 'v' : '-') +
                                line));
  };
  int code = kExitOk;
  try {
    const LaneReport report = lane_main(jobs, lane, observer, say);
    for (const GpuWorkerStats& s : report.stats) pipe.send(kStats, stats_bytes(s));
    pipe.send(kEnd, {static_cast<std::uint8_t>(report.used_cpu ? 1 : 0)});
  } catch (const std::exception& e) {
    say(std::string("a worker process failed: ") + e.what(), true, false);
    code = kExitFailure;
  }
  ::close(fd);
  std::exit(code);  // the GPUs' contexts are torn down by the driver's exit handler
}

struct Child {
  pid_t pid = 0;
  int fd = -1;
  std::vector<std::uint8_t> buffer;
  std::set<std::string> unreported;  // outputs of its jobs not yet reported
  bool ended = false;                // it sent its end message
};

// The lanes' jobs: job i to lane i % lanes.
std::vector<std::vector<Job>> deal(const std::vector<Job>& jobs, std::size_t lanes) {
  std::vector<std::vector<Job>> shares(lanes);
  for (std::size_t i = 0; i < jobs.size(); ++i) shares[i % lanes].push_back(jobs[i]);
  return shares;
}

// How a child that ended without its end message ended, for its files' errors.
std::string how_it_ended(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return "it ended";
  if (WIFSIGNALED(status)) return "it was killed by signal " + std::to_string(WTERMSIG(status));
  return "it exited with status " + std::to_string(WEXITSTATUS(status));
}

class LaneParent {
 public:
  LaneParent(FileObserver& observer, const SayLine& say) : observer_(observer), say_(say) {}

  // Reads what `child` sent; false at its pipe's end.
  bool read(Child& child) {
    std::uint8_t chunk[1 << 16];
    const ssize_t n = ::read(child.fd, chunk, sizeof chunk);
    if (n < 0) return errno == EINTR || errno == EAGAIN;
    if (n == 0) return false;
    child.buffer.insert(child.buffer.end(), chunk, chunk + n);
    std::size_t pos = 0;
    while (child.buffer.size() - pos >= kHeader) {
      const std::uint64_t length = get_le(child.buffer.data() + pos + 1, 8);
      if (child.buffer.size() - pos - kHeader < length) break;
      const auto start = child.buffer.begin() + static_cast<std::ptrdiff_t>(pos + kHeader);
      handle(child, static_cast<Kind>(child.buffer[pos]),
             std::vector<std::uint8_t>(start, start + static_cast<std::ptrdiff_t>(length)));
      pos += kHeader + static_cast<std::size_t>(length);
    }
    child.buffer.erase(child.buffer.begin(), child.buffer.begin() + static_cast<std::ptrdiff_t>(pos));
    return true;
  }

  LaneReport& report() { return report_; }

 private:
  void handle(Child& child, Kind kind, const std::vector<std::uint8_t>& payload) {
    switch (kind) {
      case kResult: {
        const FileResult result = result_from_bytes(payload);
        child.unreported.erase(result.job.output);
        observer_.file_done(result);
        break;
      }
      case kStats:
        report_.stats.push_back(stats_from_bytes(payload));
        break;
      case kLine: {
        const std::string text(payload.begin(), payload.end());
        if (text.size() >= 2 && said_.insert(text.substr(2)).second)
          say_(text.substr(2), text[0] == 'w', text[1] == 'v');
        break;
      }
      case kEnd:
        child.ended = true;
        report_.used_cpu = report_.used_cpu || (!payload.empty() && payload[0] != 0);
        break;
    }
  }

  FileObserver& observer_;
  const SayLine& say_;
  LaneReport report_;
  std::set<std::string> said_;  // each distinct line once, however many lanes say it
};

// Reports the files a child left unreported as failed, unless the run was asked to stop (then the
// pipeline leaves files undone in one process too).
void report_unreported(Child& child, const std::vector<Job>& share, FileObserver& observer) {
  if (child.unreported.empty() || stop_requested()) return;
  const std::string how = child.ended ? "it ended" : how_it_ended(child.pid);
  for (const Job& job : share) {
    if (!child.unreported.count(job.output)) continue;
    FileResult r;
    r.job = job;
    r.status = FileResult::Status::kFailed;
    r.exit_code = kExitFailure;
    r.error = "cannot blur '" + job.input + "': the worker process blurring it stopped (" + how + ")";
    observer.file_done(r);
  }
}

}  // namespace

std::optional<LaneReport> run_in_lanes(const std::vector<Job>& jobs, std::size_t lanes,
                                       const LaneMain& lane_main, FileObserver& observer,
                                       const SayLine& say, bool wait_for_exit) {
  const std::vector<std::vector<Job>> shares = deal(jobs, lanes);
  std::vector<Child> children(lanes);
  std::cout.flush();  // nothing buffered here may be written again by a child
  std::cerr.flush();
  for (std::size_t k = 0; k < lanes; ++k) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;  // before any child: run here
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]), ::close(fds[1]);
      if (k == 0) return std::nullopt;
      throw Error(std::string("cannot start a worker process: ") + std::strerror(errno));
    }
    if (pid == 0) {
      ::close(fds[0]);
      for (std::size_t j = 0; j < k; ++j) ::close(children[j].fd);
      run_child(shares[k], k, lane_main, fds[1]);
    }
    ::close(fds[1]);
    children[k].pid = pid;
    children[k].fd = fds[0];
    for (const Job& job : shares[k]) children[k].unreported.insert(job.output);
  }
  LaneParent parent(observer, say);
  std::size_t open = lanes;
  bool forwarded = false;
  while (open > 0) {
    if (stop_requested() && !forwarded) {  // each child stops as one process would
      for (const Child& c : children) ::kill(c.pid, stop_signal());
      forwarded = true;
    }
    std::vector<pollfd> polled;
    for (const Child& c : children)
      if (c.fd >= 0) polled.push_back({c.fd, POLLIN, 0});
    if (::poll(polled.data(), polled.size(), 100) < 0 && errno != EINTR) break;
    for (Child& c : children) {
      if (c.fd < 0) continue;
      const auto it = std::find_if(polled.begin(), polled.end(),
                                   [&](const pollfd& p) { return p.fd == c.fd; });
      if (it == polled.end() || it->revents == 0) continue;
      if (!parent.read(c)) {
        ::close(c.fd);
        c.fd = -1;
        --open;
      }
    }
  }
  for (std::size_t k = 0; k < lanes; ++k) report_unreported(children[k], shares[k], observer);
  // Each child ends after its last message, tearing its GPU down; reaped here where the caller
  // waits for that, else (the command line's detached exit) left to end on its own.
  for (const Child& c : children) ::waitpid(c.pid, nullptr, wait_for_exit ? 0 : WNOHANG);
  return parent.report();
}

}  // namespace gpublur
