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
import argparse, ctypes, datetime, json, os, shutil, statistics, subprocess, sys, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
POOL_LABEL = "OpenCV pool"
CEILING_ROUNDS = 3


class Host:
    """What this machine can run: gpublur's GPUs, nvJPEG, torch, nvidia-smi."""

    def __init__(self, gpublur):
        version = subprocess.run([gpublur, "--version"], capture_output=True, text=True).stdout
        self.version = version.strip()
        lines = version.splitlines()
        self.gpus = [l for l in lines if l.startswith("GPU ") and ":" in l]
        none = [l for l in lines if l.startswith("GPU: none")]
        why = none[0][len("GPU: none ("):-1] if none else "?"
        self.no_gpu = None if self.gpus else "no GPU: " + why
        missing = [l for l in lines if l.startswith("nvJPEG: not available")]
        self.no_nvjpeg = self.no_gpu or (missing[0] if missing else None)
        self.smi = shutil.which("nvidia-smi")
        self.no_torch, self.torch = (self.no_gpu, None) if self.no_gpu else probe_torch()

    def why_not(self, needs):
        """None when this host has everything `needs` names, else why not."""
        for need, why in (("gpu", self.no_gpu), ("nvjpeg", self.no_nvjpeg), ("torch", self.no_torch)):
            if need in needs and why:
                return why
        return None


def probe_torch():
    """(None, versions) where torch sees a GPU, else (why not, None)."""
    code = ("import torch, torchvision; assert torch.cuda.is_available(), 'torch sees no GPU'; "
            "print('torch %s, torchvision %s' % (torch.__version__, torchvision.__version__))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode == 0:
        return None, done.stdout.strip()
    return "torch: " + (done.stderr.strip().splitlines() or ["?"])[-1], None


# ---- processes, timed whole -------------------------------------------------------------------

def become_subreaper():
    """Orphans of our children (gpublur's detached worker) become ours, so we can reap them and
    read their rusage. False where prctl is not there."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def children(pid):
    found = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found


def descendants(pid, exclude):
    out, todo = [], [c for c in children(pid) if c not in exclude]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children(p)
    return out


def pss_bytes(pid):
    """Proportional set size (shared pages split among their users), else RSS; 0 if gone."""
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        with open("/proc/%d/statm" % pid) as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def reap_orphans(exclude):
    """Waits for the children this script did not start (orphans it adopted as subreaper);
    returns the peak RSS in bytes of each."""
    peaks = []
    for orphan in [c for c in children(os.getpid()) if c not in exclude]:
        try:
            peaks.append(os.wait4(orphan, 0)[2].ru_maxrss * 1024)
        except ChildProcessError:
            pass
    return peaks


class MemorySampler(threading.Thread):
    """The peak over time of the summed PSS of this script's descendants (but `exclude`)."""

    def __init__(self, exclude):
        super().__init__(daemon=True)
        self.exclude, self.peak, self.done = exclude, 0, threading.Event()

    def run(self):
        while not self.done.wait(0.2):
            self.peak = max(self.peak, sum(pss_bytes(p) for p in descendants(os.getpid(), self.exclude)))

    def stop(self):
        self.done.set()
        self.join()
        return self.peak


class Run:
    """One whole process: wall seconds, when its detached worker ended, peak memory, exit."""

    def __init__(self, argv, stdout_path, exclude):
        sampler = MemorySampler(exclude)
        sampler.start()
        with open(stdout_path, "wb") as out, open(stdout_path + ".err", "w+b") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=out, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            self.wall = time.perf_counter() - start
            proc.returncode = self.code = os.waitstatus_to_exitcode(status)
            self.rss = usage.ru_maxrss * 1024
            self.worker_end = None
            orphans = reap_orphans(exclude)  # gpublur's detached worker, releasing the GPU
            if orphans:
                self.worker_end = time.perf_counter() - start
                self.rss = max([self.rss] + orphans)
            self.pss = sampler.stop()
            err.seek(0)
            self.stderr = err.read().decode(errors="replace")
        self.stdout_path = stdout_path

    def failure(self):
        """None if it succeeded, else what to print instead of its figures."""
        if self.code == 0:
            return None
        last = (self.stderr.strip().splitlines() or ["no message"])[-1]
        return "n/a (exit %d: %s)" % (self.code, last[:160])


class Dmon:
    """`nvidia-smi dmon -s u -d 1` in the background; per GPU the mean and max of each column."""

    def __init__(self, smi, path, exclude):
        self.path, self.proc, self.exclude = path, None, exclude
        if smi:
            self.out = open(path, "w")
            self.proc = subprocess.Popen([smi, "dmon", "-s", "u", "-d", "1"], stdout=self.out,
                                         stderr=subprocess.STDOUT)
            exclude.add(self.proc.pid)

    def stop(self):
        """{gpu: {column: [values]}}, or None without nvidia-smi."""
        if not self.proc:
            return None
        self.proc.terminate()
        self.proc.wait()
        self.out.close()
        self.exclude.discard(self.proc.pid)
        return parse_dmon(open(self.path).read())


def parse_dmon(text):
    columns, per_gpu = [], {}
    for line in text.splitlines():
        fields = line.split()
        if line.startswith("#") and len(fields) > 1 and fields[1] == "gpu":
            columns = fields[2:]
        elif fields and not line.startswith("#") and columns and len(fields) == len(columns) + 1:
            gpu = per_gpu.setdefault(fields[0], {})
            for name, value in zip(columns, fields[1:]):
                if value.isdigit():
                    gpu.setdefault(name, []).append(int(value))
    return per_gpu


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


def median(values):
    return statistics.median(values) if values else float("nan")


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


# ---- tables -----------------------------------------------------------------------------------

def device_cell(result):
    summary, files = result.get("summary"), result.get("files")
    if summary is None:
        return "-"
    codecs = sorted({"%s / %s" % (f["decoder"], f["encoder"]) for f in files
                     if "decoder" in f and "encoder" in f})
    return summary.get("device", "?") + (" (%s)" % "; ".join(codecs) if codecs else "")


def runs_cell(result):
    cells = []
    for run in result["runs"]:
        cell = "%.2f" % run.wall
        if run.worker_end is not None:
            cell += " (worker %.2f)" % run.worker_end
        cells.append(cell)
    return ", ".join(cells)


def print_row(n, config, result, pool_rate):
    if "na" in result:
        print("| %d | %s | %s | | | | | | | | |" % (n, config.label, result["na"]))
        return
    own = result.get("summary", {}).get("seconds")
    ratio = "%.2fx" % (result["rate"] / pool_rate) if pool_rate else "-"
    print("| %d | %s | %s | %.2f | %.1f | %s | %s | %.0f | %.0f | %.0f | %s |" % (
        n, config.label, device_cell(result), result["seconds"], result["rate"], ratio,
        "%.2f" % own if own is not None else "-", result["rss"] / 1e6, result["pss"] / 1e6, result["mb"],
        runs_cell(result)))
    sys.stdout.flush()


def print_steady(results, counts, configs):
    n1, n2 = sorted(counts)[-2:]
    print("\nSteady state from %d and %d files: (N2 - N1) / (t2 - t1)\n" % (n1, n2))
    print("| pipeline | t(%d) s | t(%d) s | steady images/s | vs pool |" % (n1, n2))
    print("|---|---|---|---|---|")
    pool = None
    for config in configs:
        a, b = results.get((config.label, n1), {}), results.get((config.label, n2), {})
        if "seconds" not in a or "seconds" not in b or b["seconds"] <= a["seconds"]:
            print("| %s | %s | | | |" % (config.label, a.get("na") or b.get("na") or "n/a (t2 <= t1)"))
            continue
        steady = (n2 - n1) / (b["seconds"] - a["seconds"])
        pool = steady if config.kind == "pool" else pool
        print("| %s | %.2f | %.2f | %.1f | %s |" % (config.label, a["seconds"], b["seconds"], steady,
                                                     "%.2fx" % (steady / pool) if pool else "-"))


def print_clocks(results, n, configs):
    rows = [(c, results.get((c.label, n), {}).get("summary", {}))
            for c in configs if c.kind == "gpublur"]
    rows = [(c, s) for c, s in rows if s.get("gpus")]
    print("\nWorker clocks at %d files (--json summary, last round; ms over the whole batch; workers "
          "that did nothing left out)\n" % n)
    if not rows:
        print("n/a (no GPU worker in any summary)")
        return
    keys = list(dict.fromkeys(k for _, s in rows for g in s["gpus"] for k in g.get("worker_ms", {})))
    print("| pipeline | GPU | worker | images | launches | busy ms | %s |" % " | ".join(keys))
    print("|---|---|---|---|---|---|" + "---|" * len(keys))
    for config, summary in rows:
        for g in summary["gpus"]:
            ms = g.get("worker_ms", {})
            if not g.get("images") and not g.get("launches") and not any(ms.values()):
                continue
            print("| %s | %s | %s | %d | %d | %.0f | %s |" % (
                config.label, g.get("ordinal"), "JPEG" if g.get("jpeg") else "host", g.get("images", 0),
                g.get("launches", 0), g.get("busy_ms", 0),
                " | ".join("%.0f" % ms[k] if k in ms else "-" for k in keys)))


def print_stages(results, n, configs):
    rows = [(c, results.get((c.label, n), {}).get("files")) for c in configs if c.kind == "gpublur"]
    rows = [(c, files) for c, files in rows if files]
    print("\nPer-file stage medians at %d files (ms; GPU stages include waiting for a stack)\n" % n)
    if not rows:
        print("n/a (no gpublur row ran)")
        return
    keys = list(dict.fromkeys(k for _, files in rows for f in files for k in f["ms"]))
    print("| pipeline | %s |" % " | ".join(keys))
    print("|---|" + "---|" * len(keys))
    for config, files in rows:
        cells = [median([f["ms"][k] for f in files if k in f["ms"]]) for k in keys]
        print("| %s | %s |" % (config.label, " | ".join("-" if c != c else "%.2f" % c for c in cells)))


def print_dmon(results, n, configs, host):
    print("\n`nvidia-smi dmon -s u -d 1` during the last round at %d files (mean / max %% of the "
          "samples while the process ran)\n" % n)
    if not host.smi or host.no_gpu:
        print("n/a (%s)" % ("nvidia-smi not found" if not host.smi else host.no_gpu))
        return
    print("| pipeline | GPU | SM % | JPG % | samples |")
    print("|---|---|---|---|---|")
    for config in configs:
        dmon = results.get((config.label, n), {}).get("dmon")
        for gpu, cols in sorted((dmon or {}).items()):
            print("| %s | %s | %s | %s | %d |" % (config.label, gpu, mean_max(cols.get("sm")),
                                                  mean_max(cols.get("jpg")), len(cols.get("sm", []))))


def mean_max(values):
    return "%.0f / %d" % (statistics.mean(values), max(values)) if values else "n/a"


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
