#!/usr/bin/env python3
"""The pool gpublur's batch is measured against: one process per core, each doing cv2.imread,
cv2.GaussianBlur (BORDER_REPLICATE, gpublur's clamp) and cv2.imwrite, as a user would write it.
photo_batch.py times it as a whole process, start-up and imports included, as gpublur's is.

usage: opencv_pool.py SRC OUT [--size 7] [--sigma 1.5] [--processes N] [--jpeg-quality 95]

JPEG outputs take quality --jpeg-quality and, where OpenCV can choose it (4.7 and later), the
chroma subsampling of their input, as gpublur keeps it; older OpenCV writes its default 4:2:0
(printed on stderr). PNG and PPM are written with OpenCV's defaults. Each worker keeps OpenCV's
own threads, as an unset pool does. Exit status 1 if any file failed.
"""
import argparse, multiprocessing as mp, os, sys

import cv2

SAMPLING = {(1, 1): 0x111111, (2, 1): 0x211111, (2, 2): 0x221111}  # (h, v) of luma: 444, 422, 420


def jpeg_sampling(path):
    """The luma sampling factors (h, v) of a baseline or progressive JPEG, or None."""
    with open(path, "rb") as f:
        if f.read(2) != b"\xff\xd8":
            return None
        while True:
            marker = f.read(2)
            if len(marker) < 2 or marker[0] != 0xFF:
                return None
            length = int.from_bytes(f.read(2), "big")
            if marker[1] in (0xC0, 0xC1, 0xC2):  # SOF: precision, height, width, components
                sof = f.read(length - 2)
                return (sof[7] >> 4, sof[7] & 15) if len(sof) >= 8 else None
            f.seek(length - 2, os.SEEK_CUR)


def blur_one(job):
    src, dst, size, sigma, quality = job
    image = cv2.imread(src, cv2.IMREAD_UNCHANGED)
    if image is None:
        return src
    out = cv2.GaussianBlur(image, (size, size), sigma, borderType=cv2.BORDER_REPLICATE)
    params = []
    if dst.lower().endswith((".jpg", ".jpeg")):
        params = [cv2.IMWRITE_JPEG_QUALITY, quality]
        sampling = SAMPLING.get(jpeg_sampling(src))
        if sampling is not None and hasattr(cv2, "IMWRITE_JPEG_SAMPLING_FACTOR"):
            params += [cv2.IMWRITE_JPEG_SAMPLING_FACTOR, sampling]
    return None if cv2.imwrite(dst, out, params) else dst


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("out")
    p.add_argument("--size", type=int, default=7)
    p.add_argument("--sigma", type=float, default=1.5)
    p.add_argument("--processes", type=int, default=os.cpu_count())
    p.add_argument("--jpeg-quality", type=int, default=95)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    jobs = [(os.path.join(a.src, name), os.path.join(a.out, name), a.size, a.sigma, a.jpeg_quality)
            for name in sorted(os.listdir(a.src))]
    jpeg = any(dst.lower().endswith((".jpg", ".jpeg")) for _, dst, *_ in jobs)
    if jpeg and not hasattr(cv2, "IMWRITE_JPEG_SAMPLING_FACTOR"):
        print("opencv_pool: OpenCV %s writes every JPEG 4:2:0" % cv2.__version__, file=sys.stderr)
    with mp.Pool(a.processes) as pool:
        failed = [f for f in pool.imap_unordered(blur_one, jobs, chunksize=1) if f]
    for f in failed:
        print("opencv_pool: failed: " + f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
