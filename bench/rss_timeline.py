#!/usr/bin/env python3
"""Where a process's memory goes over its life: runs COMMAND, samples /proc/PID/status of it and
its descendants (gpublur's detached worker, its lanes) every --every ms, and prints the largest
process's peak resident set with its parts (anonymous, file-backed, shared, locked/pinned) and
thread count at that moment, the peak of all of them together (proportional set sizes, so that
pages the lanes share since their fork count once), and a coarse timeline. For the question
"what makes the peak" (issue 37, goal 5), where /usr/bin/time gives only its size.

usage: rss_timeline.py [--every 20] [--rows 12] -- COMMAND...

The command's own exit code is this script's.
"""
import argparse, os, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batch_processes import descendants, pss_bytes  # noqa: E402

FIELDS = ("VmRSS", "RssAnon", "RssFile", "RssShmem", "VmLck", "VmPin", "Threads")


def status(pid):
    """The FIELDS of one process (kB, Threads a count), or None once it is gone."""
    values = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in FIELDS:
                    values[key] = int(rest.split()[0])
    except OSError:
        return None
    return values


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--every", type=float, default=20, help="ms between samples")
    p.add_argument("--rows", type=int, default=12, help="timeline rows (0: the peak only)")
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    start = time.monotonic()
    child = subprocess.Popen(command)
    samples = []  # (seconds, the largest process's FIELDS, PSS summed over all, processes)
    while child.poll() is None:
        largest, together, count = dict.fromkeys(FIELDS, 0), 0, 0
        for pid in [child.pid] + descendants(child.pid, set()):
            s = status(pid)
            if not s:
                continue
            count += 1
            together += pss_bytes(pid) // 1024
            if s.get("VmRSS", 0) > largest["VmRSS"]:
                largest = dict(largest, **s)
        samples.append((time.monotonic() - start, largest, together, count))
        time.sleep(args.every / 1000)
    wall = time.monotonic() - start
    if not samples:
        print("no sample: the command ended at once (rc %d)" % child.returncode)
        return child.returncode
    at, peak, _, _ = max(samples, key=lambda s: s[1]["VmRSS"])
    together_at, _, together, _ = max(samples, key=lambda s: s[2])
    mb = lambda kb: "%.0f" % (kb / 1024)
    print("rc %d, %.2f s; largest process's peak RSS %s MB at %.2f s: anon %s, file %s, shmem %s, "
          "locked %s, pinned %s MB, %d threads; all processes' PSS at most %s MB (%.2f s)" % (
              child.returncode, wall, mb(peak["VmRSS"]), at, mb(peak["RssAnon"]),
              mb(peak["RssFile"]), mb(peak["RssShmem"]), mb(peak["VmLck"]), mb(peak["VmPin"]),
              peak["Threads"], mb(together), together_at))
    if args.rows <= 0:
        return child.returncode
    step = max(1, len(samples) // args.rows)
    print("      s  largest RSS  anon  file threads | PSS of all, processes (MB)")
    for t, s, all_pss, count in samples[::step]:
        print("  %5.2f  %11s %5s %5s %7d | %10s %2d" % (
            t, mb(s["VmRSS"]), mb(s["RssAnon"]), mb(s["RssFile"]), s["Threads"], mb(all_pss),
            count))
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
