"""batch_tables.py — photo_batch.py's tables: one Markdown row per run (wall time, rate, the ratio
to the pool, memory, each round), the steady state between the two largest counts, the GPU
workers' clocks, the per-file stage medians and nvidia-smi dmon's utilisation."""
import statistics
import sys


def median(values):
    return statistics.median(values) if values else float("nan")


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


