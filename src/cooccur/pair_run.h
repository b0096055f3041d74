// Pair runs: sorted, combined co-occurrence records spilled to a file, and
// the k-way merge of sorted pair streams.
//
// A run is a transient file of one batch (removed once the batch commits) of
// records varint(key delta) | varint(value), keys strictly ascending. Every
// kPairRunGroupRecords-th record starts a group and stores its key whole
// (delta from 0), so a reader can start at any group: the commit reads each
// run in several key ranges at once, one per thread. See docs/formats.md.
//
// Thread-safety: writers, readers and streams are used by one thread each;
// a PairRun is immutable once written.
#ifndef STREAMGLOVE_COOCCUR_PAIR_RUN_H_
#define STREAMGLOVE_COOCCUR_PAIR_RUN_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cooccur/pair_buffer.h"
#include "streamglove/status.h"
#include "util/file.h"
#include "util/mutex.h"

namespace streamglove {

inline constexpr uint64_t kPairRunGroupRecords = 4096;

// A written run: its file and where its groups start.
struct PairRun {
  struct Group {
    uint64_t key;     // of the group's first record
    uint64_t offset;  // byte offset of that record
  };
  std::string path;
  std::vector<Group> groups;  // ascending keys; one per kPairRunGroupRecords records
  uint64_t records = 0;
};

// Writes sorted records as a run, one at a time, noting where groups start.
class PairRunWriter {
 public:
  // *run describes the file as records are added; it is complete after Finish().
  Status Open(const std::string& path, PairRun* run);
  // REQUIRES: r.key above the previous record's.
  Status Add(const PairRecord& r);
  Status Finish() { return file_.Close(/*sync=*/false); }

 private:
  WritableFile file_;
  PairRun* run_ = nullptr;
  uint64_t previous_ = 0;
  uint64_t bytes_ = 0;
};

// REQUIRES: `records` sorted by key, keys distinct.
Status WritePairRun(const std::string& path, std::span<const PairRecord> records, PairRun* run);

// A source of records in strictly ascending key order, read many at a time:
// a commit merges about a hundred million records, and with a virtual call
// and a Status per record its store stage took 4.1-4.9 s of a --threads 1
// ingest of wiki100M, against 3.7-3.9 s read 256 at a time.
class PairStream {
 public:
  virtual ~PairStream() = default;
  // Reads the next records into out[0, *n), at most `max` (> 0) of them;
  // *n == 0 only at the end.
  virtual Status Read(PairRecord* out, size_t max, size_t* n) = 0;
};

// The run's records with keys in [begin, end). REQUIRES: `run` outlives it.
// A run whose groups are not known (a received stream) is read from its
// start with empty `groups` and records = UINT64_MAX: to its end. `run` may
// also be a slice of a run: its groups a consecutive part of the run's, its
// records counted from its first group (read from that group on).
std::unique_ptr<PairStream> NewPairRunReader(const PairRun& run, uint64_t begin = 0,
                                             uint64_t end = UINT64_MAX);
// Streams sorted in-memory records; `records` must outlive the stream.
std::unique_ptr<PairStream> NewPairSpanStream(std::span<const PairRecord> records);

// The run files of the batch being counted, written by any thread.
class BatchRuns {
 public:
  explicit BatchRuns(std::string dir) : dir_(std::move(dir)) {}
  // A new file name for a run.
  std::string NewPath();
  // Records a written run: Take() will return it.
  void Add(PairRun run);
  // The runs added so far, and forgets them.
  std::vector<PairRun> Take();

 private:
  const std::string dir_;
  Mutex mu_;
  uint64_t next_ GUARDED_BY(mu_) = 0;
  std::vector<PairRun> runs_ GUARDED_BY(mu_);
};

// While there are more than `target` runs, merges groups of them into new
// runs (named by `names`), deleting the inputs: groups of ceil(runs /
// target), so one pass reaches the target when no group needs more than
// `fan_in` (>= 2) runs, the most any merge opens at once. The groups of one
// pass are merged in parallel, on the calling thread's task arena.
Status ReduceRuns(std::vector<PairRun>* runs, size_t target, size_t fan_in, BatchRuns* names);

// Merges the streams, summing equal keys, and calls emit in key order.
Status MergePairStreams(std::vector<std::unique_ptr<PairStream>> streams,
                        const std::function<Status(const PairRecord&)>& emit);

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_PAIR_RUN_H_
