#!/usr/bin/env python3
"""Re-runs every table generator in gen/ and compares its output with the
committed file named on the generator's '# output:' line."""
import os, subprocess, sys, tempfile

root = sys.argv[1] if len(sys.argv) > 1 else "."
gens = sorted(f for f in os.listdir(os.path.join(root, "gen")) if f.endswith(".py"))
bad = checked = 0
for g in gens:
    path = os.path.join(root, "gen", g)
    with open(path) as f:
        head = [f.readline() for _ in range(3)]
    target = next((h.split(":", 1)[1].strip() for h in head if h.startswith("# output:")), None)
    if not target:
        continue  # a helper module, not a generator
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out")
        subprocess.run([sys.executable, path, out], check=True, cwd=root)
        same = open(out, "rb").read() == open(os.path.join(root, target), "rb").read()
    checked += 1
    print(("ok   " if same else "DIFF ") + g + " -> " + target)
    bad += not same
print(f"{checked - bad} passed, {bad} failed")
sys.exit(1 if bad or not checked else 0)
