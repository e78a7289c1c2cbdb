#!/usr/bin/env bash
# The harvest at scale: 10,000 new records harvested (loopback OAI-PMH, no
# delay) into an index holding a million imported records, while searches
# run; then the same 10,000 replaced in one commit. Release builds:
#   cargo build --release
#   cargo build --release --manifest-path bench/scale/Cargo.toml --bin generate
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN:-$root/target/release/distml-search}
generate=${GENERATE:-$root/bench/scale/target/release/generate}
scale=$root/target/scale
port=${PORT:-18731}
mkdir -p "$scale"
cd "$scale"
if [ ! -f snapshot-1m.jsonl ] || [ ! -f new-10k.jsonl ]; then
  # Ids follow the record's number, so the last 10,000 are new to the first million.
  "$generate" 1010000 42 > corpus-1010000.jsonl
  head -n 1000000 corpus-1010000.jsonl > snapshot-1m.jsonl
  tail -n 10000 corpus-1010000.jsonl > new-10k.jsonl
fi
work=$(mktemp -d "$scale/harvest-XXXXXX")
cp -r "$root/catalog" "$work/catalog"
ds() { "$bin" --catalog "$work/catalog" --index "$work/index" "$@"; }
ds import --arxiv-snapshot snapshot-1m.jsonl

python3 "$root/bench/harvest/oai_mock.py" new-10k.jsonl "$port" 1000 &
mock=$!
searcher() { while true; do if ds search "pipeline parallelism" -n 1 >/dev/null 2>&1; then echo ok; else echo FAILED; fi; done; }
searcher > "$work/searches.log" &
searches=$!
trap 'kill $mock $searches 2>/dev/null || true' EXIT
sleep 2
/usr/bin/time -f "harvest: %e s wall, %M KB peak" env DISTML_OAI_API="http://127.0.0.1:$port/oai" DISTML_ARXIV_DELAY_MS=0 \
  "$bin" --catalog "$work/catalog" --index "$work/index" harvest --from 2000-01-01 --categories cs
kill $searches
echo "searches during the harvest: $(grep -c ok "$work/searches.log") answered, $(grep -c FAILED "$work/searches.log" || true) failed"
ds stats | grep '^index:'

# The same 10,000 again, in one commit: the index is told it has none of them.
python3 -c "import json,sys; p=sys.argv[1]; s=json.load(open(p)); s['indexed_bytes']=0; json.dump(s,open(p,'w'))" "$work/index/harvested/state.json"
/usr/bin/time -f "10,000 replaced in one commit: %e s wall (whole command)" env DISTML_OAI_API=http://127.0.0.1:9/oai \
   "$bin" --catalog "$work/catalog" --index "$work/index" harvest --categories cs || true
ds stats | grep '^index:'
rm -rf "$work"
