#!/usr/bin/env python3
"""Relevance of ranking weights on the relevance set, side by side.

    python3 bench/tune-ranking.py "" "note = 2.5" "synonym_text = 0.3; tag = 2.0"

Each argument is the body of a ranking.toml (';' separates lines; "" is the
defaults). For each, the shipped catalog is copied with that file, and
nDCG@10, MRR and the queries without a relevant entry in their top five are
printed. Needs a release build (cargo build --release).
"""
import json, math, os, shutil, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = os.path.join(root, "target", "release", "distml-search")
judgments = []
for line in open(os.path.join(root, "tests", "fixtures", "relevance.txt")):
    if " | " in line and not line.startswith("#"):
        query, ids = line.split(" | ", 1)
        judgments.append((query.strip(), set(ids.split())))


def measure(catalog, index):
    ndcg = rr = 0.0
    misses = []
    for query, relevant in judgments:
        out = subprocess.run([binary, "--catalog", catalog, "--index", index, "search", "--json", "-n", "10", query],
                             capture_output=True, text=True).stdout
        ranked = [json.loads(l)["id"] for l in out.splitlines()]
        gains = [1.0 if r in relevant else 0.0 for r in ranked]
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
        ideal = sum(1 / math.log2(i + 2) for i in range(min(10, len(relevant))))
        ndcg += dcg / ideal
        first = next((i for i, g in enumerate(gains) if g), None)
        rr += 0 if first is None else 1 / (first + 1)
        if first is None or first >= 5:
            misses.append(query)
    return ndcg / len(judgments), rr / len(judgments), misses


for setting in sys.argv[1:] or [""]:
    with tempfile.TemporaryDirectory() as work:
        catalog = os.path.join(work, "catalog")
        shutil.copytree(os.path.join(root, "catalog"), catalog)
        with open(os.path.join(catalog, "ranking.toml"), "w") as f:
            f.write(setting.replace(";", "\n"))
        ndcg, mrr, misses = measure(catalog, os.path.join(work, "index"))
        print(f"nDCG@10 {ndcg:.3f}  MRR {mrr:.3f}  misses {misses}  :: {setting or 'defaults'}")
