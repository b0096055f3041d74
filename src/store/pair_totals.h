// The totals a batch's files carry, for the record that keeps a store's
// PairTotals (store.h) across commits.
//
// A batch file counts its pairs and the sum of their values as they are
// added, and carries them in its table properties, so that a file written
// by another process (a rank of a distributed ingest) tells its totals to
// the store that commits it without being read again.
//
// Thread-safety: a BatchFileTotals is written by the one thread that adds
// the file's pairs; the rest are plain functions.
#ifndef STREAMGLOVE_STORE_PAIR_TOTALS_H_
#define STREAMGLOVE_STORE_PAIR_TOTALS_H_

#include <cstdint>
#include <memory>
#include <string>

#include <rocksdb/options.h>
#include <rocksdb/table_properties.h>

#include "streamglove/status.h"

namespace streamglove {

// One batch file's pairs, the sum of their values, and its first and last
// pair-block keys (empty when it holds no pair).
struct BatchFileTotals {
  uint64_t pairs = 0;
  __uint128_t units = 0;
  std::string first_key, last_key;
};

// A factory whose collectors write `*totals` into every table's properties
// at its end. `totals` must outlive the tables' writers.
std::shared_ptr<rocksdb::TablePropertiesCollectorFactory> NewBatchTotalsCollectorFactory(
    const BatchFileTotals* totals);

// Reads the totals a batch file carries; *present is false when it carries
// none it can read (a file written without the factory, or by a build
// whose property this one does not know).
Status ReadBatchFileTotals(const rocksdb::Options& options, const std::string& path,
                           BatchFileTotals* totals, bool* present);

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_PAIR_TOTALS_H_
