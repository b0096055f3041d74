// The RocksDB merge operator that sums pair-block fragments (pair_block.h).
//
// Every operand and existing value of a pair-block key is a sparse fragment
// of that key's block; the merge result is the fragment holding, for every
// column present in any input, the sum of its values. A malformed input, a
// key that is not a pair-block key, or a sum that overflows 64 bits fails the
// merge (RocksDB reports Corruption); nothing is ever read as zero.
//
// Name() is "streamglove.PairBlockSum" and never changes: stores on disk rely
// on it.
//
// Thread-safety: the operator is stateless; RocksDB calls it from several
// threads at once.
#ifndef STREAMGLOVE_STORE_PAIR_BLOCK_MERGE_OPERATOR_H_
#define STREAMGLOVE_STORE_PAIR_BLOCK_MERGE_OPERATOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rocksdb {
class MergeOperator;
}

namespace streamglove {

inline constexpr char kPairBlockMergeOperatorName[] = "streamglove.PairBlockSum";

std::shared_ptr<rocksdb::MergeOperator> NewPairBlockMergeOperator();

// Sums `fragments` of block (row, block) (a k-way merge by column) and replaces *out
// with the encoded sum. False on a malformed fragment or a 64-bit overflow;
// *out is then unspecified. No fragments give the empty fragment (n = 0).
bool SumPairBlockFragments(uint32_t row, uint32_t block,
                           const std::vector<std::string_view>& fragments, std::string* out);

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_PAIR_BLOCK_MERGE_OPERATOR_H_
