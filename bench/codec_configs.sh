#!/usr/bin/env bash
# codec_configs.sh [GPUBLUR] [EXTRA...] — the JPEG batch (photo_set.py's 500 1080p and 100 4K
# q95 crops of real photographs in /tmp/bb, from bench/fetch_photos.sh) with each --codec, two
# rounds each: images/s, which decoder and encoder took the files, and the mean per-file ms of
# the GPU's stages and the stack size (from --json). Where the GPU's codec is slower than
# expected, this says whether the decoder, the encoder or the stacks are why. EXTRA: more gpublur
# options (e.g. --devices 0,0).
G=${1:-build/device/gpublur}
shift || true
python3 bench/photo_set.py .carry/photos /tmp/bb --hd 500 --uhd 100 || exit 1
for set in hd-jpg uhd-jpg; do
  n=$(ls /tmp/bb/$set | wc -l)
  for cfg in "--codec auto" "--codec gpu" "--codec cpu"; do
    for r in 1 2; do
      rm -rf /tmp/o; s=$(date +%s.%N)
      $G /tmp/bb/$set -o /tmp/o --size 7 --sigma 1.5 -q --no-detach --json $cfg "$@" > /tmp/j.json
      e=$(date +%s.%N)
      echo "$set $cfg round $r: $(python3 -c "print('%.1f img/s' % ($n/($e-$s)))") $(python3 - <<'PY'
import json,statistics
st={}; dec={}; enc={}
workers=[]
for l in open('/tmp/j.json'):
    r=json.loads(l)
    for g in r.get('summary', {}).get('gpus', []):
        workers.append('%s worker: %d images in %d stacks, GPU busy %.0f ms; thread ms %s' % (
            'JPEG' if g.get('jpeg') else 'host', g['images'], g['launches'], g['busy_ms'],
            ', '.join('%s %.0f' % kv for kv in g.get('worker_ms', {}).items())))
    if 'ms' not in r: continue
    dec[r.get('decoder','?')]=dec.get(r.get('decoder','?'),0)+1
    enc[r.get('encoder','?')]=enc.get(r.get('encoder','?'),0)+1
    for k,v in r['ms'].items(): st.setdefault(k,[]).append(v)
    st.setdefault('stacked',[]).append(r.get('stacked',0))
print(dec, enc, ', '.join('%s %.1f'%(k,statistics.mean(v)) for k,v in st.items() if k in ('gpu decode','gpu encode','gpu wait','decode','stacked','kernel')))
for w in workers: print('    ' + w)
PY
)"
    done
  done
done
