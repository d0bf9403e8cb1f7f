#!/usr/bin/env python3
"""The batch benchmark on real photographs (issue 37): gpublur's whole command against a pool of
one OpenCV process per core (opencv_pool.py) and torchvision's GPU loop (torchvision_jpeg.py),
each timed as a whole process, start-up included, on crops of real photographs (photo_set.py,
from bench/fetch_photos.sh), with nvJPEG's decoder and encoder alone as the ceiling, in one run.

usage: photo_batch.py GPUBLUR WORKDIR [--photos DIR] [--quick] [--hd 16,200,2000,10000]
         [--uhd 400] [--png 400] [--raw8k 20] [--hd-distinct 500] [--uhd-distinct 100]
         [--png-distinct 100] [--raw8k-distinct 5] [--devices 0 --devices 0,1] [--rounds 2]
         [--pool N] [--sections ceiling,hd,uhd,raw8k,png] [--budget SECONDS] [--log FILE]

Sets: hd 1920x1080 JPEG q95 (half 4:2:0, half 4:4:4), uhd 3840x2160 JPEG likewise, png 1920x1080
PNG, raw8k 7680x4320 binary PPM. Each set's counts are batches made of its distinct crops by
hard links (the same bytes, no more cropping); 7x7 sigma 1.5, raw8k 31x31 sigma 5, clamp border
(BORDER_REPLICATE) everywhere. Where a set has two or more counts, the steady state is
(N2 - N1) / (t2 - t1) of its two largest.

Timing: each configuration runs --rounds times back to back (GPU clocks and nvJPEG's engines
warm up: a fresh machine's first run was measured 2x slower in decode); the tables report the
median of the rounds after the first. Seconds are wall time of the whole process; peak RSS is the
largest process's (rusage, as /usr/bin/time; gpublur's detached worker is reaped here, this
script being a child subreaper); peak PSS sums every process of the run (the pool's workers
too), sampled 5 times a second. gpublur runs as a user runs it (detached: it exits once the
outputs are written, its worker releasing the GPU unwaited); one row per set runs --no-detach.
--devices: the GPU sets gpublur's GPU rows run on (default: 0 and, on 2+ GPUs, all of them).
On the largest count of each set, the last round of each GPU row runs beside
`nvidia-smi dmon -s u -d 1` (SM% and JPG% per GPU), and its --json output gives the worker
clocks and the median per-file stage times. Anything that cannot run here (no GPU, no torch, no
nvidia-smi) prints "n/a (why)". Markdown on stdout (for bench/RESULTS.md); every run's command,
times and summary line in --log (default WORKDIR/photo_batch.log).
"""
import argparse, datetime, json, os, shutil, subprocess, sys, time

from batch_processes import Dmon, Host, Run, become_subreaper, reap_orphans
from batch_tables import (median, print_clocks, print_dmon, print_row, print_stages,
                          print_steady)

HERE = os.path.dirname(os.path.abspath(__file__))
POOL_LABEL = "OpenCV pool"
CEILING_ROUNDS = 3


# ---- inputs -----------------------------------------------------------------------------------

SETS = {  # name: (photo_set.py option and folder, what, blur size, sigma)
    "hd": ("--hd", "hd-jpg", "1920x1080 JPEG q95 (half 4:2:0, half 4:4:4)", 7, 1.5),
    "uhd": ("--uhd", "uhd-jpg", "3840x2160 JPEG q95 (half 4:2:0, half 4:4:4)", 7, 1.5),
    "raw8k": ("--raw8k", "8k-ppm", "7680x4320 binary PPM", 31, 5.0),
    "png": ("--png", "hd-png", "1920x1080 PNG (OpenCV's default compression)", 7, 1.5),
}


def used(args, name):
    """Whether set `name` is timed, or (its JPEG crops) fed to the ceiling."""
    ceiling = "ceiling" in args.sections and name in ("hd", "uhd")
    return bool(getattr(args, name)) and (name in args.sections or ceiling)


def make_photos(args, log):
    """The distinct crops of every set used, in WORKDIR/photos/<folder>."""
    argv = [sys.executable, os.path.join(HERE, "photo_set.py"), args.photos,
            os.path.join(args.workdir, "photos")]
    for name, (option, *_rest) in SETS.items():
        if used(args, name):
            argv += [option, str(getattr(args, name + "_distinct"))]
    start = time.perf_counter()
    if subprocess.run(argv).returncode != 0:
        sys.exit("photo_batch: photo_set.py failed: no photographs to time (needs cv2 and "
                 "bench/fetch_photos.sh's photographs in --photos)")
    log("photo_set: %s: %.1f s" % (" ".join(argv), time.perf_counter() - start))


def linked(src, count, workdir):
    """A folder of `count` hard links to src's files, round robin; remade where a link no longer
    names its source (the distinct crops were made again)."""
    names = sorted(os.listdir(src))
    folder = os.path.join(workdir, "sets", "%s-n%d" % (os.path.basename(src), count))
    wanted = [("%05d-%s" % (i, names[i % len(names)]), names[i % len(names)]) for i in range(count)]
    try:
        if len(os.listdir(folder)) == count and all(os.path.samefile(
                os.path.join(folder, link), os.path.join(src, name)) for link, name in wanted):
            return folder
    except OSError:
        pass
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for link, name in wanted:
        os.link(os.path.join(src, name), os.path.join(folder, link))
    return folder


def megabytes(folder):
    return sum(e.stat().st_size for e in os.scandir(folder) if e.is_file()) / 1e6


# ---- configurations ---------------------------------------------------------------------------

class Config:
    def __init__(self, label, kind, args=(), needs=(), dmon=False):
        self.label, self.kind, self.args, self.needs, self.dmon = label, kind, list(args), needs, dmon


def configs_for(name, device_sets):
    """The rows of one set, the pool first (the others' ratio is to it)."""
    rows = [Config(POOL_LABEL + " (opencv_pool.py)", "pool")]
    if name == "uhd":
        rows.append(Config("torchvision GPU loop (torchvision_jpeg.py, cuda:0)", "torch",
                           needs=("torch",), dmon=True))
    if name in ("hd", "uhd"):
        for devices in device_sets:
            rows.append(Config("gpublur --codec auto --devices " + devices, "gpublur",
                               ["--codec", "auto", "--devices", devices], ("gpu",), dmon=True))
        # auto is gpu's codec from about 800 1080p files and cpu's below: each on all GPUs suffices
        rows.append(Config("gpublur --codec gpu", "gpublur", ["--codec", "gpu"], ("gpu", "nvjpeg"),
                           dmon=True))
        rows.append(Config("gpublur --codec cpu", "gpublur", ["--codec", "cpu"], ("gpu",), dmon=True))
        rows.append(Config("gpublur --codec auto --no-detach", "gpublur", ["--no-detach"], ("gpu",)))
    else:
        rows.append(Config("gpublur", "gpublur", [], ("gpu",), dmon=True))
        rows.append(Config("gpublur --no-detach", "gpublur", ["--no-detach"], ("gpu",)))
    if name == "raw8k" or not device_sets:
        rows.append(Config("gpublur --device cpu", "gpublur", ["--device", "cpu"]))
    return rows


def argv_for(config, gpublur, src, out, size, sigma, pool_processes):
    if config.kind == "pool":
        return [sys.executable, os.path.join(HERE, "opencv_pool.py"), src, out, "--size", str(size),
                "--sigma", str(sigma), "--processes", str(pool_processes)]
    if config.kind == "torch":
        return [sys.executable, os.path.join(HERE, "torchvision_jpeg.py"), src, out, "--rounds", "1",
                "--no-warmup", "--device", "cuda:0"]
    return [gpublur, src, "-o", out, "--size", str(size), "--sigma", str(sigma), "-q",
            "--json"] + config.args


def gpublur_report(path):
    """(per-file records, summary) of gpublur's --json output."""
    files, summary = [], None
    with open(path) as f:
        for line in f:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if "summary" in record:
                summary = record["summary"]
            elif "ms" in record:
                files.append(record)
    return files, summary


class Bench:
    def __init__(self, args, host, log, start):
        self.args, self.host, self.log, self.start = args, host, log, start
        self.exclude = set()
        self.out = os.path.join(args.workdir, "out")

    def over_budget(self):
        return self.args.budget and time.monotonic() - self.start > self.args.budget

    def time_config(self, config, src, n, size, sigma, watch):
        """{seconds, rate, ...} of the rounds after the first, or {"na": why}."""
        why = self.host.why_not(config.needs)
        if why:
            return {"na": "n/a (%s)" % why}
        if self.over_budget():
            return {"na": "n/a (time budget of %d s spent)" % self.args.budget}
        argv = argv_for(config, self.args.gpublur, src, self.out, size, sigma, self.args.pool)
        runs, dmon = [], None
        for r in range(self.args.rounds):
            shutil.rmtree(self.out, ignore_errors=True)
            os.makedirs(self.out)
            last = r == self.args.rounds - 1
            monitor = Dmon(self.host.smi, self.out + "-dmon.log", self.exclude) if last and watch \
                else None
            run = Run(argv, os.path.join(self.args.workdir, "run.json"), self.exclude)
            dmon = monitor.stop() if monitor else None
            self.log("%s | %d files | round %d | wall %.3f s | worker end %s | rss %.0f MB | "
                     "pss %.0f MB | exit %d\n  %s\n  %s" % (
                         config.label, n, r + 1, run.wall, run.worker_end, run.rss / 1e6, run.pss / 1e6,
                         run.code, " ".join(argv), run.stderr.strip()[-600:]))
            if run.failure():
                return {"na": run.failure()}
            runs.append(run)
        return self.summarise(config, runs, n, dmon)

    def summarise(self, config, runs, n, dmon):
        kept = runs[1:] or runs
        result = {"seconds": median([r.wall for r in kept]), "runs": runs, "dmon": dmon,
                  "rss": max(r.rss for r in kept), "pss": max(r.pss for r in kept),
                  "mb": megabytes(self.out)}
        result["rate"] = n / result["seconds"]
        if config.kind == "gpublur":
            files, summary = gpublur_report(runs[-1].stdout_path)
            self.log("  summary: " + json.dumps(summary))
            result["files"], result["summary"] = files, summary or {}
        return result


# ---- sections ---------------------------------------------------------------------------------

def run_set(bench, name, counts):
    _, folder, what, size, sigma = SETS[name]
    args = bench.args
    distinct = os.path.join(args.workdir, "photos", folder)
    configs = configs_for(name, args.devices)
    print("\n### %s, %dx%d sigma %g, from %d distinct crops\n" % (
        what, size, size, sigma, len(os.listdir(distinct))))
    print("Seconds: wall time of the whole process, median of the rounds after the first (all rounds in "
          "the last column; gpublur detached unless the row says --no-detach; \"worker\": when its "
          "detached worker ended; rows without --devices use every GPU). gpublur's own: the seconds "
          "its --json summary counts.\n")
    print("| files | pipeline | device (decoder / encoder) | seconds | images/s | vs pool | "
          "gpublur's own s | peak RSS MB (largest process) | peak PSS MB (all processes) | output MB | "
          "runs (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    results = {}
    for n in counts:
        src = linked(distinct, n, args.workdir)
        pool_rate = None
        for config in configs:
            watch = config.dmon and n == counts[-1]
            result = bench.time_config(config, src, n, size, sigma, watch)
            results[(config.label, n)] = result
            if config.kind == "pool":
                pool_rate = result.get("rate")
            print_row(n, config, result, pool_rate)
    if len(counts) >= 2:
        print_steady(results, counts, configs)
    if name in ("hd", "uhd"):
        print_clocks(results, counts[-1], configs)
        print_stages(results, counts[-1], configs)
        print_dmon(results, counts[-1], configs, bench.host)


def run_ceiling(bench):
    args, host = bench.args, bench.host
    dirs = [os.path.join(args.workdir, "photos", SETS[s][1]) for s in ("hd", "uhd") if used(args, s)]
    print("\n### Ceiling: nvJPEG alone (torchvision decode_jpeg / encode_jpeg, batches of 64, "
          "from memory)\n")
    why = host.why_not(("torch",))
    if why or not dirs:
        print("n/a (%s)" % (why or "no JPEG set"))
        return
    print("images/s, median of %d rounds after a warm-up batch; the distinct crops of each set. "
          "At once: all images over the span from the first start to the last end of each "
          "round.\n" % CEILING_ROUNDS)
    print("| set | files | GPUs | decode images/s | encode images/s | rounds (decode) |")
    print("|---|---|---|---|---|---|")
    ordinals = sorted({int(o) for s in args.devices for o in s.split(",")}) or [0]
    for k in ordinals:
        for record in ceiling_processes(bench, dirs, [k], encode=True)[0]:
            print("| %s | %d | cuda:%d | %.0f | %.0f | %s |" % (
                os.path.basename(record["dir"]), record["files"], k, median(record["decode"]),
                median(record["encode"]), ", ".join("%.0f" % v for v in record["decode"])))
    if len(ordinals) >= 2:
        per_process = ceiling_processes(bench, dirs, ordinals, encode=False)
        for i, d in enumerate(dirs):
            records = [p[i] for p in per_process if len(p) > i]
            if not records:
                continue
            rounds = [sum(r["files"] for r in records) / (max(r["spans"][j][1] for r in records) -
                                                           min(r["spans"][j][0] for r in records))
                      for j in range(min(len(r["spans"]) for r in records))]
            print("| %s | %d each | %s at once (a process each) | %.0f | - | %s |" % (
                os.path.basename(d), records[0]["files"], ", ".join(r["device"] for r in records),
                median(rounds), ", ".join("%.0f" % v for v in rounds)))
    sys.stdout.flush()


def ceiling_processes(bench, dirs, ordinals, encode):
    """The JSON records of nvjpeg_ceiling.py on each GPU of `ordinals`, all at once, each decode
    round started together (a barrier of files)."""
    barrier = os.path.join(bench.args.workdir, "barrier")
    shutil.rmtree(barrier, ignore_errors=True)
    os.makedirs(barrier)
    procs = []
    for k in ordinals:
        argv = [sys.executable, os.path.join(HERE, "nvjpeg_ceiling.py")] + dirs + [
            "--device", "cuda:%d" % k, "--rounds", str(CEILING_ROUNDS)]
        argv += [] if encode else ["--no-encode"]
        argv += ["--ready", os.path.join(barrier, "ready%d" % k), "--go", os.path.join(barrier, "go")]
        procs.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    deadline = time.monotonic() + 120  # torch's start-up and reading the files take seconds
    for step in ["%d.%d" % (i, j) for i in range(len(dirs)) for j in range(CEILING_ROUNDS)]:
        while not all(os.path.exists(os.path.join(barrier, "ready%d.%s" % (k, step)))
                      or p.poll() is not None for k, p in zip(ordinals, procs)):
            if time.monotonic() > deadline:
                for p in procs:
                    p.kill()
                break
            time.sleep(0.002)
        open(os.path.join(barrier, "go." + step), "w").close()
    records = []
    for k, p in zip(ordinals, procs):
        out, err = p.communicate()
        bench.log("nvjpeg_ceiling cuda:%d exit %d\n%s\n%s" % (k, p.returncode, out, err[-1500:]))
        if p.returncode != 0:
            last = (err.strip().splitlines() or ["exit %d" % p.returncode])[-1]
            print("| - | - | cuda:%d | n/a (nvjpeg_ceiling.py: %s) | | |" % (k, last[:160]))
        records.append([json.loads(l) for l in out.splitlines() if l.startswith("{")])
    return records


# ---- main -------------------------------------------------------------------------------------

FULL = {"hd": "16,200,2000,10000", "uhd": "400", "raw8k": "20", "png": "400",
        "hd_distinct": 500, "uhd_distinct": 100, "raw8k_distinct": 5, "png_distinct": 100}
QUICK = {"hd": "4,8", "uhd": "2", "raw8k": "1", "png": "3",
         "hd_distinct": 6, "uhd_distinct": 2, "raw8k_distinct": 1, "png_distinct": 3}


def counts(text):
    return [int(v) for v in text.split(",") if v.strip() and int(v) > 0]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("gpublur")
    p.add_argument("workdir")
    p.add_argument("--photos", default=os.path.join(HERE, "..", ".carry", "photos"))
    p.add_argument("--quick", action="store_true", help="tiny counts: a smoke test")
    for name in SETS:
        p.add_argument("--" + name, type=counts, help="batch sizes, e.g. %s" % FULL[name])
        p.add_argument("--%s-distinct" % name, type=int,
                       help="distinct crops (%d)" % FULL[name + "_distinct"])
    p.add_argument("--devices", action="append", help="a GPU set for gpublur's GPU rows (repeat)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--pool", type=int, default=os.cpu_count())
    p.add_argument("--sections", default="ceiling,hd,uhd,raw8k,png")
    p.add_argument("--budget", type=float, default=0, help="seconds; later rows print n/a once spent")
    p.add_argument("--log")
    a = p.parse_args()
    for key, value in (QUICK if a.quick else FULL).items():  # what the command line left unset
        if getattr(a, key) is None:
            setattr(a, key, counts(value) if isinstance(value, str) else value)
    a.sections = a.sections.split(",")
    a.gpublur = os.path.abspath(a.gpublur)
    a.log = a.log or os.path.join(a.workdir, "photo_batch.log")
    return a


def print_facts(args, host, reaper):
    def first_line(argv):
        done = subprocess.run(argv, capture_output=True, text=True)
        why = (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]
        return done.stdout.strip() if done.returncode == 0 else "n/a (%s)" % why
    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
           if l.startswith("model name")][:1] or ["?"]
    now = datetime.datetime.now(datetime.timezone.utc)
    print("## Batch benchmark on real photographs, %s\n" % now.strftime("%Y-%m-%d %H:%M UTC"))
    print("Command: `%s`\n" % " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:]))
    print("- host: %s, %d cores; pool: %d processes" % (cpu[0], os.cpu_count(), args.pool))
    gpus = first_line([host.smi, "--query-gpu=index,name,driver_version,clocks.max.sm",
                       "--format=csv,noheader"]) if host.smi else "n/a (nvidia-smi not found)"
    print("- GPUs (nvidia-smi): %s" % "; ".join(gpus.splitlines()))
    print("- gpublur --version: %s" % "; ".join(host.version.splitlines()))
    opencv = first_line([sys.executable, "-c", "import cv2; print(cv2.__version__)"])
    print("- Python %s, OpenCV %s; %s" % (sys.version.split()[0], opencv,
                                          host.torch or "torch n/a (%s)" % host.no_torch))
    print("- gpublur's GPU rows on --devices %s; detached workers reaped: %s" % (
        " and ".join(args.devices) or "n/a (%s)" % host.no_gpu,
        "yes" if reaper else "no (RSS is the parent's)"))
    sys.stdout.flush()


def warm_up(bench):
    """The kernels each blur needs, compiled into gpublur's cache before anything is timed."""
    for name in ("hd", "raw8k"):
        _, folder, _, size, sigma = SETS[name]
        distinct = os.path.join(bench.args.workdir, "photos", folder)
        if name in bench.args.sections and getattr(bench.args, name) and os.path.isdir(distinct):
            first = os.path.join(distinct, sorted(os.listdir(distinct))[0])
            out = os.path.join(bench.args.workdir, "warm-up" + os.path.splitext(first)[1])
            done = subprocess.run([bench.args.gpublur, first, out, "--size", str(size),
                                   "--sigma", str(sigma)], capture_output=True, text=True)
            reap_orphans(bench.exclude)
            bench.log("warm-up %s: exit %d %s" % (name, done.returncode, done.stderr.strip()))


def main():
    start = time.monotonic()
    args = parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    log_file = open(args.log, "a")

    def log(text):
        log_file.write(text + "\n")
        log_file.flush()

    reaper = become_subreaper()
    host = Host(args.gpublur)
    if args.devices is None:
        args.devices = [] if host.no_gpu else ["0"] + ([",".join(str(i) for i in range(len(host.gpus)))]
                                                      if len(host.gpus) >= 2 else [])
    print_facts(args, host, reaper)
    log("== %s\n%s" % (" ".join(sys.argv), host.version))
    make_photos(args, log)
    bench = Bench(args, host, log, start)
    warm_up(bench)
    if "ceiling" in args.sections:
        run_ceiling(bench)
    for name in ("hd", "uhd", "raw8k", "png"):
        if name in args.sections and getattr(args, name):
            run_set(bench, name, getattr(args, name))
    print("\nTotal: %.0f s; raw log: %s" % (time.monotonic() - bench.start, args.log))


if __name__ == "__main__":
    main()
