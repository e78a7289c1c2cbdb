#!/usr/bin/env bash
# The web API's latency beside the CLI's, in one run.
#
#   bash bench/serve.sh [RECORDS] [ROUNDS]
#
# DISTML_BIN names another build to measure (say, a copy of the previous
# commit's, to compare); without it the sources at hand are built.
#
# Indexes the shipped catalog (and, given RECORDS, that many synthetic arXiv
# records from bench/scale's generator, imported beside it), starts
# `distml-search serve --port 0` on that index, and times, alternating
# round by round over the scale harness's 20 queries:
#   - GET /api/search?q=QUERY&limit=10 on a kept-alive connection: the
#     server's search, facet counts of every match and JSON;
#   - distml-search search --json -n 10 QUERY: the CLI, a process each, the
#     index already built and in the page cache (warm).
# Reports p50 and p99 of each over every request, and the server's start
# (opening the index).
set -euo pipefail
cd "$(dirname "$0")/.."
records=${1:-0}
rounds=${2:-20}

if [ -z "${DISTML_BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${DISTML_BIN:-$PWD/target/release/distml-search}
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$bin" --index "$work/index" index --offline >/dev/null
if [ "$records" -gt 0 ]; then
  corpus=target/scale/corpus-$records.jsonl
  if [ ! -f "$corpus" ]; then
    mkdir -p target/scale
    cargo run --release --quiet --manifest-path bench/scale/Cargo.toml --bin generate -- "$records" >"$corpus.partial"
    mv "$corpus.partial" "$corpus"
  fi
  "$bin" --index "$work/index" import --arxiv-snapshot "$corpus" >/dev/null
fi

started=$(date +%s.%N)
"$bin" --index "$work/index" serve --port 0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
until [ -s "$work/serve.out" ]; do
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.err"; exit 1; }
  sleep 0.02
done
ready=$(date +%s.%N)
base=$(sed -n 's/^listening on //p' "$work/serve.out")

python3 - "$bin" "$work/index" "$base" "$rounds" "$records" "$started" "$ready" <<'PY'
import http.client, subprocess, sys, time, urllib.parse

bin, index, base, rounds, records, started, ready = sys.argv[1:8]
rounds = int(rounds)
queries = [
    "training", "memory", "gpu", "fragmentation", "carbon", "infiniband",
    "pipeline bubble", "expert sharding", "speculative decoding",
    "gradient checkpointing", "load balancing straggler", '"kv cache"',
    '"memory efficient"', '"tensor parallel"', "author:placeholder",
    "author:fictus offloading", "year:2020..2022 quantization",
    "year:2015 allreduce", "compiler kernel fusion", "elastic preemptible recovery",
]
host = urllib.parse.urlsplit(base)
connection = http.client.HTTPConnection(host.hostname, host.port)

def api(query):
    path = "/api/search?" + urllib.parse.urlencode({"q": query, "limit": 10})
    t = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    elapsed = time.perf_counter() - t
    assert response.status == 200, (query, response.status)
    return elapsed

def cli(query):
    t = time.perf_counter()
    subprocess.run([bin, "--index", index, "search", "--json", "-n", "10", query],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t

for q in queries:  # warm both: the page cache, the server's first touches
    api(q); cli(q)
times = {"api": [], "cli": []}
for _ in range(rounds):
    for q in queries:
        times["api"].append(api(q))
        times["cli"].append(cli(q))

def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] * 1000

size = f"the catalog and {int(records):,} synthetic records" if int(records) else "the shipped catalog"
print(f"{size}: {len(queries)} queries x {rounds} rounds, alternating")
print(f"  {'':52} {'p50 ms':>8} {'p99 ms':>8}")
for name, label in [("api", "GET /api/search (kept-alive HTTP, with facet counts)"),
                    ("cli", "distml-search search --json (a process each, warm)")]:
    print(f"  {label:52} {pct(times[name], .5):8.2f} {pct(times[name], .99):8.2f}")
print(f"  server start (index opened, listening): {(float(ready) - float(started)) * 1000:.0f} ms")
PY
