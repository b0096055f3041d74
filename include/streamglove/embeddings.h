// Embeddings: a vectors file in memory, for evaluation and queries.
//
// Reads the three formats people exchange: Stanford GloVe text ("word v1 ...
// vd" per line, no header), word2vec text (a "V d" header line, then GloVe
// text lines) and word2vec binary ("V d\n", then per word "word " and d
// little-endian float32, optionally followed by "\n"), and a subword model
// file (train's OUT.model, docs/formats.md), whose n-gram rows give a vector
// to any word (WordVector). The format is detected from the content. Malformed files (inconsistent
// dimensions, a truncated binary, NaN or Inf, duplicate words, an empty file) are a Corruption
// naming the file and the line (text) or byte offset (binary).
//
// Rows keep the file's order (vectors files list words by frequency, which
// `restrict` options rely on). Values are kept as read: doubles for text files
// (as Python's float() parses them), float32 for binary ones; a unit-length
// float32 copy of every row serves the matrix products.
//
// Thread-safety: immutable after Load(); any number of threads may read.
#ifndef STREAMGLOVE_EMBEDDINGS_H_
#define STREAMGLOVE_EMBEDDINGS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "streamglove/status.h"
#include "streamglove/subwords.h"
#include "streamglove/vectors_format.h"

namespace streamglove {

class Embeddings {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;

  // Loads `path`, replacing any previous contents.
  Status Load(const std::string& path);

  const std::string& path() const { return path_; }
  VectorsFormat format() const { return format_; }
  uint32_t size() const { return static_cast<uint32_t>(words_.size()); }
  uint32_t dim() const { return dim_; }
  const std::string& word(uint32_t i) const { return words_[i]; }
  // The row of `word`, or kNotFound.
  uint32_t Find(std::string_view word) const;

  // Whether the file is a subword model, which answers any word.
  bool has_subwords() const { return subwords_.enabled; }
  // The vector of any word (dim() floats into *out): its row's values when
  // the file has it, else, from a subword model, the mean of its n-grams'
  // rows (an n-gram whose row the model lacks counts as zero: no word of
  // its vocabulary has it, so it was never trained). False when neither.
  bool WordVector(std::string_view word, std::vector<float>* out) const;

  // Component k of row i as read from the file.
  double value(uint32_t i, uint32_t k) const {
    const size_t at = size_t{i} * dim_ + k;
    return precise_.empty() ? static_cast<double>(single_[at]) : precise_[at];
  }
  // Row i scaled to unit length (a zero row stays zero), dim() floats.
  const float* unit(uint32_t i) const { return unit_.data() + size_t{i} * dim_; }
  const float* unit_data() const { return unit_.data(); }
  // Euclidean length of row i, computed in double from value().
  double norm(uint32_t i) const { return norms_[i]; }

 private:
  // Load() of a subword model file's contents.
  Status LoadSubwordModel(std::string_view data);
  // Index, norms and unit rows once the values are read; `locations` (line
  // numbers or byte offsets) name duplicate words.
  Status Finish(const std::vector<uint64_t>& locations, bool lines);

  std::string path_;
  VectorsFormat format_ = VectorsFormat::kGloveText;
  uint32_t dim_ = 0;
  std::vector<std::string> words_;
  std::unordered_map<std::string_view, uint32_t> index_;  // views into words_
  std::vector<double> precise_;                           // text files
  std::vector<float> single_;                             // binary files
  std::vector<double> norms_;
  std::vector<float> unit_;
  // A subword model's scheme and n-gram rows (ngram_rows_: dim_ floats for
  // each of ngram_buckets_, ascending).
  SubwordOptions subwords_;
  std::vector<uint32_t> ngram_buckets_;
  std::vector<float> ngram_rows_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_EMBEDDINGS_H_
