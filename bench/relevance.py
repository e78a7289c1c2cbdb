#!/usr/bin/env python3
"""Graded relevance of a distml-search binary on the shipped catalog, by kind,
on the tuning half and the held-out half of tests/fixtures/relevance.tsv.

    python3 bench/relevance.py [BINARY] [--catalog DIR] [--ranking "key = value; ..."]
                               [--abstracts] [--half tuning|held-out] [--set NAME]
                               [--judgments FILE] [-v]

BINARY defaults to target/release/distml-search. --ranking writes a
ranking.toml into a copy of the catalog, to compare weights; tune on the
tuning half only. --abstracts gives every entry a stand-in abstract in
metadata.json, as `index` online would give about 80 of them: no real
abstract is available offline (nor written from memory), so each is the
entry's own title and note followed by the notes of three other entries
drawn at random (seed 7), which stand for the incidental words a real
abstract holds. --half runs one half alone (bench/tune.py searches weights
on the tuning half without reading the other). -v prints every query with
its nDCG and top three. --set NAME scores another set of the judgments
instead, all in one column (`fresh`, `sixteenth`, `regression`, ...);
--judgments FILE reads FILE instead of tests/fixtures/relevance.tsv (the
same format: a set not yet merged into it).
"""
import argparse, json, math, os, random, re, shutil, subprocess, tempfile
from collections import defaultdict

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("binary", nargs="?", default=os.path.join(root, "target", "release", "distml-search"))
parser.add_argument("--catalog", default=os.path.join(root, "catalog"))
parser.add_argument("--ranking")
parser.add_argument("--abstracts", action="store_true")
parser.add_argument("--half", choices=["tuning", "held-out"])
parser.add_argument("--set", default="graded", metavar="NAME")
parser.add_argument("--judgments", metavar="FILE", default=os.path.join(root, "tests", "fixtures", "relevance.tsv"))
parser.add_argument("-v", action="store_true")
args = parser.parse_args()

# Columns set, split, kind, query, judgments, under `#` lines and a header.
rows = [l.rstrip("\n").split("\t") for l in open(args.judgments) if not l.startswith("#")][1:]
judged = [(kind, query, {g.split("=")[0]: int(g.split("=")[1]) for g in ids.split()}, split == "held-out")
          for name, split, kind, query, ids in rows if name == args.set]
if not judged:
    parser.error(f"no set {args.set!r} in {args.judgments}")
halves = any(held for *_, held in judged)
if args.half and not halves:
    parser.error(f"the {args.set} set has no halves")

def write_stand_in_abstracts(catalog):
    import tomllib
    entries = []
    for name in sorted(os.listdir(catalog)):
        if name.endswith(".toml") and name not in ("tags.toml", "ranking.toml", "list.toml"):
            entries += tomllib.load(open(os.path.join(catalog, name), "rb")).get("entry", [])
    rng = random.Random(7)
    notes = [e.get("note", "") for e in entries]
    cache = {"version": 1, "entries": {}}
    for e in entries:
        others = " ".join(rng.sample(notes, 3))
        text = f"{e['title']}. {e.get('note', '')} {others}"
        cache["entries"][e["id"]] = {"abstract": {"value": text, "source": "arxiv"}}
    json.dump(cache, open(os.path.join(catalog, "metadata.json"), "w"), indent=2, sort_keys=True)

def dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))

with tempfile.TemporaryDirectory() as tmp:
    catalog = os.path.join(tmp, "catalog")
    shutil.copytree(args.catalog, catalog)
    if args.abstracts:
        write_stand_in_abstracts(catalog)
    if args.ranking:
        open(os.path.join(catalog, "ranking.toml"), "w").write(args.ranking.replace(";", "\n"))
    index = os.path.join(tmp, "index")
    table = defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    for kind, query, grades, held in judged:
        if args.half and held != (args.half == "held-out"):
            continue
        out = subprocess.run([args.binary, "--catalog", catalog, "--index", index, "search", "--json", "-n", "10", query],
                             capture_output=True, text=True).stdout
        ranked = [json.loads(l)["id"] for l in out.splitlines()][:10]
        gains = [grades.get(r, 0) for r in ranked]
        ideal = sorted(grades.values(), reverse=True)[:10]
        ndcg = dcg(gains) / dcg(ideal)
        first = next((i for i, g in enumerate(gains) if g), None)
        rr = 0.0 if first is None else 1.0 / (first + 1)
        recall = sum(1 for g in gains if g) / min(len(grades), 10)
        if args.v:
            print(f"{'H' if held else 'T'} {ndcg:.2f} {kind:<10} {query:<50} {' '.join(ranked[:3])}")
        for k in ("all",) if kind == "-" else ("all", kind):
            t = table[(k, held)]
            t[0] += ndcg; t[1] += rr; t[2] += recall; t[3] += 1
    first = "tuning: nDCG MRR R@10 (n)" if halves else f"{args.set}: nDCG MRR R@10 (n)"
    print(f"{'':<10} {first:>27}   {'held out: nDCG MRR R@10 (n)':>27}")
    for kind in sorted({k for k, _ in table}, key=lambda k: (k != "all", k)):
        row = lambda h: (lambda t: f"{t[0]/t[3]:.3f} {t[1]/t[3]:.3f} {t[2]/t[3]:.3f} ({t[3]:>3})" if t[3] else "-")(table[(kind, h)])
        print(f"{kind:<10} {row(False):>27}   {row(True):>27}")
