#!/usr/bin/env bash
# Runs every fuzz target (or those named) for a set time each, two at a time.
#
#   bash fuzz/run.sh [SECONDS] [TARGET...]      default: 300 s, every target
#
# Needs the nightly toolchain and cargo-fuzz (cargo install cargo-fuzz).
# The committed seeds in fuzz/corpus/TARGET, and the test fixtures of the
# same format in tests/fixtures, are read, never written: new inputs go to
# fuzz/work/TARGET. A crash is saved in fuzz/artifacts/TARGET;
# make it a regression test before fixing it.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-300}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build -O
# Seeds per target: its own folder, plus the test fixtures it parses.
seeds() {
  local dirs=()
  [ -d "corpus/$1" ] && dirs+=("corpus/$1")
  case $1 in
    arxiv | crossref | openalex) dirs+=("../tests/fixtures/$1") ;;
    markdown) dirs+=("../tests/fixtures") ;;
  esac
  [ ${#dirs[@]} -gt 0 ] && printf '%s\n' "${dirs[@]}"
  return 0
}
# A unit may take up to FUZZ_TIMEOUT seconds (30); the differential target
# builds its 24,000-record index before the first (its `init`).
run() {
  local target=$1
  mkdir -p "work/$target"
  mapfile -t seed_dirs < <(seeds "$target")
  cargo +nightly fuzz run -O "$target" "work/$target" "${seed_dirs[@]}" -- \
    -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-30}" -rss_limit_mb=2048 -print_final_stats=1 \
    >"work/$target.log" 2>&1 && status=ok || status=FAILED
  local runs
  runs=$(grep -E '^stat::number_of_executed_units' "work/$target.log" | awk '{print $2}')
  printf '%-10s %-6s %10s executions in %ss\n' "$target" "$status" "${runs:-?}" "$seconds"
}
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  run "${targets[i]}" &
  if [ $((i + 1)) -lt ${#targets[@]} ]; then run "${targets[i + 1]}" & fi
  wait
done
