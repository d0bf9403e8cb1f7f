#!/usr/bin/env python3
"""layers_test.py ROOT — every #include in src/ points down the layer order.

The order is written once, in docs/design.md, on the line that starts with "Layers, bottom
first:". A file in src/LAYER may include its own layer and the layers below it, the kernels/
headers shared with NVRTC, and system headers; never a layer above. Exits 1 and names each climb."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
design = open(os.path.join(root, 'docs', 'design.md'), encoding='utf-8').read()
match = re.search(r'^Layers, bottom first: (.+)$', design, re.MULTILINE)
if not match:
    sys.exit('docs/design.md has no line "Layers, bottom first: base < image < ..."')
order = [name.strip(' `.') for name in match.group(1).split('<')]
rank = {name: i for i, name in enumerate(order)}

src = os.path.join(root, 'src')
kernels = set(os.listdir(os.path.join(root, 'kernels')))
folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
problems = [f'src/{d}/ is not in the order of docs/design.md' for d in folders if d not in rank]
problems += [f'{name} of the order has no folder src/{name}/' for name in order if name not in folders]
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
checked = 0
for layer in folders:
    for name in sorted(os.listdir(os.path.join(src, layer))):
        path = os.path.join(src, layer, name)
        if os.path.isdir(path):
            problems.append(f'src/{layer}/{name}: a folder is flat inside')
            continue
        if not name.endswith(('.hpp', '.cpp', '.h')):
            continue
        for target in include.findall(open(path, encoding='utf-8').read()):
            checked += 1
            if '/' not in target:
                if target not in kernels:
                    problems.append(f'src/{layer}/{name}: "{target}" names no layer folder')
                continue
            to = target.split('/')[0]
            if not os.path.exists(os.path.join(src, target)):
                problems.append(f'src/{layer}/{name}: "{target}" does not exist')
            elif to not in rank or layer not in rank:
                continue  # reported above
            elif rank[to] > rank[layer]:
                problems.append(f'src/{layer}/{name} includes "{target}": {to} is above {layer}')
for p in problems:
    print(p)
print(f'{checked} includes in {len(folders)} layers checked; {len(problems)} problems')
sys.exit(1 if problems else 0)
