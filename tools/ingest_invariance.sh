#!/usr/bin/env bash
# Full-size invariance of ingest on the four wiki-plain JSONL shards (100 MB):
# the same store contents (md5 of the binary dump) with --threads 1 and 2, with
# the shards in reverse order, and ingested shard by shard. One vocabulary
# (from all four shards) serves every store, as incremental ingestion requires.
#
#   tools/ingest_invariance.sh [BUILD_DIR]     env: DATA_DIR, MEMORY (default 1G)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/streamglove
data=${DATA_DIR:-../shared/data}
memory=${MEMORY:-1G}
shards=("$data"/corpus/wiki-plain-0{0,1,2,3}.jsonl.zst)
[ -f "${shards[0]}" ] || { echo "SKIP: shards not found under $data"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sg-invariance.XXXXXX")
trap 'rm -rf "$work"' EXIT
flags=(--window 15 --memory "$memory" --vocab "$work/vocab.txt" -q)
checksum() { "$bin" dump --store "$1" --format glove | md5sum | cut -d' ' -f1; }

"$bin" vocab "${shards[@]}" --min-count 5 -o "$work/vocab.txt" -q
start=$(date +%s.%N)
"$bin" ingest --store "$work/t2" "${shards[@]}" --threads 2 "${flags[@]}"
echo "one go, 2 threads: $(echo "$(date +%s.%N) - $start" | bc) s"
reference=$(checksum "$work/t2")
"$bin" stats --store "$work/t2" | grep -E "pairs|sum|tokens"

"$bin" ingest --store "$work/t1" "${shards[@]}" --threads 1 "${flags[@]}"
"$bin" ingest --store "$work/reversed" "${shards[3]}" "${shards[2]}" "${shards[1]}" "${shards[0]}" "${flags[@]}"
for s in "${shards[@]}"; do "$bin" ingest --store "$work/by-shard" "$s" "${flags[@]}"; done

fail=0
for store in t1 reversed by-shard; do
  got=$(checksum "$work/$store")
  if [ "$got" = "$reference" ]; then echo "same contents: $store ($got)"; else echo "DIFFERENT: $store ($got vs $reference)"; fail=1; fi
done
exit $fail
