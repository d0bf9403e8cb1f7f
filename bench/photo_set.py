#!/usr/bin/env python3
"""Real photographs for the batch benchmarks: crops of the photographs bench/fetch_photos.sh takes
from Debian's plasma-workspace-wallpapers (eleven 2560x1600 JPEGs of real scenes), each crop from
a seeded random scale, position and mirror, so no two files hold the same pixels.

usage: photo_set.py PHOTOS OUT [--hd N] [--uhd N] [--raw8k N] [--raw8k-formats ppm,bmp,tif]
                    [--png N] [--quality 95]

  --hd N     N 1920x1080 JPEGs in OUT/hd-jpg: half 4:2:0, half 4:4:4, as cameras write them
  --uhd N    N 3840x2160 JPEGs in OUT/uhd-jpg (upscaled 1.5-1.7x before cropping), half each
  --raw8k N  N 7680x4320 binary PPMs in OUT/8k-ppm (upscaled 3x): no codec work
  --raw8k-formats  the raw 8K files' formats (default ppm): also bmp (24-bit, OUT/8k-bmp) and tif
             (uncompressed, OUT/8k-tif), the same crops
  --png N    N 1920x1080 PNGs in OUT/hd-png (OpenCV's default compression)
A folder that already holds N files is left as it is. Needs numpy and cv2.
"""
import argparse, multiprocessing as mp, os, random, shutil, sys

import cv2

SUBSAMPLING = {"420": 0x221111, "444": 0x111111}  # cv2.IMWRITE_JPEG_SAMPLING_FACTOR values


def crop(photo, width, height, seed, low, high):
    """A width x height crop of `photo` scaled by a factor in [low, high], maybe mirrored."""
    rng = random.Random(seed)
    h, w = photo.shape[:2]
    scale = max(rng.uniform(low, high), width / w, height / h)
    scaled = cv2.resize(photo, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
                        if scale < 1 else cv2.INTER_CUBIC)
    y = rng.randrange(scaled.shape[0] - height + 1)
    x = rng.randrange(scaled.shape[1] - width + 1)
    out = scaled[y:y + height, x:x + width]
    return cv2.flip(out, 1) if rng.random() < 0.5 else out


def make(job):
    photo_path, path, width, height, seed, low, high, kind, quality = job
    image = crop(cv2.imread(photo_path, cv2.IMREAD_COLOR), width, height, seed, low, high)
    if kind == "png":
        params = []
    elif kind == "ppm":
        params = [cv2.IMWRITE_PXM_BINARY, 1]
    elif kind == "bmp":
        params = []
    elif kind == "tif":
        params = [cv2.IMWRITE_TIFF_COMPRESSION, 1]  # none
    elif hasattr(cv2, "IMWRITE_JPEG_SAMPLING_FACTOR"):
        params = [cv2.IMWRITE_JPEG_QUALITY, quality,
                  cv2.IMWRITE_JPEG_SAMPLING_FACTOR, SUBSAMPLING[kind]]
    else:  # OpenCV before 4.7 cannot choose the subsampling: Pillow can (same libjpeg tables)
        from PIL import Image
        Image.fromarray(image[:, :, ::-1]).save(path, quality=quality,
                                                subsampling=0 if kind == "444" else 2)
        return
    if not cv2.imwrite(path, image, params):
        raise SystemExit("cannot write " + path)


def build(photos, folder, count, width, height, low, high, ext, kinds, quality, pool):
    if os.path.isdir(folder) and len(os.listdir(folder)) == count:
        return
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    jobs = []
    for i in range(count):
        kind = kinds[i % len(kinds)]
        name = "photo%05d%s.%s" % (i, "-" + kind if ext == "jpg" else "", ext)
        jobs.append((photos[i % len(photos)], os.path.join(folder, name), width, height,
                     1000003 * (i + 1), low, high, kind, quality))
    pool.map(make, jobs, chunksize=2)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("photos")
    p.add_argument("out")
    p.add_argument("--hd", type=int, default=0)
    p.add_argument("--uhd", type=int, default=0)
    p.add_argument("--raw8k", type=int, default=0)
    p.add_argument("--raw8k-formats", default="ppm")
    p.add_argument("--png", type=int, default=0)
    p.add_argument("--quality", type=int, default=95)
    a = p.parse_args()
    photos = sorted(os.path.join(a.photos, f) for f in os.listdir(a.photos)
                    if f.lower().endswith((".jpg", ".jpeg", ".png")))
    if not photos:
        sys.exit("photo_set: no photographs in " + a.photos + " (bench/fetch_photos.sh)")
    with mp.Pool() as pool:
        if a.hd:
            build(photos, os.path.join(a.out, "hd-jpg"), a.hd, 1920, 1080, 0.75, 1.0, "jpg",
                  ["420", "444"], a.quality, pool)
        if a.uhd:
            build(photos, os.path.join(a.out, "uhd-jpg"), a.uhd, 3840, 2160, 1.5, 1.7, "jpg",
                  ["420", "444"], a.quality, pool)
        for ext in a.raw8k_formats.split(",") if a.raw8k else []:
            build(photos, os.path.join(a.out, "8k-" + ext), a.raw8k, 7680, 4320, 3.0, 3.2, ext,
                  [ext], a.quality, pool)
        if a.png:
            build(photos, os.path.join(a.out, "hd-png"), a.png, 1920, 1080, 0.75, 1.0, "png",
                  ["png"], a.quality, pool)


if __name__ == "__main__":
    main()
