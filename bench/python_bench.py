#!/usr/bin/env python3
"""gpublur.blur from Python against the GPU blurs Python programmers use, in one run on one GPU:
cupyx.scipy.ndimage.gaussian_filter, torchvision's gaussian_blur and kornia's gaussian_blur2d
(each skipped, and said so, where not installed). uint8 RGB at 1080p, 4K and 8K, 7x7 and 31x31,
and a batch of 64 1080p frames. Each is timed from Python with CUDA events around `--calls`
calls after warm-up (so the call's own overhead counts), median of `--rounds`, each peer in the
layout it wants (HxWxC for CuPy, NxCxHxW for torch) made before timing. Also the host time of
one cached call (what Python spends before the work is enqueued). Prints Markdown.

usage: python_bench.py [--calls N] [--rounds R]
"""
import argparse
import statistics
import time

import numpy as np

import gpublur

SIZES = [("1920x1080", 1920, 1080, 1), ("3840x2160", 3840, 2160, 1), ("7680x4320", 7680, 4320, 1),
         ("64 x 1920x1080", 1920, 1080, 64)]
KERNELS = [(7, 1.5), (31, 5.0)]


def frames(n, h, w):
    rng = np.random.default_rng(5)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    base = 128 + 90 * np.sin(x / 97.0) * np.cos(y / 53.0)
    out = np.empty((n, h, w, 3), np.uint8)
    for i in range(n):
        out[i] = np.clip(base[..., None] + rng.normal(0, 12, (h, w, 3)) + 3 * i, 0, 255)
    return out


def timed(call, start_event, stop_event, sync, calls, rounds):
    """Median milliseconds per call, CUDA events on the current stream around `calls` calls."""
    for _ in range(3):
        call()
    sync()
    results = []
    for _ in range(rounds):
        start_event.record()
        for _ in range(calls):
            call()
        stop_event.record()
        stop_event.synchronize()
        results.append(stop_event_elapsed(start_event, stop_event) / calls)
    return statistics.median(results)


def stop_event_elapsed(start, stop):
    try:
        return start.elapsed_time(stop)  # torch
    except AttributeError:
        import cupy
        return cupy.cuda.get_elapsed_time(start, stop)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import cupy as cp
    import torch
    gpu = gpublur.gpus()[0]
    print("GPU: %s (%s); gpublur %s, CuPy %s, torch %s" % (gpu[1], gpu[2], gpublur.__version__, cp.__version__,
                                                       torch.__version__))
    try:
        from cupyx.scipy.ndimage import gaussian_filter
    except ImportError:
        gaussian_filter = None
    try:
        from torchvision.transforms.v2.functional import gaussian_blur as tv_blur
    except ImportError:
        tv_blur = None
    try:
        from kornia.filters import gaussian_blur2d
    except ImportError as e:
        gaussian_blur2d = None
        print("kornia: not installed (%s)" % e)
    print()
    print("| image | kernel | gpublur on CuPy ms | gpublur on torch ms | cupyx gaussian_filter ms | "
          "torchvision gaussian_blur ms | kornia gaussian_blur2d ms | fastest peer / gpublur |")
    print("|---|---|---|---|---|---|---|---|")
    for name, w, h, n in SIZES:
        host = frames(n, h, w)
        x_cp = cp.asarray(host if n > 1 else host[0])
        out_cp = cp.empty_like(x_cp)
        x_t = torch.from_numpy(host if n > 1 else host[0]).cuda()
        out_t = torch.empty_like(x_t)
        nchw = x_t.permute(*( (0, 3, 1, 2) if n > 1 else (2, 0, 1))).contiguous()
        nchw_float = nchw.float()
        for size, sigma in KERNELS:
            cp_events = (cp.cuda.Event(), cp.cuda.Event())
            t_events = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
            row = {}
            row["gpublur CuPy"] = timed(lambda: gpublur.blur(x_cp, size, sigma, out=out_cp), *cp_events,
                                        cp.cuda.Device().synchronize, args.calls, args.rounds)
            row["gpublur torch"] = timed(lambda: gpublur.blur(x_t, size, sigma, out=out_t), *t_events,
                                         torch.cuda.synchronize, args.calls, args.rounds)
            # The same result on both, and on the CPU for one frame.
            assert bool((cp.asarray(out_t) == out_cp).all())
            if gaussian_filter is not None:
                axes = (sigma, sigma, 0) if n == 1 else (0, sigma, sigma, 0)
                truncate = (size // 2) / sigma
                row["cupyx"] = timed(lambda: gaussian_filter(x_cp, axes, truncate=truncate, mode="nearest"),
                                     *cp_events, cp.cuda.Device().synchronize, args.calls, args.rounds)
            if tv_blur is not None:
                row["torchvision"] = timed(lambda: tv_blur(nchw, [size, size], [sigma, sigma]), *t_events,
                                           torch.cuda.synchronize, args.calls, args.rounds)
            if gaussian_blur2d is not None:
                batch = nchw_float if n > 1 else nchw_float[None]
                row["kornia"] = timed(lambda: gaussian_blur2d(batch, (size, size), (sigma, sigma),
                                                              border_type="replicate"),
                                      *t_events, torch.cuda.synchronize, args.calls, args.rounds)
            peers = [row[k] for k in ("cupyx", "torchvision", "kornia") if k in row]
            ours = min(row["gpublur CuPy"], row["gpublur torch"])
            print("| %s | %dx%d | %.4f | %.4f | %s | %s | %s | %s |" % (
                name, size, size, row["gpublur CuPy"], row["gpublur torch"],
                *["%.4f" % row[k] if k in row else "-" for k in ("cupyx", "torchvision", "kornia")],
                "%.1fx" % (min(peers) / ours) if peers else "-"))
    # The host time of a cached call: Python's dispatch, the cached kernel, the launch.
    small = cp.asarray(frames(1, 64, 64)[0])
    small_out = cp.empty_like(small)
    small_t = torch.from_numpy(frames(1, 64, 64)[0]).cuda()
    small_t_out = torch.empty_like(small_t)
    print()
    for label, call, sync in (("CuPy", lambda: gpublur.blur(small, 7, 1.5, out=small_out), cp.cuda.Device().synchronize),
                              ("torch", lambda: gpublur.blur(small_t, 7, 1.5, out=small_t_out), torch.cuda.synchronize)):
        for _ in range(100):
            call()
        sync()
        samples = []
        for _ in range(2000):
            start = time.perf_counter()
            call()
            samples.append((time.perf_counter() - start) * 1e6)
        sync()
        print("host time of a cached gpublur.blur call on a 64x64 %s array: median %.1f us, 90th percentile %.1f us" % (
            label, statistics.median(samples), sorted(samples)[int(0.9 * len(samples))]))


if __name__ == "__main__":
    main()
