#!/usr/bin/env bash
# Leave-one-out of the tag predictor over the curated catalog: micro
# precision, recall and F1 of the vocabulary baseline, TF-IDF with a
# logistic regression per tag, and the shipped combination, side by side.
#
#   bash bench/tags.sh [CATALOG_DIR]
#
# Each entry's tags are predicted by a model trained on all the other
# entries (terms, idf and regressions), and compared with its curated tags.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet --example tags -- "${1:-catalog}"
# The same predictor on records with abstracts: the fictional stream, whose
# tags were written blind to it (tests/fixtures/stream/tags.tsv).
cargo run --release --quiet --example stream_tags -- "${1:-catalog}"
