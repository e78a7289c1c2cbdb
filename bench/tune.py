#!/usr/bin/env python3
"""Searches the ranking weights on the tuning half alone, by coordinate
ascent: each weight in turn is scaled by a few factors (and tried at 0),
and the best change is kept when it raises the tuning half's mean graded
nDCG@10 by at least --gain. Sweeps repeat until one changes nothing.

    python3 bench/tune.py [BINARY] [--sweeps N] [--gain G] [--abstracts]
                          [--weights a,b,...]

Never reads the held-out half: run bench/relevance.py once, with the
weights found (printed as a --ranking string), to report it.
"""
import argparse, os, re, subprocess

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("binary", nargs="?", default=os.path.join(root, "target", "release", "distml-search"))
parser.add_argument("--sweeps", type=int, default=3)
parser.add_argument("--gain", type=float, default=0.0015)
parser.add_argument("--abstracts", action="store_true")
parser.add_argument("--weights", help="the weights to search (default: every one the offline catalog exercises)")
args = parser.parse_args()

# The signals' keys and defaults, read from their table so they never drift.
source = open(os.path.join(root, "src", "search", "signals.rs")).read()
defaults = dict(re.findall(r"^\s+(\w+) / \w+ = (-?[0-9.]+),", source, re.M))
weights = {k: float(v) for k, v in defaults.items()}
# Offline, no catalog entry has an abstract or predicted tags, and no
# query of the set is an identifier.
searched = args.weights.split(",") if args.weights else [
    k for k in weights if k not in ("abstract_text", "predicted", "identifier")]
FACTORS = (0.0, 0.5, 0.75, 1.33, 2.0)

def ranking(w):
    return "; ".join(f"{k} = {v:g}" for k, v in w.items() if v != float(defaults[k]))

def score(w):
    command = ["python3", os.path.join(root, "bench", "relevance.py"), args.binary, "--half", "tuning"]
    if args.abstracts:
        command.append("--abstracts")
    text = ranking(w)
    if text:
        command += ["--ranking", text]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return float(re.search(r"^all\s+([0-9.]+)", out, re.M).group(1))

best = score(weights)
print(f"start: tuning nDCG@10 {best:.3f}", flush=True)
for sweep in range(1, args.sweeps + 1):
    changed = False
    for name in searched:
        start = weights[name]
        trials = {round(start * f, 4) for f in FACTORS} - {start}
        results = {v: score({**weights, name: v}) for v in sorted(trials)}
        value, result = max(results.items(), key=lambda kv: (kv[1], -abs(kv[0] - start)))
        if result >= best + args.gain:
            print(f"sweep {sweep}: {name} {start:g} -> {value:g}: {best:.3f} -> {result:.3f}", flush=True)
            weights[name], best, changed = value, result, True
    if not changed:
        break
print(f"end: tuning nDCG@10 {best:.3f}")
print(f'--ranking "{ranking(weights)}"')
