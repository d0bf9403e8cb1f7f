#!/usr/bin/env python3
"""warp_times.py — where a blur_mma.cu launch's time goes, warp by warp.

    warp_times.py instrument kernels/blur_mma.cu /tmp/timed.cu   # a copy that records its warps
    build/device/gpublur_bench --sizes 4k --channels 1 --ksizes 7 --naive-max 0 --iters 5 \\
        --mma-source /tmp/timed.cu > /tmp/w.txt                   # on the GPU
    warp_times.py report /tmp/w.txt                               # by the warp's place in the grid

The copy records each warp's start and end (%globaltimer), SM and place during one launch (the
fifth of its module, by an atomic ticket per warp, so warm-up launches are past), and the first
warp of the next launch prints them all: printing never delays a measured warp. The report
groups warps by their tile's place (interior, left and right columns, top and bottom rows) and
gives each group's median and longest warp and when its last warp ended: a one-wave kernel lasts
as long as its slowest warp. Its output, like the bench's rows, is checked as always; the records
cost a few registers, so compare instrumented copies with each other, not with the bench.
"""
import statistics
import sys

LAUNCH = 4  # the launch whose warps are recorded, counted from 0


def instrument(src, dst):
    s = open(src).read()
    entry = 'extern "C" __global__'
    if entry not in s or "  using namespace gb;\n" not in s:
        sys.exit(f"{src}: no gb_blur_kernel entry to instrument")
    k = s.index(entry)
    head = s[:k] + (
        "__device__ unsigned gb_warps_started = 0;\n"
        "__device__ unsigned long long gb_rec_t[65536][2];\n"
        "__device__ unsigned gb_rec_m[65536][2];\n")
    body = s[k:].replace("  using namespace gb;\n", f"""  using namespace gb;
  unsigned long long gb_t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gb_t0));
  const unsigned gb_total = gridDim.x * gridDim.y * gridDim.z * (blockDim.x / 32);
  unsigned gb_ticket = 0;
  if ((threadIdx.x & 31) == 0) gb_ticket = atomicAdd(&gb_warps_started, 1u);
  if ((threadIdx.x & 31) == 0 && gb_ticket == {LAUNCH + 1}u * gb_total) {{
    for (unsigned i = 0; i < gb_total && i < 65536; ++i) {{
      if (gb_rec_t[i][0] == 0) continue;  // a warp below the image
      printf("W %u %u %u %u %llu %llu %u %u %u\\n", gb_rec_m[i][0] & 0xffff, gb_rec_m[i][0] >> 16,
             gb_rec_m[i][1] & 0xff, (gb_rec_m[i][1] >> 8) & 1, gb_rec_t[i][0], gb_rec_t[i][1],
             gb_rec_m[i][1] >> 16, gridDim.x, gridDim.y);
    }}
  }}
""", 1)
    end = body.rstrip()
    if not end.endswith("}"):
        sys.exit(f"{src}: the kernel does not end its file")
    end = end[:-1] + f"""  unsigned long long gb_t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gb_t1));
  unsigned gb_sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(gb_sm));
  if (lane == 0 && gb_ticket / gb_total == {LAUNCH}u) {{
    const unsigned i = ((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * (blockDim.x / 32) + warp;
    if (i < 65536) {{
      gb_rec_t[i][0] = gb_t0;
      gb_rec_t[i][1] = gb_t1;
      gb_rec_m[i][0] = blockIdx.x | blockIdx.y << 16;
      gb_rec_m[i][1] = warp | (mode != kBorderChecks ? 256u : 0u) | gb_sm << 16;
    }}
  }}
}}
"""
    open(dst, "w").write(head + end)


def report(path):
    rows = []
    for line in open(path):
        if line.startswith("W "):
            rows.append(tuple(map(int, line.split()[1:10])))
    if not rows:
        sys.exit(f"{path}: no warp records (was the bench run with --mma-source of an instrumented copy?)")
    t0 = min(r[4] for r in rows)
    gx, gy = rows[0][7], rows[0][8]

    def place(r):
        bx, by, warp = r[0], r[1], r[2]
        names = [n for n, at in (("left", bx == 0), ("right", bx == gx - 1), ("top", by == 0 and warp == 0),
                                 ("bottom", by == gy - 1)) if at]
        return "+".join(names) or "interior"

    groups = {}
    for r in rows:
        groups.setdefault(place(r), []).append(r)
    print(f"{len(rows)} warps, grid {gx}x{gy}; the last ended {max(r[5] for r in rows) - t0} ns "
          f"after the first started; the last started at {max(r[4] for r in rows) - t0} ns")
    print(f"{'place':16s} {'warps':>5s} {'median ns':>10s} {'longest ns':>10s} {'last end ns':>11s} {'border checks':>13s}")
    for name in sorted(groups, key=lambda n: -len(groups[n])):
        g = groups[name]
        took = [r[5] - r[4] for r in g]
        print(f"{name:16s} {len(g):5d} {int(statistics.median(took)):10d} {max(took):10d} "
              f"{max(r[5] - t0 for r in g):11d} {sum(1 for r in g if not r[3]):13d}")
    ends = sorted(r[5] - t0 for r in rows)
    print("ends, percentiles (ns): " +
          " ".join(f"p{p}={ends[min(len(ends) - 1, len(ends) * p // 100)]}" for p in (10, 50, 90, 99, 100)))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "instrument":
        instrument(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "report":
        report(sys.argv[2])
    else:
        sys.exit(__doc__)
