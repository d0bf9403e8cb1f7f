#!/usr/bin/env python3
"""Where a short gpublur run's wall time goes, outside the blur: the process itself, the driver's
cuInit, the primary context, and the ways of ending (context released or kept; std::_Exit or a
return from main, which runs the driver's exit handler; detached, as gpublur ends by default). Each row is a whole process, timed
from outside, the rows run alternately; beside them gpublur on the same 1080p PNG, on the CPU and
on the GPU (warm cache). Then one run of each floor with --timeline (ms since the parent started
it) and one gpublur run with --timings.

usage: startup_probe.py GPUBLUR SCENE_PNG WORKDIR [--rounds N] [--other GPUBLUR2] [--pause S]
(gpublur_gpu_floor is looked for beside GPUBLUR; SCENE_PNG e.g. from e2e_bench.py; --other: a
second build, e.g. of an earlier commit, timed in the same rounds.)
"""
import argparse, os, statistics, subprocess, time

from e2e_bench import wall  # whole-process wall time of one command, in ms


def timeline(cmd):
    """Runs cmd with GPU_FLOOR_SPAWN_NS; returns its marks and the wall end, ms since spawn."""
    t0 = time.monotonic_ns()
    done = subprocess.run(cmd, capture_output=True, text=True,
                          env={**os.environ, "GPU_FLOOR_SPAWN_NS": str(t0)})
    end = (time.monotonic_ns() - t0) / 1e6
    return done.stderr.strip(), end


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpublur"); ap.add_argument("scene"); ap.add_argument("work")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--other")
    ap.add_argument("--pause", type=float, default=1.0)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    floor = os.path.join(os.path.dirname(os.path.abspath(a.gpublur)), "gpublur_gpu_floor")
    cache = os.path.join(a.work, "warm-cache")
    out = os.path.join(a.work, "probe-out.png")
    args = [a.scene, out, "--size", "7", "--sigma", "1.5", "--cache-dir", cache]
    blur = [a.gpublur] + args
    wall(blur)  # fill the cache
    rows = {
        "/bin/true": ["true"],
        "floor: nothing (process + gpublur's libraries)": [floor, "--upto", "none"],
        "floor: driver + cuInit, return from main": [floor, "--upto", "init"],
        "floor: context released, _Exit (gpublur before)": [floor, "--release", "--quick-exit"],
        "floor: context kept, _Exit": [floor, "--quick-exit"],
        "floor: context released, return from main": [floor, "--release"],
        "floor: context kept, return from main (as gpublur --no-detach)": [floor],
        "floor: context kept, detached (as gpublur)": [floor, "--detach"],
        "floor: context released, _Exit, NVRTC loaded": [floor, "--release", "--quick-exit", "--nvrtc"],
        "floor: context kept, return from main, NVRTC loaded": [floor, "--nvrtc"],
        "gpublur --device cpu": blur + ["--device", "cpu"],
        "gpublur (GPU, warm cache)": blur,
        "gpublur --no-detach (GPU, warm cache)": blur + ["--no-detach"],
    }
    if a.other:
        wall([a.other] + args)
        rows["other gpublur (GPU, warm cache)"] = [a.other] + args
    runs = {k: [] for k in rows}
    for _ in range(a.rounds):
        for k, cmd in rows.items():
            runs[k].append(wall(cmd))
    print(f"whole processes, median of {a.rounds} alternating rounds (scene {a.scene})\n")
    print("| process | median ms | min ms | max ms |\n|---|---|---|---|")
    for k, v in runs.items():
        print(f"| {k} | {statistics.median(v):.1f} | {min(v):.1f} | {max(v):.1f} |")
    # The driver may finish a process's teardown after the process has gone, at the expense of
    # the next one: so also time each command run back to back with itself, and run after a
    # pause in which the GPU settles.
    seq = {"gpublur (GPU, warm cache)": blur,
           "gpublur --no-detach (GPU, warm cache)": blur + ["--no-detach"],
           "floor: context kept, detached (as gpublur)": [floor, "--detach"],
           "floor: context kept, return from main (as gpublur --no-detach)": [floor]}
    if a.other:
        seq["other gpublur (GPU, warm cache)"] = [a.other] + args
    print(f"\n| process | back to back: median ms | after a {a.pause} s pause: median ms |\n|---|---|---|")
    for k, cmd in seq.items():
        b2b = [wall(cmd) for _ in range(a.rounds)]
        paused = []
        for _ in range(a.rounds):
            time.sleep(a.pause)
            paused.append(wall(cmd))
        print(f"| {k} | {statistics.median(b2b):.1f} | {statistics.median(paused):.1f} |")
    for extra in ([], ["--release"], ["--quick-exit"], ["--release", "--quick-exit"], ["--detach"]):
        marks, end = timeline([floor, "--timeline"] + extra)
        print(f"\ngpublur_gpu_floor --timeline {' '.join(extra)}\n{marks}\nprocess ended  {end:8.2f} ms since spawn")
    for name, cmd in (("gpublur", blur), ("other gpublur", [a.other] + args if a.other else None)):
        if not cmd:
            continue
        for _ in range(3):
            start = time.perf_counter()
            t = subprocess.run(cmd + ["--timings"], capture_output=True, text=True)
            ms = (time.perf_counter() - start) * 1e3
            total = float(t.stderr.split("total")[1].split()[0])
            print(f"\n{name} --timings (GPU, warm): wall {ms:.1f} ms, outside its total {ms - total:.1f} ms\n{t.stderr}")


if __name__ == "__main__":
    main()
