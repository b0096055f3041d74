// PairBuffer: co-occurrence increments outside the dense region, appended
// as (key, value) records and combined by sorting.
//
// key = row << 32 | col, so key order is (row, col) order. Combining sorts
// only the records added since the last combine (an LSD radix sort over only
// the key bits the vocabulary needs, through a scratch array of the same
// size: hence 32 bytes per record of capacity), then merges them with the
// sorted, combined records before them, summing equal keys. A buffer that
// combining keeps three quarters full so costs a quarter of a full sort and
// one linear merge per refill, not a full sort of everything it holds.
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
  // Holds up to `capacity` records; ids are below `vocab_size`. The arrays
  // are mapped lazily: pages are touched as records first reach them.
  PairBuffer(size_t capacity, uint32_t vocab_size);

  static constexpr size_t kBytesPerRecord = 2 * sizeof(PairRecord);

  bool full() const { return size_ == records_.size(); }
  size_t size() const { return size_; }
  size_t capacity() const { return records_.size(); }

  // REQUIRES: !full().
  void Add(uint32_t row, uint32_t col, uint64_t value) {
    records_[size_++] = PairRecord{PairKey(row, col), value};
  }

  // Sorts by key and sums records with equal keys; size() becomes the number
  // of distinct keys.
  void SortAndCombine();

  // The records; sorted after SortAndCombine() until the next Add().
  std::span<const PairRecord> records() const { return {records_.data(), size_}; }
  void Clear() { size_ = sorted_ = 0; }

 private:
  LargeArray<PairRecord> records_;
  LargeArray<PairRecord> scratch_;
  size_t size_ = 0;
  size_t sorted_ = 0;  // records_[0, sorted_) are sorted and distinct
  int id_bits_;        // bits needed for an id
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_PAIR_BUFFER_H_
