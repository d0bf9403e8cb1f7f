#!/usr/bin/env python3
"""Whole-process wall time of one blur, PNG to PNG: gpublur (warm and cold kernel cache) against
an OpenCV-Python one-liner and the seed pipeline (../shared/peers/coldstart.py), run alternately
in the same session on the same files, beside gpublur_gpu_floor (a process that only opens and
closes a CUDA context: the driver's own floor), ended as gpublur ends (detached) and waited for
to the end. Prints medians and ratios as a Markdown table.

usage: e2e_bench.py GPUBLUR PEERS_DIR WORKDIR [--rounds N] [--settle S]
(gpublur_gpu_floor is looked for beside GPUBLUR.)
Each command starts S seconds (default 0.5) after the one before: a GPU process's teardown can
outlast it, and a process that starts while another still holds the GPU finds the driver's
start-up far shorter (H100 host: 15-35 ms instead of 100-200), so back to back the order of the
rows, not the commands, would set the times. startup_probe.py times back-to-back runs apart.
PEERS_DIR holds coldstart.py and anchors.py; needs numpy and cv2 (the device machine has both).
"""
import argparse, os, shutil, statistics, subprocess, sys, time

ONE_LINER = ("import cv2,sys; cv2.imwrite(sys.argv[2], "
             "cv2.GaussianBlur(cv2.imread(sys.argv[1]), (7, 7), 1.5, borderType=cv2.BORDER_REPLICATE))")


def make_scene(path, width, height):
    """A photo-like RGB scene: smooth shading, hard-edged blocks, sensor-like noise."""
    import numpy as np, cv2
    rng = np.random.default_rng(1)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    r = 128 + 100 * np.sin(x / 97) * np.cos(y / 53)
    g = 90 + 80 * np.sin((x + y) / 141) + 60 * (((x // 160) + (y // 120)) % 2)
    b = 60 + 150 * y / height
    img = np.stack([b, g, r], axis=-1) + rng.normal(0, 12, (height, width, 3))
    cv2.imwrite(path, np.clip(img, 0, 255).astype(np.uint8))


FLOOR_1 = "CUDA context only, 1 work queue and ended as gpublur: detached (gpublur_gpu_floor --detach)"
FLOOR_W = "CUDA context only, 1 work queue, its teardown waited for (gpublur_gpu_floor)"


def wall(cmd, env=None):
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env={**os.environ, **(env or {})})
    ms = (time.perf_counter() - start) * 1e3
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {done.stderr.decode()[-400:]}")
    return ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpublur"); ap.add_argument("peers"); ap.add_argument("work")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--settle", type=float, default=0.5)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    sizes = {"1920x1080": (1920, 1080), "3840x2160": (3840, 2160)}
    warm_cache = os.path.join(a.work, "warm-cache")
    rows = []
    for name, (w, h) in sizes.items():
        src = os.path.join(a.work, f"scene-{name}.png")
        make_scene(src, w, h)
        out = os.path.join(a.work, "out.png")
        blur = [a.gpublur, src, out, "--size", "7", "--sigma", "1.5"]
        wall(blur + ["--cache-dir", warm_cache])  # fill the warm cache
        floor = os.path.join(os.path.dirname(os.path.abspath(a.gpublur)), "gpublur_gpu_floor")
        runs = {"gpublur, warm cache": [], "gpublur, warm cache, --no-detach": [],
                "gpublur, cold cache": [], "OpenCV-Python one-liner": [],
                "seed pipeline (coldstart.py cubin)": [], FLOOR_1: [], FLOOR_W: []}
        def timed(name, cmd, env=None):
            time.sleep(a.settle)
            runs[name].append(wall(cmd, env))

        for i in range(a.rounds):  # alternate, so drift in the machine's state hits all alike
            timed("gpublur, warm cache", blur + ["--cache-dir", warm_cache])
            timed("gpublur, warm cache, --no-detach", blur + ["--cache-dir", warm_cache, "--no-detach"])
            cold = os.path.join(a.work, f"cold-{name}-{i}")
            timed("gpublur, cold cache", blur + ["--cache-dir", cold])
            shutil.rmtree(cold, ignore_errors=True)
            timed("OpenCV-Python one-liner", [sys.executable, "-c", ONE_LINER, src, out])
            timed("seed pipeline (coldstart.py cubin)",
                  [sys.executable, os.path.join(a.peers, "coldstart.py"), "cubin", src, out, "7", "1.5"])
            timed(FLOOR_1, [floor, "--detach"])
            timed(FLOOR_W, [floor])
        med = {k: statistics.median(v) for k, v in runs.items()}
        for k, v in med.items():
            rows.append((name, k, v, med["gpublur, warm cache"] / v, min(runs[k]), max(runs[k])))
        time.sleep(a.settle)
        timings = subprocess.run(blur + ["--cache-dir", warm_cache, "--timings"], capture_output=True, text=True)
        print(f"\n{name}, one warm gpublur run with --timings:\n{timings.stderr}")
    print(f"\nwhole process, PNG to PNG, 7x7 sigma 1.5, median of {a.rounds} alternating rounds, "
          f"each command {a.settle} s after the one before\n")
    print("| image | command | median ms | gpublur warm / this | min ms | max ms |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.0f} | {r[3]:.2f} | {r[4]:.0f} | {r[5]:.0f} |")


if __name__ == "__main__":
    main()
