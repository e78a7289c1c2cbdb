#!/usr/bin/env bash
# Cold end-to-end search against the grep floor, and the offline rebuild time.
#
#   bash bench/search.sh [QUERY]
#
# Runs, side by side on this machine: `distml-search search QUERY` (a new
# process each time, index already built) and `rg -i QUERY` over the catalog
# exported as Markdown; then `distml-search index --offline`. Reports medians
# and the ratio. Installs hyperfine and ripgrep with apt if they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
query=${1:-pipeline}

for tool in hyperfine rg; do
  if ! command -v "$tool" >/dev/null; then
    apt-get install -y hyperfine ripgrep >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y hyperfine ripgrep >/dev/null; }
  fi
done

cargo build --release --quiet
bin=target/release/distml-search
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" export --format markdown -o "$work/list.md"
"$bin" --index "$work/index" index --offline >/dev/null

hyperfine --style basic --ignore-failure --warmup 3 --runs 50 --export-json "$work/search.json" -N \
  -n distml-search "$bin --index $work/index search --limit 10 '$query'" \
  -n "rg -i" "rg -i '$query' $work/list.md" >/dev/null 2>&1
hyperfine --style basic --warmup 2 --runs 20 --export-json "$work/index.json" -N \
  -n "index --offline" "$bin --index $work/index index --offline" >/dev/null 2>&1

python3 - "$work/search.json" "$work/index.json" "$query" <<'PY'
import json, sys
search = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
index = json.load(open(sys.argv[2]))["results"][0]
ms = lambda r: r["median"] * 1000
ours, floor = ms(search["distml-search"]), ms(search["rg -i"])
print(f"query {sys.argv[3]!r}, medians of {len(search['distml-search']['times'])} runs")
print(f"  distml-search search (cold process) {ours:8.2f} ms")
print(f"  rg -i over the exported list        {floor:8.2f} ms")
print(f"  ratio                               {ours / floor:8.2f}x  (target <= 3x)")
print(f"  index --offline (rebuild)           {ms(index):8.2f} ms  (target < 300 ms)")
PY
