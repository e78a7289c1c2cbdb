#!/usr/bin/env python3
"""How alike `similar`'s results are to the work asked about, by mode.

    python3 bench/similar.py [BINARY]

Imports the fictional stream (tests/fixtures/stream) beside the shipped
catalog, then asks `similar ID -n 5 --json` of every curated catalog entry
and of every stream record whose tags were written blind
(tests/fixtures/stream/tags.tsv), in each --mode. A result counts as alike
when it shares a tag with the work asked about: its curated tags, or its
blind tags for a stream record (never predicted tags). Prints precision@5
for catalog works and for stream records, which have no curated tags.
"""
import json, os, shutil, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "target", "release", "distml-search")
stream = os.path.join(root, "tests", "fixtures", "stream")
blind = {}
for line in open(os.path.join(stream, "tags.tsv")):
    arxiv, _, tags = line.rstrip("\n").partition("\t")
    if not arxiv[:1].isdigit():
        continue
    blind[arxiv] = set(t for t in tags.split(",") if t)

def tags_of(hit):
    if hit.get("collection") == "arxiv":
        return blind.get(hit.get("arxiv"), set())
    return set(hit.get("tags") or [])

with tempfile.TemporaryDirectory() as tmp:
    catalog, index = os.path.join(tmp, "catalog"), os.path.join(tmp, "index")
    shutil.copytree(os.path.join(root, "catalog"), catalog)
    run = lambda *a: subprocess.run([binary, "--catalog", catalog, "--index", index, *a],
                                    capture_output=True, text=True, check=True).stdout
    run("import", "--arxiv-snapshot", os.path.join(stream, "records.jsonl"))
    entries = [json.loads(l) for l in run("list", "--json").splitlines()]
    asked = [(e["id"], set(e["tags"]), "catalog") for e in entries if e.get("tags")]
    asked += [(f"arxiv:{a}", t, "stream") for a, t in sorted(blind.items()) if t]
    print(f"{sum(1 for a in asked if a[2] == 'catalog')} catalog works, "
          f"{sum(1 for a in asked if a[2] == 'stream')} stream records with blind tags")
    print("| mode | catalog works P@5 | stream records P@5 |")
    print("|---|---|---|")
    for mode in ("keyword", "semantic", "hybrid"):
        alike = {"catalog": [0, 0], "stream": [0, 0]}
        for work, tags, group in asked:
            hits = [json.loads(l) for l in run("similar", work, "-n", "5", "--json", "--mode", mode).splitlines()]
            alike[group][0] += sum(1 for h in hits if tags_of(h) & tags)
            alike[group][1] += 5
        print(f"| {mode} | {alike['catalog'][0] / alike['catalog'][1]:.3f} | {alike['stream'][0] / alike['stream'][1]:.3f} |")
