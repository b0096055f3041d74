// The subword model file (OUT.model, docs/formats.md): a subword model's
// vectors of its vocabulary's words and its trained n-gram rows, from which
// any word's vector is made (include/streamglove/subwords.h): a word of the
// vocabulary has its own, any other the mean of its n-grams' rows.
//
// Thread-safety: plain functions; a file is written by one at a time.
#ifndef STREAMGLOVE_VECTORS_SUBWORD_MODEL_FILE_H_
#define STREAMGLOVE_VECTORS_SUBWORD_MODEL_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "streamglove/status.h"
#include "streamglove/subwords.h"
#include "streamglove/vectors_format.h"
#include "streamglove/vocab_file.h"
#include "vectors/vectors_writer.h"

namespace streamglove {

// The file's first 8 bytes.
inline constexpr char kSubwordModelMagic[8] = {'S', 'G', 'S', 'U', 'B', 'W', '0', '1'};

// n-gram rows as a model holds them: options.buckets rows of `stride`
// floats, the first dim of each the n-gram's vector. A view.
struct NgramRows {
  SubwordOptions options;  // min_n, max_n and buckets (resolved, > 0)
  size_t stride = 0;
  const float* rows = nullptr;
};

// Writes the model file atomically: the vectors of vocab[0 .. rows.count)
// as WriteVectors computes them for `kind` and context_weight, then the
// n-gram rows that at least one of those words uses (the others were never
// trained), by bucket. An unseen word's vector is its n-grams' mean alone:
// it has no context row.
// REQUIRES: kind is not kBoth; vocab.size() >= rows.count.
Status WriteSubwordModel(const std::string& path, const std::vector<VocabEntry>& vocab,
                         const ParameterRows& rows, VectorsKind kind, float context_weight,
                         const NgramRows& ngrams);

// A model file's contents.
struct SubwordModel {
  uint32_t dim = 0;
  SubwordOptions options;  // enabled, min_n, max_n, buckets
  std::vector<std::string> words;
  std::vector<float> vectors;          // words.size() x dim
  std::vector<uint32_t> buckets;       // the rows' buckets, ascending
  std::vector<float> ngram_rows;       // buckets.size() x dim
  std::vector<uint64_t> word_offsets;  // each word's byte offset, for errors
};

// Whether `data` starts as a model file does.
bool IsSubwordModel(std::string_view data);

// Parses the model file `data` (read from `path`, which errors name with a
// byte offset): a checksum that does not match, a truncated file, a value
// that is not finite or buckets out of order are a Corruption.
Status ParseSubwordModel(const std::string& path, std::string_view data, SubwordModel* model);

}  // namespace streamglove

#endif  // STREAMGLOVE_VECTORS_SUBWORD_MODEL_FILE_H_
