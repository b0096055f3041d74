// Word runs: sorted (word, count) files that spill a vocabulary table to disk,
// and their k-way merge.
//
// A run is a transient file in a private temporary directory, removed when the
// vocabulary pass ends; its format (docs/formats.md) is a sequence of records
// varint(word length) | word bytes | varint(count), in one of
// WordCountTable::Order.
//
// Thread-safety: writers and readers are used by one thread each.
#ifndef STREAMGLOVE_VOCAB_WORD_RUN_H_
#define STREAMGLOVE_VOCAB_WORD_RUN_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "streamglove/status.h"
#include "util/file.h"
#include "util/record_file_reader.h"
#include "vocab/word_count_table.h"

namespace streamglove {

class WordRunWriter {
 public:
  Status Open(const std::string& path) { return file_.Open(path); }
  Status Add(std::string_view word, uint64_t count);
  Status Finish() { return file_.Close(/*sync=*/false); }

 private:
  WritableFile file_;
  std::string record_;
};

class WordRunReader {
 public:
  WordRunReader() = default;
  WordRunReader(WordRunReader&&) = default;

  Status Open(const std::string& path);
  // Advances to the next record; *done at the end of the run.
  Status Next(bool* done);
  std::string_view word() const { return word_; }
  uint64_t count() const { return count_; }

 private:
  RecordFileReader file_;
  std::string word_;
  uint64_t count_ = 0;
};

// Called with each merged (word, count) in order; an error stops the merge.
using WordEmitter = std::function<Status(std::string_view word, uint64_t count)>;

// Merges `runs`, each sorted in `order`, summing the counts of equal words,
// and calls `emit` in order. At most `fan_in` runs are open at once: more are
// first merged in passes into new runs under `temp_dir`. Deletes the runs.
Status MergeWordRuns(std::vector<std::string> runs, WordCountTable::Order order, size_t fan_in,
                     const std::string& temp_dir, const WordEmitter& emit);

}  // namespace streamglove

#endif  // STREAMGLOVE_VOCAB_WORD_RUN_H_
