#!/usr/bin/env python3
"""Many files at once: gpublur's batch form against one gpublur process per file and an
OpenCV-Python process pool doing the same work (read, GaussianBlur with the same size, sigma and
border, write), on the same photo-like files, in one run. Prints images/s, the ratio to the pool,
the total bytes each wrote and gpublur's peak RSS, as Markdown.

usage: batch_bench.py GPUBLUR WORKDIR [--hd N] [--uhd N] [--formats png,jpg] [--rounds R]
                      [--pool P] [--per-file N] [--device auto|gpu|cpu] [--rss N,M] [--threads T]

--hd/--uhd: how many 1920x1080 and 3840x2160 images to draw (PNG as OpenCV writes it by default,
JPEG at quality 95). --pool: the pool's processes (default: the cores). --per-file: how many
files the one-process-per-file row blurs (as many processes at a time as the pool has).
--rss N,M: also run the batch on N and M 1080p files (drawn as copies) and print its peak RSS.
--shards K: also time K concurrent `--shard k/K --device cpu` processes (as K Slurm tasks on this
host, each with cores/K threads) against one such process over all the 1080p files.
--codecs: JPEG rows also time gpublur with --codec gpu (nvJPEG) and --codec cpu (libjpeg-turbo)
beside the default auto (nvJPEG in a batch of about 1.6+ gigapixels of JPEG, else
libjpeg-turbo), and the torchvision GPU pipeline (torchvision_jpeg.py: nvJPEG decode in batches
of 64, gaussian_blur, GPU encode), on the same files.
--links K: each drawn image is in the batch K times (hard links: the same bytes, no more drawing),
for batches larger than drawing them takes; each gpublur batch is one process, which pays its
GPU start-up (and nvJPEG's) once.
--magick N: also blur the first N 1080p PNGs with ImageMagick (`convert`, if installed) and print
the output bytes of ImageMagick, OpenCV and gpublur for those N files.
Needs numpy and cv2. gpublur runs with --no-detach, so the wall time includes its GPU teardown
and its peak RSS is the worker's (the parent waits for it).
"""
import argparse, multiprocessing as mp, os, shutil, statistics, subprocess, sys, time

SIZE, SIGMA = 7, 1.5


def scene(args):
    """A photo-like RGB scene (shading, hard-edged blocks, sensor-like noise), varied by seed."""
    import numpy as np, cv2
    path, width, height, seed, ext = args
    rng = np.random.default_rng(seed)
    phase = rng.uniform(0, 100, 4)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    r = 128 + 100 * np.sin((x + phase[0] * 7) / 97) * np.cos((y + phase[1]) / 53)
    g = 90 + 80 * np.sin((x + y + phase[2] * 9) / 141) + 60 * ((((x + phase[3] * 5) // 160) + (y // 120)) % 2)
    b = 60 + 150 * y / height
    img = np.stack([b, g, r], axis=-1) + rng.normal(0, 12, (height, width, 3))
    img = np.clip(img, 0, 255).astype(np.uint8)
    params = [cv2.IMWRITE_JPEG_QUALITY, 95] if ext == "jpg" else []
    assert cv2.imwrite(path, img, params), path


def draw(directory, count, width, height, ext, seed, pool):
    if os.path.isdir(directory) and len(os.listdir(directory)) == count:
        return
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    jobs = [(os.path.join(directory, "img%05d.%s" % (i, ext)), width, height, seed + i, ext) for i in range(count)]
    pool.map(scene, jobs, chunksize=4)


def opencv_blur(args):
    import cv2
    src, dst, ext = args
    img = cv2.imread(src, cv2.IMREAD_UNCHANGED)
    out = cv2.GaussianBlur(img, (SIZE, SIZE), SIGMA, borderType=cv2.BORDER_REPLICATE)
    params = [cv2.IMWRITE_JPEG_QUALITY, 95] if ext == "jpg" else []
    cv2.imwrite(dst, out, params)


def linked(src, times):
    """A folder beside `src` holding each of its files `times` times, as hard links."""
    many = "%s-x%d" % (src, times)
    names = sorted(os.listdir(src))
    if not os.path.isdir(many) or len(os.listdir(many)) != times * len(names):
        fresh(many)
        for k in range(times):
            for name in names:
                os.link(os.path.join(src, name), os.path.join(many, "%d-%s" % (k, name)))
    return many


def fresh(directory):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)


def total_bytes(directory):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(directory) for f in files)


def run_batch(gpublur, src, out, extra, stages=None):
    """Seconds and peak RSS of one batch; adds each stage's milliseconds per file (from --json)
    to `stages` when given."""
    fresh(out)
    report = os.path.join(os.path.dirname(out), "batch.json")
    start = time.perf_counter()
    with open(report, "w") as lines:
        proc = subprocess.Popen([gpublur, src, "-o", out, "--size", str(SIZE), "--sigma", str(SIGMA), "-q",
                                 "--no-detach", "--json"] + extra, stdout=lines, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    stderr = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("gpublur failed: " + stderr[-2000:])
    if stages is not None:
        import json
        for line in open(report):
            record = json.loads(line)
            for stage, ms in record.get("ms", {}).items():
                stages.setdefault(stage, []).append(ms)
    return seconds, usage.ru_maxrss * 1024


def run_per_file(gpublur, files, out, processes, extra):
    fresh(out)
    start = time.perf_counter()
    running = []
    for f in files:
        if len(running) >= processes:
            running.pop(0).wait()
        running.append(subprocess.Popen([gpublur, f, os.path.join(out, os.path.basename(f)), "--size", str(SIZE),
                                         "--sigma", str(SIGMA)] + extra, stderr=subprocess.DEVNULL))
    for p in running:
        p.wait()
    return time.perf_counter() - start


def run_shards(gpublur, src, out, shards, threads):
    """Seconds for `shards` concurrent processes, each taking its part of src (--shard k/N)."""
    fresh(out)
    start = time.perf_counter()
    procs = [subprocess.Popen([gpublur, src, "-o", out, "--size", str(SIZE), "--sigma", str(SIGMA), "-q",
                               "--no-detach", "--device", "cpu", "--threads", str(threads)] +
                              (["--shard", "%d/%d" % (k, shards)] if shards > 1 else []))
             for k in range(shards)]
    if any(p.wait() != 0 for p in procs):
        sys.exit("gpublur --shard failed")
    return time.perf_counter() - start


def magick_sizes(files, workdir):
    """Output bytes of ImageMagick, OpenCV and gpublur for the same blur of `files`, or None."""
    import cv2
    if not shutil.which("convert"):
        return None
    sizes = {}
    for label in ("ImageMagick", "OpenCV", "gpublur"):
        fresh(os.path.join(workdir, "sizes-" + label))
    for f in files:
        name = os.path.basename(f)
        done = subprocess.run(["convert", f, "-virtual-pixel", "edge", "-gaussian-blur",
                               "%dx%s" % (SIZE // 2, SIGMA), os.path.join(workdir, "sizes-ImageMagick", name)],
                              stderr=subprocess.DEVNULL)
        if done.returncode != 0:  # e.g. a stand-in `convert` without ImageMagick behind it
            return None
        opencv_blur((f, os.path.join(workdir, "sizes-OpenCV", name), "png"))
    return {label: total_bytes(os.path.join(workdir, "sizes-" + label)) for label in ("ImageMagick", "OpenCV")}


def run_pool(pool, files, out, ext):
    fresh(out)
    start = time.perf_counter()
    pool.map(opencv_blur, [(f, os.path.join(out, os.path.basename(f)), ext) for f in files], chunksize=1)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gpublur")
    parser.add_argument("workdir")
    parser.add_argument("--hd", type=int, default=500)
    parser.add_argument("--uhd", type=int, default=100)
    parser.add_argument("--formats", default="png,jpg")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pool", type=int, default=os.cpu_count())
    parser.add_argument("--per-file", type=int, default=64)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--rss", default="")
    parser.add_argument("--shards", type=int, default=0)
    parser.add_argument("--magick", type=int, default=0)
    parser.add_argument("--codecs", action="store_true")
    parser.add_argument("--links", type=int, default=1)
    args = parser.parse_args()
    extra = ["--device", args.device] + (["--threads", str(args.threads)] if args.threads else [])
    gpublur = os.path.abspath(args.gpublur)
    os.makedirs(args.workdir, exist_ok=True)
    # The first run on a machine compiles the kernel (NVRTC, about 2.5 s) and caches it; every
    # batch timed here loads it from the cache, as every run after the first does.
    warm = os.path.join(args.workdir, "warm-up")
    fresh(warm)
    sample = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples", "detail.png")
    subprocess.run([gpublur, sample, os.path.join(warm, "detail.png"), "--size", str(SIZE), "--sigma",
                    str(SIGMA), "-q"] + extra, check=True)
    print("| image | format | pipeline | images/s (median of %d) | vs pool | output MB |" % args.rounds)
    print("|---|---|---|---|---|---|")
    with mp.Pool(args.pool) as pool:
        sets = [("1920x1080", 1920, 1080, args.hd), ("3840x2160", 3840, 2160, args.uhd)]
        for name, width, height, count in sets:
            if count == 0:
                continue
            for ext in args.formats.split(","):
                src = os.path.join(args.workdir, "%s-%s" % (name, ext))
                draw(src, count, width, height, ext, 1000 * width + (ext == "jpg"), pool)
                n = count
                if args.links > 1:
                    src, n = linked(src, args.links), count * args.links
                set_name = "%s, %d files" % (name, n)
                files = sorted(os.path.join(src, f) for f in os.listdir(src))
                rows = {"gpublur batch": [], "OpenCV pool": []}
                codecs = ["gpu", "cpu"] if args.codecs and ext == "jpg" else []
                for codec in codecs:
                    rows["gpublur batch --codec " + codec] = []
                rss = 0
                stages = {}
                for _ in range(args.rounds):  # alternating, so drift hits both alike
                    seconds, peak = run_batch(gpublur, src, os.path.join(args.workdir, "out-gpublur"), extra,
                                              stages)
                    rows["gpublur batch"].append(n / seconds)
                    rss = max(rss, peak)
                    rows["OpenCV pool"].append(n / run_pool(pool, files, os.path.join(args.workdir, "out-pool"), ext))
                    for codec in codecs:
                        seconds, _ = run_batch(gpublur, src, os.path.join(args.workdir, "out-codec"),
                                               extra + ["--codec", codec])
                        rows["gpublur batch --codec " + codec].append(n / seconds)
                if codecs:
                    torch_out = os.path.join(args.workdir, "out-torchvision")
                    fresh(torch_out)
                    done = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "torchvision_jpeg.py"),
                                           src, torch_out, "--rounds", str(args.rounds)],
                                          capture_output=True, text=True)
                    if done.returncode == 0:
                        rows["torchvision GPU pipeline (decode_jpeg cuda, gaussian_blur, encode_jpeg; batches of 64)"] = [
                            float(v) for v in done.stdout.split()]
                    else:
                        print("| %s | %s | torchvision pipeline failed: %s | | | |" % (
                            set_name, ext, done.stderr.strip().splitlines()[-1:]))
                sizes = {"gpublur batch": total_bytes(os.path.join(args.workdir, "out-gpublur")),
                         "OpenCV pool": total_bytes(os.path.join(args.workdir, "out-pool"))}
                per_file = files[: args.per_file]
                if per_file:
                    seconds = run_per_file(gpublur, per_file, os.path.join(args.workdir, "out-single"), args.pool, extra)
                    rows["gpublur, a process per file, %d at a time" % args.pool] = [len(per_file) / seconds]
                pool_rate = statistics.median(rows["OpenCV pool"])
                for label, rates in rows.items():
                    rate = statistics.median(rates)
                    mb = "%.1f" % (sizes[label] / 1e6) if label in sizes else "-"
                    print("| %s | %s | %s | %.1f | %.2f | %s |" % (set_name, ext, label, rate, rate / pool_rate, mb))
                print("| %s | %s | gpublur batch peak RSS | %.0f MB | | |" % (set_name, ext, rss / 1e6))
                print("| %s | %s | gpublur batch, ms per file in each stage (mean; GPU stages include waiting "
                      "for a stack) | %s | | |" % (set_name, ext, ", ".join(
                          "%s %.1f" % (k, statistics.mean(v)) for k, v in stages.items())))
                sys.stdout.flush()
        if args.rss:
            src = os.path.join(args.workdir, "1920x1080-png")
            files = sorted(os.listdir(src))
            for n in (int(v) for v in args.rss.split(",")):
                many = os.path.join(args.workdir, "rss-%d" % n)
                if not os.path.isdir(many) or len(os.listdir(many)) != n:
                    fresh(many)
                    for i in range(n):  # hard links: no extra disk, the same bytes to decode
                        os.link(os.path.join(src, files[i % len(files)]), os.path.join(many, "img%05d.png" % i))
                seconds, peak = run_batch(gpublur, many, os.path.join(args.workdir, "out-rss"), extra)
                print("| 1920x1080 | png | gpublur batch of %d files: peak RSS | %.0f MB | %.1f images/s | |" %
                      (n, peak / 1e6, n / seconds))
        if args.shards > 1:
            threads = max(1, os.cpu_count() // args.shards)
            for ext in args.formats.split(","):
                src = os.path.join(args.workdir, "1920x1080-%s" % ext)
                count = len(os.listdir(src))
                one, many = [], []
                for _ in range(args.rounds):
                    one.append(count / run_shards(gpublur, src, os.path.join(args.workdir, "out-shards"), 1, threads))
                    many.append(count / run_shards(gpublur, src, os.path.join(args.workdir, "out-shards"), args.shards,
                                                   threads))
                a, b = statistics.median(one), statistics.median(many)
                print("| 1920x1080 | %s | --device cpu --threads %d: one task %.1f images/s, %d --shard tasks %.1f "
                      "images/s | %.2fx | |" % (ext, threads, a, args.shards, b, b / a))
        if args.magick:
            src = os.path.join(args.workdir, "1920x1080-png")
            files = sorted(os.path.join(src, f) for f in os.listdir(src))[: args.magick]
            sizes = magick_sizes(files, args.workdir)
            if sizes is None:
                print("| 1920x1080 | png | ImageMagick sizes: `convert` not installed | | | |")
            else:
                out = os.path.join(args.workdir, "sizes-gpublur")
                fresh(out)
                listed = os.path.join(args.workdir, "sizes-list.txt")
                with open(listed, "w") as f:
                    f.write("\n".join(files) + "\n")
                subprocess.run([gpublur, "--from-list", listed, "-o", out, "--size", str(SIZE), "--sigma",
                                str(SIGMA), "-q"] + extra, check=True)
                sizes["gpublur"] = total_bytes(out)
                print("| 1920x1080 | png | output bytes of %d files: %s | | | |" % (len(files), ", ".join(
                    "%s %.2f MB" % (k, v / 1e6) for k, v in sizes.items())))


if __name__ == "__main__":
    main()
