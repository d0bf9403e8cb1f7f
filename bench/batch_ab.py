#!/usr/bin/env python3
"""A/B of gpublur builds or settings on one batch folder: whole processes, rounds alternating so
that a machine's drift falls on every variant alike, and what each run's --json summary says of
its GPU workers (stack fill, host time in nvJPEG's calls, nvJPEG's start-up, when its context,
nvJPEG and first stack were ready: context/jpeg/first stack) and where its files
went when (the CPU's codecs or the GPUs, from each file's done_s) beside its wall time and peak
memory. For the question "did this change help, and why", where photo_batch.py answers
"how does gpublur compare with what users would run instead".

usage: batch_ab.py DIR NAME=COMMAND... [--rounds 3] [--work /tmp/ab]

Each NAME=COMMAND is a shell-free command line whose input folder is DIR and output folder is
--work/NAME, e.g. 'new=build/dev/gpublur --devices 0,1' or, with a setting in the environment,
'blocking=env GPUBLUR_CUDA_SCHED=blocking build/dev/gpublur'. gpublur's own arguments are
appended: DIR -o OUT --size 7 --sigma 1.5 -q --json. Markdown on stdout: the median wall of the
rounds after the first, and the last round's clocks.
"""
import argparse, json, os, shlex, shutil, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batch_processes import Run, become_subreaper  # noqa: E402


def summary_of(path):
    """The --json summary record of a run's stdout, or {}."""
    found = {}
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("{") and '"summary"' in line:
                try:
                    found = json.loads(line).get("summary", {})
                except ValueError:
                    pass
    return found


def clocks(summary):
    """Per JPEG worker: images, mean stack, decode-call ms per stack, nvJPEG start ms, and when
    (seconds since the command started) its context, nvJPEG and first stack were ready."""
    out = []
    for g in summary.get("gpus", []):
        if not g.get("jpeg") or not g.get("launches"):
            continue
        ms = g.get("worker_ms", {})
        ready = g.get("ready_s", {})
        at = "/".join("-" if ready.get(k) is None else "%.2f" % ready[k]
                      for k in ("context", "jpeg", "first_stack"))
        out.append("GPU %s: %d images, %.1f a stack, decode calls %.1f ms a stack, "
                   "start %.0f ms, ready at %s s" % (
                       g.get("ordinal"), g["images"], g["images"] / g["launches"],
                       ms.get("decode_calls", 0) / g["launches"], ms.get("jpeg_start", 0), at))
    return "; ".join(out) or "no JPEG worker"


def timeline(path):
    """Which decoder took the last round's files, and when: '1073 libjpeg-turbo + 927 nvJPEG;
    first nvJPEG file 1.84 s, half by 2.30 s', from the per-file records' decoder (else device)
    and done_s."""
    done = {}
    on_cpu = []  # done_s of the files blurred on the CPU (--device auto while the GPUs start)
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("{") and '"done_s"' in line:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                by = record.get("decoder") or record.get("device", "-")
                done.setdefault(by.split(" ")[0], []).append(record["done_s"])
                if record.get("device") == "cpu":
                    on_cpu.append(record["done_s"])
    if not done:
        return "-"
    text = " + ".join("%d %s" % (len(t), d) for d, t in sorted(done.items()))
    if on_cpu:
        text += "; %d blurred on the CPU, the last at %.2f s" % (len(on_cpu), max(on_cpu))
    gpu = sorted(t for by, times in done.items() if by.lower().startswith("nvjpeg")
                 for t in times)
    if gpu:
        text += "; first nvJPEG file %.2f s, half by %.2f s" % (gpu[0], gpu[len(gpu) // 2])
    return text


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("variants", nargs="+", help="NAME=COMMAND")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--work", default="/tmp/ab")
    args = p.parse_args()
    variants = [v.split("=", 1) for v in args.variants]
    reaper = become_subreaper()
    os.makedirs(args.work, exist_ok=True)
    walls = {name: [] for name, _ in variants}
    last = {}
    files = len(os.listdir(args.dir))
    for r in range(args.rounds):
        for name, command in variants:
            out = os.path.join(args.work, name)
            shutil.rmtree(out, ignore_errors=True)
            argv = shlex.split(command) + [args.dir, "-o", out, "--size", "7", "--sigma", "1.5",
                                           "-q", "--json"]
            run = Run(argv, os.path.join(args.work, name + ".json"), {os.getpid()})
            walls[name].append(run.wall)
            last[name] = (run, summary_of(run.stdout_path))
            print("round %d %s: %.2f s, rc %d, rss %.0f MB" % (r + 1, name, run.wall, run.code,
                                                            run.rss / 1e6), file=sys.stderr)
    print("%d files in %s; %d rounds, median of the rounds after the first (all rounds in "
          "brackets); detached workers reaped: %s\n" % (files, args.dir, args.rounds,
                                                        "yes" if reaper else "no"))
    print("| variant | seconds | images/s | peak RSS MB | gpublur's own s "
          "| JPEG workers (last round) | files (last round) |")
    print("|---|---|---|---|---|---|---|")
    for name, command in variants:
        kept = walls[name][1:] or walls[name]
        wall = statistics.median(kept)
        run, summary = last[name]
        print("| %s (`%s`) | %.2f [%s] | %.0f | %.0f | %s | %s | %s |" % (
            name, command, wall, ", ".join("%.2f" % w for w in walls[name]), files / wall,
            run.rss / 1e6, "%.2f" % summary["seconds"] if "seconds" in summary else "-",
            clocks(summary), timeline(run.stdout_path)))


if __name__ == "__main__":
    main()
