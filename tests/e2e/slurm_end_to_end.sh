#!/usr/bin/env bash
# slurm_end_to_end.sh BIN — gpublur --shard auto under a real Slurm: starts munged, slurmctld and
# slurmd on this host (Debian's slurm-wlm 22.05 and munge, installed by scripts/install-deps.sh;
# configuration, state and logs in a temporary directory), submits a job array of 4 tasks that
# blur one folder on the CPU, and checks that every output is written by exactly one task and is
# byte-identical to a single-process run (the job script is docs/slurm/blur-array.sbatch, and the
# per-task --json outputs are merged by scripts/merge_summaries.py). Then it cancels one task of a
# fresh array mid-run, resubmits that task alone with --skip-existing, and checks the same. The
# Kubernetes example (docs/kubernetes) is checked for what gpublur reads from it. Needs root (or sudo) to
# start slurmd. If Slurm cannot start, the test fails: it is never skipped.
set -u
bin=$(readlink -f "$1")
docs=$(cd "$(dirname "$0")/../../docs" && pwd)
merge=$(cd "$(dirname "$0")/../../scripts" && pwd)/merge_summaries.py
python=/usr/bin/python3
work=$(mktemp -d /tmp/gpublur-slurm.XXXXXX)
chmod 755 "$work"
failures=0
passes=0
pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { if eval "$1"; then pass; else fail "$2"; fi; }
die() {
  echo "FAIL: $*"
  for log in "$work"/*.log; do [ -f "$log" ] && { echo "--- $log"; tail -20 "$log"; }; done
  exit 1
}

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  sudo -n true 2>/dev/null || die "starting slurmd needs root or passwordless sudo"
  as_root=(sudo -n)
fi
for tool in munged mungekey slurmctld slurmd sbatch squeue scancel scontrol; do
  command -v "$tool" >/dev/null || die "$tool not found: run scripts/install-deps.sh"
done

# Ports unlikely to be taken; a second run of the test on the host would pick the same, so stop
# any daemons a killed earlier run left behind (they are ours: their config names gpublur-slurm).
pkill -f "gpublur-slurm\.[A-Za-z0-9]*/slurm.conf" 2>/dev/null
pkill -f "gpublur-slurm\.[A-Za-z0-9]*/munge" 2>/dev/null
sleep 0.5
ctld_port=$((20000 + RANDOM % 20000))
slurmd_port=$((ctld_port + 1))
cleanup() {
  [ -f "$work/slurmd.pid" ] && "${as_root[@]}" kill "$(cat "$work/slurmd.pid")" 2>/dev/null
  [ -f "$work/slurmctld.pid" ] && kill "$(cat "$work/slurmctld.pid")" 2>/dev/null
  [ -f "$work/munged.pid" ] && kill "$(cat "$work/munged.pid")" 2>/dev/null
  sleep 0.5
  "${as_root[@]}" rm -rf "$work"
}
trap cleanup EXIT

# munge: a key and a daemon of our own, on a socket in the work directory.
mkdir -p "$work/munge"
chmod 700 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" 2>"$work/mungekey.log" ||
  die "mungekey failed"
munged --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
  --pid-file="$work/munged.pid" --log-file="$work/munged.log" --seed-file="$work/munge/seed" \
  --force 2>>"$work/munged.log" || die "munged did not start"

host=$(hostname -s)
node=$(slurmd -C | head -1)  # NodeName=HOST CPUs=... RealMemory=...: this machine as Slurm sees it
mkdir -p "$work/state" "$work/spool"
cat >"$work/slurm.conf" <<EOF
ClusterName=gpublurtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CryptoType=crypto/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=3
MaxArraySize=1000
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=gpublur Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
export SLURM_CONF="$work/slurm.conf"
slurmctld -f "$SLURM_CONF" || die "slurmctld did not start"
"${as_root[@]}" env SLURM_CONF="$SLURM_CONF" slurmd -f "$SLURM_CONF" || die "slurmd did not start"
for _ in $(seq 60); do
  state=$(sinfo -h -N -o '%t' 2>/dev/null | head -1)
  [ "$state" = "idle" ] && break
  sleep 1
done
[ "$state" = "idle" ] || die "the node did not become idle (state '$state')"
echo "Slurm $(sinfo -V | cut -d' ' -f2): node $host idle"

# Inputs: 160 small photos-like PNG and JPEG images of varied sizes.
"$python" - "$work/in" <<'EOF' || die "could not draw the inputs"
import os, sys, numpy as np, cv2
root = sys.argv[1]
os.makedirs(root)
rng = np.random.default_rng(11)
for i in range(160):
    h, w = int(rng.integers(60, 240)), int(rng.integers(60, 320))
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * 2 + i) % 256, (y * 3) % 256, (x + y) % 256], -1)
    img = (img + rng.integers(0, 30, img.shape)).clip(0, 255).astype(np.uint8)
    assert cv2.imwrite(os.path.join(root, "img%03d%s" % (i, (".png", ".jpg")[i % 2])), img)
EOF
blur=(--sigma 2 --device cpu --threads 1)
"$bin" "$work/in" -o "$work/reference" "${blur[@]}" -q || die "the single-process reference run failed"

# Waits for array job $1 to leave the queue (at most $2 seconds).
wait_for() {
  for _ in $(seq "$2"); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 1
  done
  return 1
}

# Same files, same bytes as the reference; no temporaries left.
same_as_reference() {
  local dir=$1 missing=0 differ=0
  for f in "$work/reference"/*; do
    if [ ! -f "$dir/$(basename "$f")" ]; then
      missing=$((missing + 1))
    elif ! cmp -s "$f" "$dir/$(basename "$f")"; then
      differ=$((differ + 1))
    fi
  done
  local extra=$(($(ls -A "$dir" | wc -l) - $(ls -A "$work/reference" | wc -l)))
  check '[ "$missing" -eq 0 ] && [ "$differ" -eq 0 ] && [ "$extra" -eq 0 ]' \
    "$dir: $missing missing, $differ differ, $extra extra files (temporaries?)"
}

# Each output "done" in exactly one task's --json lines.
done_once() {
  local outputs
  outputs=$(cat "$@" | grep -o '"output": "[^"]*", "status": "done"' | sort)
  check '[ "$(echo "$outputs" | wc -l)" -eq 160 ] && [ -z "$(echo "$outputs" | uniq -d)" ]' \
    "160 outputs each done once: $(echo "$outputs" | wc -l) done, duplicates: $(echo "$outputs" | uniq -d | head -3)"
}

# 1. docs/clusters.md's example script (docs/slurm/blur-array.sbatch) as an array of 4 tasks, each its
# part; this test node has no GPUs, so --gres=none and --device cpu.
job=$(GPUBLUR="$bin" sbatch --parsable --array=0-3 --gres=none --cpus-per-task=1 \
  -o "$work/task-%a.json" -e "$work/task-%a.err" "$docs/slurm/blur-array.sbatch" \
  "$work/in" "$work/out" --sigma 2 --device cpu -v) || die "sbatch failed"
wait_for "$job" 300 || die "array job $job did not finish in 300 s: $(squeue -j "$job")"
for k in 0 1 2 3; do
  check 'grep -q "\"shard\": {\"index\": $k, \"count\": 4" "$work/task-$k.json"' \
    "task $k ran part $k/4: $(tail -2 "$work/task-$k.err")"
  check 'grep -q "shard $k/4 from Slurm (SLURM_ARRAY_TASK_ID=$k" "$work/task-$k.err"' \
    "task $k says where its part came from: $(grep shard "$work/task-$k.err")"
done
done_once "$work"/task-?.json
same_as_reference "$work/out"
"$python" "$merge" "$work"/task-?.json >"$work/merged" 2>"$work/merged.err"
code=$?
check '[ $code -eq 0 ] && grep -q "\"files\": 160, \"done\": 160, \"failed\": 0, \"skipped\": 0" "$work/merged"' \
  "the merged summary: $(cat "$work/merged" "$work/merged.err")"
"$python" "$merge" "$work"/task-[013].json >/dev/null 2>"$work/merged.err"
code=$?
check '[ $code -eq 1 ] && grep -q "missing parts \[2\]" "$work/merged.err"' \
  "a missing part is found: $(cat "$work/merged.err")"

# 2. A fresh array, listing the same images (--from-list) in a copy of the folder where one file of
# task 2's part is a FIFO that nobody writes: the task does the other 39 files of its part and
# waits on that one, so it is cancelled part-way every time. Then the FIFO becomes the image and
# task 2 is resubmitted alone with --skip-existing.
cp -r "$work/in" "$work/in2"
rm "$work/in2/img022.png"
mkfifo "$work/in2/img022.png"  # sorted position 22: in part 22 mod 4 = 2
ls -d "$work/in2"/* >"$work/list"
cat >"$work/listed.sh" <<EOF
#!/bin/bash
exec "$bin" --from-list "$work/list" -o "$work/out2" --shard auto --sigma 2 --device cpu --threads 2 --json "\$@"
EOF
chmod +x "$work/listed.sh"
job=$(sbatch --parsable --array=0-3 -o "$work/listed-%a.json" -e "$work/listed-%a.err" \
  "$work/listed.sh") || die "sbatch failed"
for _ in $(seq 600); do
  [ "$(grep -c '"status": "done"' "$work/listed-2.json" 2>/dev/null)" = 39 ] && break
  sleep 0.1
done
check '[ "$(squeue -h -j "${job}_2" -o %T)" = RUNNING ]' "task 2 is running (waiting on the FIFO)"
scancel "${job}_2"
wait_for "$job" 120 || die "array job $job did not finish in 120 s"
first=$(grep -c '"status": "done"' "$work/listed-2.json")
check '[ "$first" -eq 39 ]' "the cancelled task 2 did 39 of its 40 files, not $first"
check '! ls -A "$work/out2" | grep -q "gpublur-"' "no temporary file left by the cancelled task"
rm "$work/in2/img022.png"
cp "$work/in/img022.png" "$work/in2/img022.png"
# Task 2 alone (--array=2): its own array has one task, so --shard-count says how many parts.
job=$(sbatch --parsable --array=2 -o "$work/retry.json" -e "$work/retry.err" \
  "$work/listed.sh" --skip-existing --shard-count 4) || die "sbatch failed"
wait_for "$job" 120 || die "job $job did not finish in 120 s"
check 'grep -q "\"done\": 1, \"failed\": 0, \"skipped\": 39," "$work/retry.json"' \
  "the retry did the last file and skipped the 39 already there: $(grep summary "$work/retry.json") $(cat "$work/retry.err")"
done_once "$work"/listed-?.json "$work/retry.json"
same_as_reference "$work/out2"
"$python" "$merge" "$work"/listed-?.json "$work/retry.json" >"$work/merged" 2>"$work/merged.err"
code=$?
check '[ $code -eq 0 ] && grep -q "\"files\": 160, \"done\": 160, \"failed\": 0, \"skipped\": 0" "$work/merged"' \
  "the merged summary of the retried run: $(cat "$work/merged" "$work/merged.err")"

# 3. The Kubernetes example cannot run here, but what gpublur reads from it is checked: an
# Indexed Job whose pods run --shard auto with GPUBLUR_SHARD_COUNT equal to its completions, and
# gpublur given that environment takes the part the index names.
"$python" - "$docs/kubernetes/blur-indexed-job.yaml" >"$work/k8s" 2>&1 <<'EOF'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
spec = job["spec"]
container = spec["template"]["spec"]["containers"][0]
env = {e["name"]: e["value"] for e in container["env"]}
command = container["command"]
assert job["kind"] == "Job" and spec["completionMode"] == "Indexed", "not an Indexed Job"
assert int(env["GPUBLUR_SHARD_COUNT"]) == spec["completions"], "count != completions"
assert command[command.index("--shard") + 1] == "auto" and "--skip-existing" in command
print(spec["completions"])
EOF
code=$?
check '[ $code -eq 0 ]' "the Kubernetes manifest: $(cat "$work/k8s")"
count=$(tail -1 "$work/k8s")
env -i PATH="$PATH" JOB_COMPLETION_INDEX=5 GPUBLUR_SHARD_COUNT="$count" "$bin" "$work/in" -o "$work/k8s-out" \
  --shard auto --sigma 2 --device cpu -v -q 2>"$work/k8s.err"
check 'grep -q "shard 5/$count from Kubernetes (JOB_COMPLETION_INDEX=5, GPUBLUR_SHARD_COUNT=$count): 10 of 160 files" "$work/k8s.err"' \
  "an Indexed Job's pod 5 takes part 5: $(cat "$work/k8s.err")"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
