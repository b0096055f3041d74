// Subwords: the character n-grams a word is made of, hashed into a fixed
// number of buckets, as fastText does (Bojanowski et al. 2017,
// "Enriching Word Vectors with Subword Information"). A subword model's
// vector of a word is the mean of its own row and its n-grams' rows; a word
// outside the vocabulary gets the mean of its n-grams' rows.
//
// The scheme is fastText's, byte for byte, so that its n-grams and buckets
// are the same: the word is wrapped in '<' and '>', its n-grams are the
// substrings of n = min_n .. max_n UTF-8 characters (a continuation byte
// never starts one), the wrapped word itself included when it is short
// enough, and an n-gram's bucket is FNV-1a (32 bits) over its bytes, each
// byte sign-extended before the xor (fastText's int8_t cast: bytes above
// 0x7f hash as 0xffffff80 and up), modulo the buckets.
//
// Thread-safety: plain functions and a value type.
#ifndef STREAMGLOVE_SUBWORDS_H_
#define STREAMGLOVE_SUBWORDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "streamglove/status.h"

namespace streamglove {

struct SubwordOptions {
  // Whether `enabled` was chosen; when not, the trainer decides
  // (TrainOptions::subwords).
  bool chosen = false;
  bool enabled = false;  // false: words are atoms (the vectors of the word rows alone)
  uint32_t min_n = 3;    // the shortest n-gram, in characters. Default: 3 (fastText's).
  uint32_t max_n = 6;    // the longest. Default: 6 (fastText's).
  // Rows the n-grams are hashed into; 0: fastText's 2,000,000, or fewer when
  // the run's --memory cannot hold them (TrainOptions::subwords says how).
  uint32_t buckets = 0;
};

// fastText's default number of buckets.
inline constexpr uint32_t kDefaultSubwordBuckets = 2000000;
// The longest n-gram a model may ask for (characters).
inline constexpr uint32_t kMaxSubwordN = 32;

// min_n <= max_n <= kMaxSubwordN, min_n >= 1, buckets < 2^31 (fastText's
// int32 ids); the error names the flag.
Status ValidateSubwordOptions(const SubwordOptions& options);

// fastText's hash of an n-gram (FNV-1a over sign-extended bytes).
uint32_t NgramHash(std::string_view ngram);

// The n-grams of `word` (without boundary marks; they are added here), in
// fastText's order: by starting character, then by length.
std::vector<std::string> CharNgrams(std::string_view word, uint32_t min_n, uint32_t max_n);

// The buckets of CharNgrams(word, min_n, max_n), appended to *buckets in the
// same order (repeats kept, as fastText keeps them).
void AppendNgramBuckets(std::string_view word, uint32_t min_n, uint32_t max_n,
                        uint32_t bucket_count, std::vector<uint32_t>* buckets);

}  // namespace streamglove

#endif  // STREAMGLOVE_SUBWORDS_H_
