#!/usr/bin/env bash
# Full-size invariance of ingest on the four wiki-plain JSONL shards (100 MB):
# the same store contents (md5 of the binary dump) with --threads 1 and 2, with
# the shards in reverse order, and ingested shard by shard. One vocabulary
# (from all four shards) serves every store, as incremental ingestion requires.
#
#   bench/ingest_invariance.sh [BUILD_DIR]     env: SG_SHARED_DATA, MEMORY (default 1G)
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
[ -z "${1:-}" ] || sg_build "$1"
data=$SG_SHARED_DATA
memory=${MEMORY:-1G}
shards=("$data"/corpus/wiki-plain-0{0,1,2,3}.jsonl.zst)
sg_need "${shards[@]}"
sg_scratch invariance
flags=(--window 15 --memory "$memory" --vocab "$work/vocab.txt" -q)
checksum() { "$SG_BIN" dump --store "$1" --format glove | md5sum | cut -d' ' -f1; }

"$SG_BIN" vocab "${shards[@]}" --min-count 5 -o "$work/vocab.txt" -q
start=$(date +%s.%N)
"$SG_BIN" ingest --store "$work/t2" "${shards[@]}" --threads 2 "${flags[@]}"
echo "one go, 2 threads: $(echo "$(date +%s.%N) - $start" | bc) s"
reference=$(checksum "$work/t2")
"$SG_BIN" stats --store "$work/t2" | grep -E "pairs|sum|tokens"

"$SG_BIN" ingest --store "$work/t1" "${shards[@]}" --threads 1 "${flags[@]}"
"$SG_BIN" ingest --store "$work/reversed" "${shards[3]}" "${shards[2]}" "${shards[1]}" "${shards[0]}" "${flags[@]}"
for s in "${shards[@]}"; do "$SG_BIN" ingest --store "$work/by-shard" "$s" "${flags[@]}"; done

fail=0
for store in t1 reversed by-shard; do
  got=$(checksum "$work/$store")
  if [ "$got" = "$reference" ]; then echo "same contents: $store ($got)"; else echo "DIFFERENT: $store ($got vs $reference)"; fail=1; fi
done
exit $fail
