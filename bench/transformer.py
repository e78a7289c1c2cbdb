#!/usr/bin/env python3
"""The inbox's ranking by meaning with the full all-MiniLM-L6-v2 encoder in
place of the static table distilled from it, on the fictional stream.

    python3 bench/transformer.py MODEL_DIR [ABSTRACT_BYTES]

MODEL_DIR holds the wheel's model.safetensors and tokenizer.json (see
data/embed/README.md). Each catalog work (title and note) and each stream
record (title and the start of its abstract, ABSTRACT_BYTES, 150 as the
index reads, cut after a word) goes through tools/distill's `embed`; a
record's score is the mean cosine with its two nearest works, as the inbox
scores. Prints the measures of bench/inbox.py, by half, and the time the
encoder took. Compare with `cargo run --release --example inbox_meaning`.
"""
import json, os, subprocess, struct, sys, tempfile, time, tomllib

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
model = sys.argv[1]
budget = int(sys.argv[2]) if len(sys.argv) > 2 else 150
stream = os.path.join(root, "tests", "fixtures", "stream")

def cut(text, n):
    data = text.encode()
    if len(data) <= n:
        return text
    head = data[:n].decode(errors="ignore")
    space = max(head.rfind(" "), head.rfind("\n"))
    return head[:space] if space > 0 else head

works = []
for name in sorted(os.listdir(os.path.join(root, "catalog"))):
    if name.endswith(".toml") and name not in ("tags.toml", "ranking.toml", "list.toml"):
        for entry in tomllib.load(open(os.path.join(root, "catalog", name), "rb")).get("entry", []):
            if entry.get("tags"):
                works.append(f"{entry['title']} {entry.get('note', '')}")
labels = {l.split("\t")[0]: l.split("\t")[1] == "field" for l in open(os.path.join(stream, "labels.tsv"))}
records = [json.loads(l) for l in open(os.path.join(stream, "records.jsonl"))]
texts = works + [f"{r['title']} {cut(r.get('abstract') or '', budget)}" for r in records]

with tempfile.TemporaryDirectory() as tmp:
    given, vectors = os.path.join(tmp, "in.jsonl"), os.path.join(tmp, "out.f32")
    with open(given, "w") as f:
        for t in texts:
            f.write(json.dumps({"text": t}) + "\n")
    started = time.time()
    subprocess.run(["cargo", "run", "--release", "--quiet", "--manifest-path",
                    os.path.join(root, "tools", "distill", "Cargo.toml"), "--",
                    "embed", "--model", model, "--in", given, "--out", vectors], check=True)
    took = time.time() - started
    raw = open(vectors, "rb").read()
dims = len(raw) // 4 // len(texts)
rows = [struct.unpack_from(f"<{dims}f", raw, i * dims * 4) for i in range(len(texts))]
work_rows, record_rows = rows[: len(works)], rows[len(works):]
dot = lambda a, b: sum(x * y for x, y in zip(a, b))
scores = []
for r in record_rows:
    near = sorted((dot(r, w) for w in work_rows), reverse=True)[:2]
    scores.append(sum(near) / 2)
order = sorted(range(len(records)), key=lambda i: -scores[i])
field = lambda i: labels[records[i]["id"]]

def measure(ids, depth):
    relevant = sum(field(i) for i in ids)
    return sum(field(i) for i in ids[:depth]) / depth, sum(field(i) for i in ids[: 3 * depth]) / relevant

for name, parity in (("tuning", 0), ("held-out", 1)):
    p, r = measure([i for i in order if i % 2 == parity], 10)
    print(f"{name} half: precision@10 {p:.2}, recall@30 {r:.2}")
p, r = measure(order, 20)
print(f"whole stream: precision@20 {p:.2}, recall@60 {r:.2}")
print(f"{len(texts)} texts embedded by the encoder in {took:.1f} s (with cargo's start)")
