#!/usr/bin/env python3
"""nvJPEG's ceiling on one GPU, no files and no blur: torchvision.io.decode_jpeg(list,
device=...) in batches of 64 over JPEGs held in memory (nvJPEG's batched decoder, the hardware
engine where there is one), and encode_jpeg on the decoded GPU tensors in batches of 64. What
gpublur's JPEG batch could reach were the GPU's codec its only cost (photo_batch.py's ceiling).

usage: nvjpeg_ceiling.py DIR... [--device cuda:0] [--batch 64] [--rounds 3] [--no-encode]
                         [--quality 95] [--ready READY --go GO]

Prints one JSON line per DIR: files, decode and encode images/s of each round, and each decode
round's start and end (time.time()), after one warm-up batch. --ready/--go: after loading and
warming up, before the j-th decode round of the i-th DIR, create file READY.i.j and wait for
file GO.i.j, so that processes on several GPUs decode each round at once.
"""
import argparse, json, os, sys, time

import torch
import torchvision
from torchvision.io import decode_jpeg, encode_jpeg


def batches(items, size):
    return [items[i:i + size] for i in range(0, len(items), size)]


def decode_round(data, device, size):
    start = time.time()
    images = []
    for batch in batches(data, size):
        images += decode_jpeg(batch, device=device)
    torch.cuda.synchronize(device)
    return images, start, time.time()


def encode_round(images, size, quality):
    start = time.perf_counter()
    for batch in batches(images, size):
        encode_jpeg(batch, quality=quality)
    torch.cuda.synchronize(images[0].device)
    return len(images) / (time.perf_counter() - start)


def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.005)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dirs", nargs="+")
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--quality", type=int, default=95)
    p.add_argument("--no-encode", action="store_true")
    p.add_argument("--ready")
    p.add_argument("--go")
    a = p.parse_args()
    device = torch.device(a.device)
    sets = []
    for d in a.dirs:
        files = sorted(os.path.join(d, f) for f in os.listdir(d))
        data = [torchvision.io.read_file(f) for f in files]
        decode_jpeg(data[:a.batch], device=device)  # warm-up: CUDA context, nvJPEG, its buffers
        torch.cuda.synchronize(device)
        sets.append((d, data))
    for i, (d, data) in enumerate(sets):
        decode, spans, images = [], [], None
        for j in range(a.rounds):
            images = None  # free the last round's images first
            if a.ready:
                open("%s.%d.%d" % (a.ready, i, j), "w").close()
                wait_for("%s.%d.%d" % (a.go, i, j))
            images, start, end = decode_round(data, device, a.batch)
            decode.append(len(data) / (end - start))
            spans.append([start, end])
        encode = [] if a.no_encode else [encode_round(images, a.batch, a.quality)
                                         for _ in range(a.rounds)]
        print(json.dumps({"dir": d, "device": a.device, "name": torch.cuda.get_device_name(device),
                          "files": len(data), "decode": decode, "encode": encode, "spans": spans,
                          "torch": torch.__version__, "torchvision": torchvision.__version__}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
