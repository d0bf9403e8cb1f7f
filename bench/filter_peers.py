#!/usr/bin/env python3
"""filter_peers.py — what a Python programmer would use on the GPU instead of gpublur's --matrix
and --unsharp, timed as gpublur_filter_bench times gpublur (CUDA events, warm-up, median, inputs
rotating over more than 4x the L2), on the same shapes (8-bit interleaved RGB, clamp border):

  - CuPy's cupyx.scipy.ndimage.correlate on the uint8 image (SciPy's API; its output is uint8);
  - PyTorch's conv2d, depthwise, on float32 NCHW: the convolution alone, and the whole round trip
    a user writes (uint8 HWC -> float NCHW, replicate padding, conv2d, round, clamp, back);
  - the unsharp mask: CuPy's gaussian_filter and torchvision's gaussian_blur, each with the formula
    x + AMOUNT * (x - blur), in float32, rounded and clamped back to uint8.

    python3 bench/filter_peers.py [--sizes 4k,8k] [--iters 30]
"""
import argparse
import statistics

import numpy as np

SIZES = {"1080p": (1920, 1080), "4k": (3840, 2160), "8k": (7680, 4320)}


def random_matrix(side, seed):
    # The matrices of filter_bench.cpp's rows, by shape; the values differ (the time does not).
    rng = np.random.default_rng(seed)
    m = rng.integers(-5, 6, size=(side, side)).astype(np.float64)
    m[0, 0] += 50
    return m


MATRICES = {
    "edges 3x3": np.array([[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], np.float64),
    "Sobel 3x3 (rank one)": np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float64),
    "random 5x5": random_matrix(5, 4),
    "random 9x9": random_matrix(9, 1),
    "random 31x31": random_matrix(31, 3),
}


def median_ms(torch, iters, work):
    for i in range(3):
        work(i)
    marks = [torch.cuda.Event(enable_timing=True) for _ in range(iters + 1)]
    marks[0].record()
    for i in range(iters):
        work(i + 3)
        marks[i + 1].record()
    torch.cuda.synchronize()
    return statistics.median(marks[i].elapsed_time(marks[i + 1]) for i in range(iters))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="4k,8k")
    parser.add_argument("--iters", type=int, default=30)
    args = parser.parse_args()
    import cupy
    import cupyx.scipy.ndimage as ndimage
    import torch
    import torch.nn.functional as F
    import torchvision.transforms.functional as TF

    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    print("device: %s; CuPy %s, PyTorch %s" % (torch.cuda.get_device_name(0), cupy.__version__,
                                               torch.__version__))
    print("| filter | size | tool | ms | note |\n|---|---|---|---|---|")
    for name in args.sizes.split(","):
        width, height = SIZES[name]
        count = max(2, 4 * l2 // (width * height * 3) + 1)
        images = [torch.randint(0, 256, (height, width, 3), dtype=torch.uint8, device="cuda")
                  for _ in range(count)]
        cupy_images = [cupy.asarray(x) for x in images]
        floats = [x.permute(2, 0, 1)[None].float().contiguous() for x in images]
        copy = torch.empty_like(images[0])
        ms = median_ms(torch, args.iters, lambda i: copy.copy_(images[i % count]))
        print("| copy | %s | torch copy_ | %.3f | the floor |" % (name, ms))
        for label, m in MATRICES.items():
            r = m.shape[0] // 2
            divisor = m.sum() if m.sum() != 0 else 1.0
            w3 = cupy.asarray(m / divisor)[:, :, None]
            ms = median_ms(torch, args.iters, lambda i: ndimage.correlate(
                cupy_images[i % count], w3, mode="nearest"))
            print("| %s | %s | cupyx correlate | %.3f | uint8 in and out |" % (label, name, ms))
            weight = torch.tensor(m / divisor, dtype=torch.float32, device="cuda")
            weight = weight[None, None].repeat(3, 1, 1, 1)
            ms = median_ms(torch, args.iters, lambda i: F.conv2d(
                F.pad(floats[i % count], (r, r, r, r), mode="replicate"), weight, groups=3))
            print("| %s | %s | torch conv2d | %.3f | float32 NCHW, padding included |" %
                  (label, name, ms))

            def round_trip(i):
                x = images[i % count].permute(2, 0, 1)[None].float()
                y = F.conv2d(F.pad(x, (r, r, r, r), mode="replicate"), weight, groups=3)
                return y.round_().clamp_(0, 255).to(torch.uint8)[0].permute(1, 2, 0).contiguous()

            ms = median_ms(torch, args.iters, round_trip)
            print("| %s | %s | torch round trip | %.3f | uint8 HWC in and out |" % (label, name, ms))
        for size, sigma in ((7, 1.5), (31, 5.0)):
            truncate = (size // 2) / sigma

            def unsharp(i):
                x = cupy_images[i % count].astype(cupy.float32)
                blur = ndimage.gaussian_filter(x, (sigma, sigma, 0), mode="nearest",
                                               truncate=truncate)
                return cupy.clip(cupy.rint(x + (x - blur)), 0, 255).astype(cupy.uint8)

            ms = median_ms(torch, args.iters, unsharp)
            print("| unsharp %dx%d sigma %g | %s | cupyx gaussian_filter + formula | %.3f | "
                  "float32 |" % (size, size, sigma, name, ms))

            def unsharp_torch(i):
                x = floats[i % count]
                blur = TF.gaussian_blur(x, [size, size], [sigma, sigma])
                return (x + (x - blur)).round_().clamp_(0, 255).to(torch.uint8)

            ms = median_ms(torch, args.iters, unsharp_torch)
            print("| unsharp %dx%d sigma %g | %s | torchvision gaussian_blur + formula | %.3f | "
                  "float32 NCHW in, uint8 out |" % (size, size, sigma, name, ms))


if __name__ == "__main__":
    main()
