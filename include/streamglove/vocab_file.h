// Stanford GloVe's vocabulary file: one "word count" line per word, count
// descending, ties broken by ascending byte order of the word (memcmp;
// Stanford's vocab_count compares signed chars, which differs only for
// non-ASCII ties). What the store, the models and the vectors writer know of
// a vocabulary; the pass that makes one is streamglove/vocabulary.h.
#ifndef STREAMGLOVE_VOCAB_FILE_H_
#define STREAMGLOVE_VOCAB_FILE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "streamglove/status.h"

namespace streamglove {

struct VocabEntry {
  std::string word;
  uint64_t count = 0;
};

// The most words a vocabulary file may hold: ids are 32-bit, one value
// meaning "no word" (VocabIndex).
inline constexpr uint64_t kMaxVocabFileWords = 0xFFFFFFFEu;

// Reads a vocabulary file (a regular file, a pipe or "-" for standard input).
// Errors name the file and line: a line that is not "word count", a count
// that is not a positive integer, a duplicate word; also more than
// kMaxVocabFileWords words, or a file that changed while it was read.
Status ReadVocabFile(const std::string& path, std::vector<VocabEntry>* entries);

// Calls fn(word, count) for each line of a vocabulary file, in order, holding
// one line at a time (a pass over millions of words without the entries);
// fn's error stops the pass and is returned. Lines are checked as
// ReadVocabFile checks them; duplicates and the word limit are not.
Status ForEachVocabFileWord(const std::string& path,
                            const std::function<Status(std::string_view word, uint64_t count)>& fn);

// Writes `entries` as a vocabulary file, atomically (a crash leaves the old
// file or the new one). REQUIRES: entries in the file's order.
Status WriteVocabFile(const std::string& path, const std::vector<VocabEntry>& entries);

}  // namespace streamglove

#endif  // STREAMGLOVE_VOCAB_FILE_H_
