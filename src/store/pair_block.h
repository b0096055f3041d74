// Pair blocks: how co-occurrence counts are laid out as RocksDB entries.
//
// One entry per (row word, block of context ids: kBlockColumns of them, or
// kWideBlockColumns where PairBlockOf says): the key is
//   'C' | row (4 bytes, big-endian) | first col / kBlockColumns (4 bytes, big-endian)
// so keys sort by (row, col); the value is a sparse fragment
//   varint(n) then n × (varint(column delta), varint(value))
// with columns ascending inside the block (the first delta is relative to the
// block's first column) and every value > 0, in fixed-point units (see
// StoreConfig::scale). Fragments of the same key are summed by
// PairBlockMergeOperator. Both encodings are on disk: never change them
// without a new kStoreFormatVersion.
#ifndef STREAMGLOVE_STORE_PAIR_BLOCK_H_
#define STREAMGLOVE_STORE_PAIR_BLOCK_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace streamglove {

inline constexpr uint32_t kBlockColumns = 4096;
inline constexpr char kPairKeyPrefix = 'C';

// Wide blocks (format 3 on): a pair that involves an id at or above
// kWideBlockFromId lies in a block of kWideBlockColumns columns, aligned to
// them. Ids are ranks at a store's first ingest, and later words follow
// them, so high ids are rare words, whose rows and columns are sparse:
// 4096-column blocks held about 5 pairs each there on wiki100M, so a key
// (and its overhead) for every few pairs. A row's blocks still partition
// its columns (narrow below the id, wide from it; a row at or above it is
// wide throughout), so keys keep sorting by (row, col). A block's key names
// its first column / kBlockColumns in either layout.
inline constexpr uint32_t kWideBlockFromId = 65536;
inline constexpr uint32_t kWideBlockColumns = 65536;
static_assert(kWideBlockFromId % kWideBlockColumns == 0 && kWideBlockColumns % kBlockColumns == 0);

// How a store's rows are cut into blocks: narrow throughout (formats 1-2)
// or wide from kWideBlockFromId (format 3).
enum class PairBlockLayout { kNarrow, kWide };

// Whether block (row, block) is a wide one under `layout`: the one rule
// behind PairBlockOf and PairBlockColumns. A narrow block's first column is
// at or above kWideBlockFromId exactly when all of its columns are.
inline bool IsWidePairBlock(PairBlockLayout layout, uint32_t row, uint32_t block) {
  return layout == PairBlockLayout::kWide &&
         (row >= kWideBlockFromId || uint64_t{block} * kBlockColumns >= kWideBlockFromId);
}
// The block (its first column / kBlockColumns) that holds (row, col). On
// the commit's path for every pair: constant divisors only.
inline uint32_t PairBlockOf(PairBlockLayout layout, uint32_t row, uint32_t col) {
  const uint32_t narrow = col / kBlockColumns;
  return IsWidePairBlock(layout, row, narrow)
             ? col / kWideBlockColumns * (kWideBlockColumns / kBlockColumns)
             : narrow;
}
// The columns block (row, block) spans under `layout`; a block's index is a
// multiple of this / kBlockColumns.
inline uint64_t PairBlockColumns(PairBlockLayout layout, uint32_t row, uint32_t block) {
  return IsWidePairBlock(layout, row, block) ? kWideBlockColumns : kBlockColumns;
}
// The most columns block (row, block) may span in either layout: what the
// merge operator, which knows no store, checks a fragment against.
inline uint64_t PairBlockMaxColumns(uint32_t row, uint32_t block) {
  return PairBlockColumns(PairBlockLayout::kWide, row, block);
}

struct ColumnValue {
  uint32_t col;    // absolute context id
  uint64_t value;  // fixed-point units, > 0
};

std::string EncodePairBlockKey(uint32_t row, uint32_t block);
// False when `key` is not a pair-block key.
bool DecodePairBlockKey(std::string_view key, uint32_t* row, uint32_t* block);

// Appends the fragment for `entries` (all in block (row, block), columns
// strictly ascending, values > 0) to *out.
void EncodeFragment(uint32_t row, uint32_t block, const std::vector<ColumnValue>& entries,
                    std::string* out);
// Decodes a fragment of block (row, block) into *entries (replacing them).
// False on a malformed fragment (truncated, column outside the block's
// PairBlockMaxColumns or not ascending, zero value).
bool DecodeFragment(uint32_t row, uint32_t block, std::string_view fragment,
                    std::vector<ColumnValue>* entries);

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_PAIR_BLOCK_H_
