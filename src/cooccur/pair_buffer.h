// PairBuffer: co-occurrence increments outside the dense region, appended
// as (key, value) records and combined by sorting.
//
// key = row << 32 | col, so key order is (row, col) order. Sorting is an LSD
// radix sort over only the key bits the vocabulary needs, into a scratch array
// of the same size (hence 32 bytes per record of capacity), then equal keys
// are summed in place.
//
// Thread-safety: not thread-safe; each counting worker owns one.
#ifndef STREAMGLOVE_COOCCUR_PAIR_BUFFER_H_
#define STREAMGLOVE_COOCCUR_PAIR_BUFFER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "util/large_array.h"

namespace streamglove {

struct PairRecord {
  uint64_t key;    // row << 32 | col
  uint64_t value;  // fixed-point units
};

inline uint64_t PairKey(uint32_t row, uint32_t col) { return uint64_t{row} << 32 | col; }
inline uint32_t PairRow(uint64_t key) { return static_cast<uint32_t>(key >> 32); }
inline uint32_t PairCol(uint64_t key) { return static_cast<uint32_t>(key); }

class PairBuffer {
 public:
  // Holds up to `capacity` records, at first up to `initial_limit` of them
  // (Grow() raises the limit); ids are below `vocab_size`. The arrays are
  // mapped lazily, so memory past the limit is never touched.
  PairBuffer(size_t capacity, size_t initial_limit, uint32_t vocab_size);

  static constexpr size_t kBytesPerRecord = 2 * sizeof(PairRecord);

  bool full() const { return size_ == limit_; }
  size_t size() const { return size_; }
  // The records it holds before it is full.
  size_t limit() const { return limit_; }
  size_t capacity() const { return records_.size(); }
  // Doubles the limit, up to the capacity; false when it is there already.
  bool Grow() {
    if (limit_ == records_.size()) return false;
    limit_ = std::min(records_.size(), 2 * limit_);
    return true;
  }

  // REQUIRES: !full().
  void Add(uint32_t row, uint32_t col, uint64_t value) {
    records_[size_++] = PairRecord{PairKey(row, col), value};
  }

  // Sorts by key and sums records with equal keys; size() becomes the number
  // of distinct keys.
  void SortAndCombine();

  // The records; sorted after SortAndCombine() until the next Add().
  std::span<const PairRecord> records() const { return {records_.data(), size_}; }
  void Clear() { size_ = 0; }

 private:
  LargeArray<PairRecord> records_;
  LargeArray<PairRecord> scratch_;
  size_t size_ = 0;
  size_t limit_;  // <= records_.size()
  int id_bits_;   // bits needed for an id
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_PAIR_BUFFER_H_
