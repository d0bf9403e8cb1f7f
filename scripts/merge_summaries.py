#!/usr/bin/env python3
"""merge_summaries.py FILE... — one account of a batch run as shards (gpublur --shard ... --json).

Reads the --json output of every worker: one line per file ({"input": ..., "output": ...,
"status": ...}) and a final {"summary": ...} line; other lines are ignored. Checks that the shards
cover the batch: every part 0..N-1 has a summary, and every file of each part was blurred or
already there (--skip-existing) in its last attempt. A part run more than once (a retried task,
or one killed before its summary) counts its attempts together: an output is done if any attempt
wrote it, failed if its last attempt failed. Give the files in the order they were written
(retries last). Prints the merged summary as one JSON line on stdout and a sentence on stderr;
exits 0 when the batch is complete, 1 when a part is missing or has failures, 2 when the files
hold no shard summaries.

    python3 scripts/merge_summaries.py gpublur-1234_*.json
"""
import json
import sys


def records(paths):
    """(path, summary or None, file line or None) for each JSON line, in the order given."""
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.startswith("{"):
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    print("merge_summaries: %s: a damaged line (a worker killed mid-line?)" % path,
                          file=sys.stderr)
                    continue
                if "summary" in record:
                    yield path, record["summary"], None
                elif "output" in record and "status" in record:
                    yield path, None, record


def main(paths):
    parts = {}  # index -> [summary of each attempt, in order]
    counts = set()
    status = {}  # output -> "done" once any attempt wrote it, else its last status
    written = {"bytes_in": 0, "bytes_out": 0}  # of the files done
    for path, s, file_line in records(paths):
        if file_line is not None:
            if status.get(file_line["output"]) != "done":
                status[file_line["output"]] = file_line["status"]
                if file_line["status"] == "done":
                    for name in written:
                        written[name] += file_line.get(name, 0)
            continue
        shard = s.get("shard")
        if shard is None:
            print("merge_summaries: %s: a summary without a shard (not a --shard run)" % path,
                  file=sys.stderr)
            continue
        counts.add(shard["count"])
        parts.setdefault(shard["index"], []).append(s)
    if not parts:
        print("merge_summaries: no shard summaries in %s" % " ".join(paths), file=sys.stderr)
        return 2
    if len(counts) != 1:
        print("merge_summaries: the summaries disagree on the number of parts: %s"
              % sorted(counts), file=sys.stderr)
        return 1
    count = counts.pop()
    missing = [k for k in range(count) if k not in parts]
    merged = {"parts": count, "parts_found": len(parts), "missing_parts": missing,
              "files": 0, "done": 0, "failed": 0, "skipped": 0, "interrupted": 0,
              "bytes_in": written["bytes_in"], "bytes_out": written["bytes_out"],
              "seconds_max": 0.0, "summaries": 0, "incomplete_parts": []}
    for index, attempts in sorted(parts.items()):
        last = attempts[-1]
        merged["files"] += last["files"]
        merged["seconds_max"] = max(merged["seconds_max"], max(a["seconds"] for a in attempts))
        merged["summaries"] += len(attempts)
        if last["done"] + last["skipped"] != last["files"]:
            merged["incomplete_parts"].append(index)
    for name in ("done", "failed", "interrupted"):
        merged[name] = sum(1 for v in status.values() if v == name)
    # Skipped: outputs that were there before any attempt wrote them.
    merged["skipped"] = merged["files"] - merged["done"] - merged["failed"] - merged["interrupted"]
    complete = not missing and not merged["incomplete_parts"] and not merged["failed"]
    print(json.dumps({"merged_summary": merged}))
    print("merge_summaries: %d of %d parts; %d files: %d blurred, %d failed, %d skipped%s"
          % (len(parts), count, merged["files"], merged["done"], merged["failed"],
             merged["skipped"],
             "" if complete else "; INCOMPLETE: missing parts %s, parts with failures or files "
             "not done %s" % (missing, merged["incomplete_parts"])), file=sys.stderr)
    return 0 if complete else 1


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
