#!/usr/bin/env python3
"""The inbox's precision on the fictional mixed stream
(tests/fixtures/stream: 40 papers of the field among 80 look-alikes).

    python3 bench/inbox.py [BINARY] [-v]

Imports the stream into a temporary index over a copy of the shipped
catalog, runs `inbox --json --limit 120` (every record, ranked) and prints,
for the whole stream, precision@20 (papers of the field among the top 20)
and recall@60 (the field's papers in the top 60), the targets of the
integration test; and the same at half the depths (precision@10,
recall@30) for each half of the stream, by line: the odd lines are the
tuning half (weights were chosen on it), the even lines the held-out half.
BINARY defaults to target/release/distml-search. -v prints the ranking.
"""
import argparse, json, os, shutil, subprocess, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("binary", nargs="?", default=os.path.join(root, "target", "release", "distml-search"))
parser.add_argument("-v", action="store_true")
args = parser.parse_args()

stream = os.path.join(root, "tests", "fixtures", "stream")
labels, half = {}, {}
for number, line in enumerate(open(os.path.join(stream, "labels.tsv")), start=1):
    arxiv, label, group = line.rstrip("\n").split("\t")
    labels[arxiv] = (label == "field", group)
for number, line in enumerate(open(os.path.join(stream, "records.jsonl")), start=1):
    half[json.loads(line)["id"]] = "tuning" if number % 2 == 1 else "held-out"

with tempfile.TemporaryDirectory() as tmp:
    catalog, index = os.path.join(tmp, "catalog"), os.path.join(tmp, "index")
    shutil.copytree(os.path.join(root, "catalog"), catalog)
    run = lambda *a: subprocess.run([args.binary, "--catalog", catalog, "--index", index, *a],
                                    capture_output=True, text=True, check=True).stdout
    run("import", "--arxiv-snapshot", os.path.join(stream, "records.jsonl"))
    ranked = [json.loads(l) for l in run("inbox", "--json", "--limit", "120").splitlines()]

def measure(ids, depth):
    relevant = sum(labels[i][0] for i in ids)
    found = sum(labels[i][0] for i in ids[: 3 * depth])
    return sum(labels[i][0] for i in ids[:depth]) / depth, found / relevant

order = [c["arxiv"] for c in ranked]
if args.v:
    for c in ranked:
        field, group = labels[c["arxiv"]]
        print(f"{c['rank']:>3} {c['score']:.3f} {'+' if field else ' '} {group:<17} {half[c['arxiv']]:<8} {c['title'][:70]}")
for name in ("tuning", "held-out"):
    ids = [i for i in order if half[i] == name]
    p, r = measure(ids, 10)
    print(f"{name} half ({len(ids)} records): precision@10 {p:.2f}, recall@30 {r:.2f}")
p, r = measure(order, 20)
print(f"whole stream ({len(order)} records): precision@20 {p:.2f}, recall@60 {r:.2f}")
