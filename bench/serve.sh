#!/usr/bin/env bash
# The web API's latency beside the CLI's, in one run.
#
#   bash bench/serve.sh [RECORDS] [ROUNDS]
#
# DISTML_BIN names another build to measure (say, a copy of the previous
# commit's, to compare); without it the sources at hand are built.
# DISTML_CORPUS names an existing snapshot to import instead of
# bench/scale's corpus of RECORDS (target/scale/corpus-RECORDS-42.jsonl,
# generated with seed 42, the scale harness's, when missing).
# DISTML_INDEX names an index already built (by `index --offline` and
# `import`): it is served as it is, neither built nor removed, so that
# several builds can be timed on one index, one run after another.
#
# Indexes the shipped catalog (and, given RECORDS, that many synthetic arXiv
# records, imported beside it), starts `distml-search serve --port 0` on
# that index, and times, alternating round by round over the scale
# harness's 20 queries:
#   - GET /api/search?q=QUERY&limit=10 on a kept-alive connection: the
#     server's search, facet counts of every match and JSON;
#   - distml-search search --json -n 10 QUERY: the CLI, a process each, the
#     index already built and in the page cache (warm).
# Reports p50 and p99 of each over every request, over the plain queries
# and over the quoted ones apart (a quoted phrase is matched in every
# abstract, so its ranking cannot prune), each query's median and slowest,
# and the server's start (opening the index).
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

if [ -n "${DISTML_INDEX:-}" ]; then
  index=$DISTML_INDEX
  [ -d "$index" ] || { echo "DISTML_INDEX=$index: no such index" >&2; exit 2; }
else
  index=$work/index
  "$bin" --index "$index" index --offline >/dev/null
  if [ "$records" -gt 0 ]; then
    corpus=${DISTML_CORPUS:-target/scale/corpus-$records-42.jsonl}
    if [ ! -f "$corpus" ]; then
      [ -z "${DISTML_CORPUS:-}" ] || { echo "DISTML_CORPUS=$corpus: no such file" >&2; exit 2; }
      mkdir -p target/scale
      cargo run --release --quiet --manifest-path bench/scale/Cargo.toml --bin generate -- "$records" 42 >"$corpus.partial"
      mv "$corpus.partial" "$corpus"
    fi
    "$bin" --index "$index" import --arxiv-snapshot "$corpus" >/dev/null
  fi
fi

started=$(date +%s.%N)
"$bin" --index "$index" serve --port 0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
until [ -s "$work/serve.out" ]; do
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.err"; exit 1; }
  sleep 0.02
done
ready=$(date +%s.%N)
base=$(sed -n 's/^listening on //p' "$work/serve.out")

python3 - "$bin" "$index" "$base" "$rounds" "$records" "$started" "$ready" <<'PY'
import http.client, statistics, subprocess, sys, time, urllib.parse

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
times = {(way, q): [] for way in ("api", "cli") for q in queries}
for _ in range(rounds):
    for q in queries:
        times["api", q].append(api(q))
        times["cli", q].append(cli(q))

def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] * 1000

def over(way, chosen):
    return [t for q in chosen for t in times[way, q]]

quoted = [q for q in queries if q.startswith('"')]
plain = [q for q in queries if q not in quoted]
size = f"the catalog and {int(records):,} synthetic records" if int(records) else "the shipped catalog"
print(f"{size}: {len(queries)} queries x {rounds} rounds, alternating")
print(f"  {'':52} {'p50 ms':>8} {'p99 ms':>8}")
for name, label in [("api", "GET /api/search (kept-alive HTTP, with facet counts)"),
                    ("cli", "distml-search search --json (a process each, warm)")]:
    for which, chosen in [("all", queries), (f"{len(plain)} plain", plain),
                          (f"{len(quoted)} quoted", quoted)]:
        values = over(name, chosen)
        print(f"  {label if which == 'all' else '  ' + which:52} "
              f"{pct(values, .5):8.2f} {pct(values, .99):8.2f}")
print(f"  server start (index opened, listening): {(float(ready) - float(started)) * 1000:.0f} ms")
print(f"  each query, ms: {'API median':>10} {'API max':>8} {'CLI median':>10}")
for q in queries:
    a, c = times["api", q], times["cli", q]
    print(f"    {q:32} {statistics.median(a) * 1000:10.2f} {max(a) * 1000:8.2f} "
          f"{statistics.median(c) * 1000:10.2f}")
PY
