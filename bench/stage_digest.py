#!/usr/bin/env python3
"""One line of a gpublur --json run: each stage's median milliseconds over its files, and, per GPU,
the images it blurred and when (seconds since the run began) its context and first stack were
ready. For device scripts that time whole runs and want to see where each one's time went.

usage: stage_digest.py RUN.json
"""
import os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from photo_batch import gpublur_report  # noqa: E402


def main():
    files, summary = gpublur_report(sys.argv[1])
    summary = summary or {}
    stages = []
    for r in files:
        stages += [k for k in r["ms"] if k not in stages]
    text = " ".join("%s %.1f" % (k, statistics.median(r["ms"].get(k, 0) for r in files))
                    for k in stages)
    for g in summary.get("gpus", []):
        ready = g.get("ready_s") or {}
        text += "; GPU %s: %s images, context %s s, first stack %s s" % (
            g.get("ordinal"), g.get("images"), ready.get("context"), ready.get("first_stack"))
    print(text)


if __name__ == "__main__":
    main()
