"""batch_processes.py — how photo_batch.py runs and measures a whole process: what the host can
run (gpublur's GPUs, nvJPEG, torch, nvidia-smi), the process's wall time and peak memory (RSS by
rusage, PSS of every descendant sampled 5 times a second; this script a child subreaper, so
gpublur's detached worker is reaped and timed here) and nvidia-smi dmon beside it."""
import ctypes, os, shutil, subprocess, sys, threading, time


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
