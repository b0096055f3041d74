#include "store/pair_block.h"

#include <cassert>

#include "util/coding.h"

namespace streamglove {

namespace {

constexpr size_t kPairKeySize = 9;

void PutFixed32BigEndian(std::string* dst, uint32_t v) {
  const char buf[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                       static_cast<char>(v >> 8), static_cast<char>(v)};
  dst->append(buf, sizeof(buf));
}

uint32_t GetFixed32BigEndian(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}

}  // namespace

std::string EncodePairBlockKey(uint32_t row, uint32_t block) {
  std::string key;
  key.reserve(kPairKeySize);
  key.push_back(kPairKeyPrefix);
  PutFixed32BigEndian(&key, row);
  PutFixed32BigEndian(&key, block);
  return key;
}

bool DecodePairBlockKey(std::string_view key, uint32_t* row, uint32_t* block) {
  if (key.size() != kPairKeySize || key[0] != kPairKeyPrefix) return false;
  *row = GetFixed32BigEndian(key.data() + 1);
  *block = GetFixed32BigEndian(key.data() + 5);
  return true;
}

void EncodeFragment(uint32_t row, uint32_t block, const std::vector<ColumnValue>& entries,
                    std::string* out) {
  // Encoded in pieces through a buffer on the stack: one append a piece,
  // not one a byte (the store's commit encodes every pair here).
  char buf[1024];
  char* const refill = buf + sizeof(buf) - 2 * kMaxVarint64Bytes;
  char* p = EncodeVarint64(buf, entries.size());
  uint64_t prev = uint64_t{block} * kBlockColumns;
  [[maybe_unused]] const uint64_t end = prev + PairBlockMaxColumns(row, block);
  for (const ColumnValue& e : entries) {
    assert(e.col >= prev && e.col < end && e.value > 0);
    if (p > refill) {
      out->append(buf, static_cast<size_t>(p - buf));
      p = buf;
    }
    p = EncodeVarint64(p, e.col - prev);
    p = EncodeVarint64(p, e.value);
    prev = e.col;
  }
  out->append(buf, static_cast<size_t>(p - buf));
}

bool DecodeFragment(uint32_t row, uint32_t block, std::string_view fragment,
                    std::vector<ColumnValue>* entries) {
  entries->clear();
  const char* p = fragment.data();
  const char* limit = p + fragment.size();
  uint64_t n = 0;
  // A block holds at most its columns' count of entries; checking this
  // first also keeps a corrupt count from driving a huge reserve().
  const uint64_t columns = PairBlockMaxColumns(row, block);
  if (!GetVarint64(&p, limit, &n) || n > columns) return false;
  const uint64_t first = uint64_t{block} * kBlockColumns;
  const uint64_t end = first + columns;  // exclusive
  entries->reserve(n);
  uint64_t col = first;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t delta = 0, value = 0;
    if (!GetVarint64(&p, limit, &delta) || !GetVarint64(&p, limit, &value)) return false;
    // Columns strictly ascend: only the first delta (from the block start) may be 0.
    if ((i > 0 && delta == 0) || delta >= columns || value == 0) return false;
    col += delta;
    if (col >= end || col > UINT32_MAX) return false;
    entries->push_back(ColumnValue{static_cast<uint32_t>(col), value});
  }
  return p == limit;
}

}  // namespace streamglove
