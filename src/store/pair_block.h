// Pair blocks: how co-occurrence counts are laid out as RocksDB entries.
//
// One entry per (row word, block of kBlockColumns context ids): the key is
//   'C' | row (4 bytes, big-endian) | col / kBlockColumns (4 bytes, big-endian)
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

struct ColumnValue {
  uint32_t col;    // absolute context id
  uint64_t value;  // fixed-point units, > 0
};

std::string EncodePairBlockKey(uint32_t row, uint32_t block);
// False when `key` is not a pair-block key.
bool DecodePairBlockKey(std::string_view key, uint32_t* row, uint32_t* block);

// Appends the fragment for `entries` (all in `block`, columns strictly
// ascending, values > 0) to *out.
void EncodeFragment(uint32_t block, const std::vector<ColumnValue>& entries, std::string* out);
// Decodes a fragment of `block` into *entries (replacing them). False on a
// malformed fragment (truncated, column outside the block or not ascending,
// zero value).
bool DecodeFragment(uint32_t block, std::string_view fragment, std::vector<ColumnValue>* entries);

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_PAIR_BLOCK_H_
