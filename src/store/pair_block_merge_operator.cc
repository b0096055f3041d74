#include "store/pair_block_merge_operator.h"

#include <algorithm>
#include <deque>
#include <exception>
#include <functional>
#include <utility>

#include <rocksdb/env.h>
#include <rocksdb/merge_operator.h>

#include "store/pair_block.h"
#include "util/sorted_merge.h"

namespace streamglove {

namespace {

bool AddChecked(uint64_t* sum, uint64_t v) { return !__builtin_add_overflow(*sum, v, sum); }

// Sums sorted, duplicate-free lists into *out (sorted, duplicate-free);
// false if a sum overflows.
bool SumSortedLists(const std::vector<std::vector<ColumnValue>>& lists,
                    std::vector<ColumnValue>* out) {
  out->clear();
  if (lists.size() == 1) {
    *out = lists[0];
    return true;
  }
  std::vector<size_t> pos(lists.size(), 0);
  const auto next = [&](size_t i, ColumnValue* item, bool* done) {
    *done = pos[i] == lists[i].size();
    if (!*done) *item = lists[i][pos[i]++];
    return Status::OK();
  };
  const auto less = [](const ColumnValue& a, const ColumnValue& b) { return a.col < b.col; };
  bool fits = true;
  const Status read =
      MergeSorted<ColumnValue>(lists.size(), next, less, [&](const ColumnValue& item) {
        if (out->empty() || out->back().col != item.col) {
          out->push_back(item);
          return true;
        }
        fits = AddChecked(&out->back().value, item.value);
        return fits;
      });
  return read.ok() && fits;
}

class PairBlockMergeOperator : public rocksdb::MergeOperator {
 public:
  const char* Name() const override { return kPairBlockMergeOperatorName; }

  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    std::vector<std::string_view> fragments;
    fragments.reserve(in.operand_list.size() + 1);
    if (in.existing_value != nullptr) fragments.push_back(View(*in.existing_value));
    for (const rocksdb::Slice& s : in.operand_list) fragments.push_back(View(s));
    return Sum(in.key, fragments, &out->new_value, in.logger);
  }

  // A false return here only makes RocksDB keep the operands unmerged; the
  // malformed one then fails the next FullMergeV2.
  bool PartialMergeMulti(const rocksdb::Slice& key, const std::deque<rocksdb::Slice>& operands,
                         std::string* new_value, rocksdb::Logger* logger) const override {
    std::vector<std::string_view> fragments;
    fragments.reserve(operands.size());
    for (const rocksdb::Slice& s : operands) fragments.push_back(View(s));
    return Sum(key, fragments, new_value, logger);
  }

 private:
  static std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

  static bool Sum(const rocksdb::Slice& key, const std::vector<std::string_view>& fragments,
                  std::string* out, rocksdb::Logger* logger) {
    uint32_t row = 0, block = 0;
    if (!DecodePairBlockKey(View(key), &row, &block)) {
      rocksdb::Log(rocksdb::InfoLogLevel::ERROR_LEVEL, logger,
                   "%s: merge on a key that is not a pair-block key", kPairBlockMergeOperatorName);
      return false;
    }
    bool ok = false;
    try {
      ok = SumPairBlockFragments(row, block, fragments, out);
    } catch (const std::exception& e) {  // bad_alloc: nothing may escape into RocksDB
      rocksdb::Log(rocksdb::InfoLogLevel::ERROR_LEVEL, logger, "%s: row %u block %u: %s",
                   kPairBlockMergeOperatorName, row, block, e.what());
      return false;
    }
    if (!ok) {
      rocksdb::Log(rocksdb::InfoLogLevel::ERROR_LEVEL, logger,
                   "%s: row %u block %u: malformed fragment or count overflow",
                   kPairBlockMergeOperatorName, row, block);
    }
    return ok;
  }
};

}  // namespace

std::shared_ptr<rocksdb::MergeOperator> NewPairBlockMergeOperator() {
  return std::make_shared<PairBlockMergeOperator>();
}

bool SumPairBlockFragments(uint32_t row, uint32_t block,
                           const std::vector<std::string_view>& fragments, std::string* out) {
  std::vector<std::vector<ColumnValue>> lists(fragments.size());
  size_t total = 0;
  for (size_t i = 0; i < fragments.size(); ++i) {
    if (!DecodeFragment(row, block, fragments[i], &lists[i])) return false;
    total += lists[i].size();
  }
  std::vector<ColumnValue> sum;
  sum.reserve(std::min<size_t>(total, PairBlockMaxColumns(row, block)));
  if (!fragments.empty() && !SumSortedLists(lists, &sum)) return false;
  out->clear();
  EncodeFragment(row, block, sum, out);
  return true;
}

}  // namespace streamglove
