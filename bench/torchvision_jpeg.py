#!/usr/bin/env python3
"""The torchvision GPU pipeline gpublur's JPEG batch is measured against: files read on the host,
torchvision.io.decode_jpeg(..., device="cuda") in batches of 64 (nvJPEG's batched decoder),
gaussian_blur on the batch (7x7, sigma 1.5), encode_jpeg on the GPU (quality 95), files written.
Prints the images/s of each timed round after one warm-up round over the first batch.
--no-warmup --rounds 1: one pass and nothing else, for photo_batch.py, which times the whole
process (torch's import and CUDA's start-up included), as it times gpublur.

usage: torchvision_jpeg.py SRC OUT [--batch 64] [--rounds 2] [--no-warmup] [--device cuda:0]
"""
import argparse, os, sys, time

import torch
import torchvision
from torchvision.io import decode_jpeg, encode_jpeg
from torchvision.transforms.v2.functional import gaussian_blur


def run(files, out, batch, device):
    for start in range(0, len(files), batch):
        names = files[start:start + batch]
        data = [torchvision.io.read_file(f) for f in names]
        images = decode_jpeg(data, device=device)
        # Same-size images blur as one stack; others one at a time.
        if all(i.shape == images[0].shape for i in images):
            blurred = list(gaussian_blur(torch.stack(images), [7, 7], [1.5, 1.5]))
        else:
            blurred = [gaussian_blur(i, [7, 7], [1.5, 1.5]) for i in images]
        encoded = encode_jpeg(blurred, quality=95)
        for name, jpeg in zip(names, encoded):
            with open(os.path.join(out, os.path.basename(name)), "wb") as f:
                f.write(jpeg.cpu().numpy().tobytes())
    torch.cuda.synchronize(device)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("src")
    parser.add_argument("out")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-warmup", action="store_true")
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    files = sorted(os.path.join(args.src, f) for f in os.listdir(args.src))
    os.makedirs(args.out, exist_ok=True)
    if not args.no_warmup:  # CUDA context, nvJPEG, kernels
        run(files[: args.batch], args.out, args.batch, args.device)
    for _ in range(args.rounds):
        start = time.perf_counter()
        run(files, args.out, args.batch, args.device)
        print("%.2f" % (len(files) / (time.perf_counter() - start)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
