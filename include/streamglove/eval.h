// Evaluating embeddings: word analogies, word similarity and nearest
// neighbours, on any vectors file Embeddings reads.
//
// Analogies follow the protocol of Stanford GloVe's eval/python/evaluate.py:
// rows unit-normalised; for a : b :: c : ?, the answer is the argmax over the
// candidate words of cos(x, b) - cos(x, a) + cos(x, c) (3CosAdd), the three
// question words excluded; a question with a word outside the candidates is
// skipped and counted. 3CosMul (Levy & Goldberg 2014) scores
// cos'(x, b) cos'(x, c) / (cos'(x, a) + 1e-6) with cos' = (1 + cos) / 2, as
// gensim's most_similar_cosmul. Scores come from float32 matrix products
// (BLAS GEMM, a batch of questions at a time); candidates within float
// rounding of the best are re-scored in double, so the answers are those of a
// double-precision computation (the first row wins an exact tie, as numpy's
// argmax).
//
// Similarity: Spearman's rho (ties given their average rank) between the
// cosine of each known pair, in double, and the human score.
//
// A subword model (Embeddings::has_subwords) knows every word that has an
// n-gram, as fastText does: a question word a, b or c and a pair's words
// outside the candidates get their vectors from WordMatcher::Vector (the
// answer d must still be a candidate; the answers are searched among the
// candidate rows alone), and coverage counts them as seen.
//
// Thread-safety: the functions only read the Embeddings; they may run
// concurrently.
#ifndef STREAMGLOVE_EVAL_H_
#define STREAMGLOVE_EVAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "streamglove/embeddings.h"
#include "streamglove/status.h"

namespace streamglove {

// How question and pair words are matched to the vectors' words.
enum class CaseMode {
  kLower,        // lowercase the query words (Stanford's question files are the
                 // questions-words sections lowercased). Default.
  kExact,        // as written
  kInsensitive,  // fold both sides; the most frequent (first) variant of a word
                 // stands for it and no variant of a question word is an
                 // answer (gensim's case_insensitive=True)
};

enum class AnalogyMethod { kCosAdd, kCosMul };

struct AnalogyOptions {
  AnalogyMethod method = AnalogyMethod::kCosAdd;
  uint32_t restrict_vocab = 0;  // candidates: the first N rows (0: all). Default: 0.
  CaseMode case_mode = CaseMode::kLower;
  uint32_t semantic_sections = 5;  // the first N sections are "semantic". Default: 5.
};

struct AnalogySection {
  std::string name;
  uint64_t questions = 0;  // in the file
  uint64_t seen = 0;       // all four words known
  uint64_t correct = 0;
};

struct AnalogyReport {
  std::string file;
  std::vector<AnalogySection> sections;
  AnalogySection semantic, syntactic, total;  // sums over sections
};

// Scores the questions in `path` (questions-words format: ": section" lines,
// then "a b c d" lines). A line that is not four words is a Corruption naming
// the file and line.
Status EvaluateAnalogies(const Embeddings& embeddings, const std::string& path,
                         const AnalogyOptions& options, AnalogyReport* report);

struct SimilarityReport {
  std::string file;
  double spearman = 0;  // NaN when fewer than two pairs are known
  uint64_t pairs = 0;   // in the file
  uint64_t seen = 0;    // both words known
};

// Scores `path`: "word1<TAB>word2<TAB>score" lines (CRLF and a missing final
// newline accepted). A malformed line is a Corruption naming the file and line.
Status EvaluateSimilarity(const Embeddings& embeddings, const std::string& path, CaseMode case_mode,
                          SimilarityReport* report);

// Matches query words to rows under a CaseMode, among the first
// `restrict_vocab` rows (0: all).
class WordMatcher {
 public:
  WordMatcher(const Embeddings& embeddings, CaseMode mode, uint32_t restrict_vocab);
  // The row standing for `word`, or Embeddings::kNotFound.
  uint32_t Find(std::string_view word) const;
  // The rows that are the same word as `row` under the mode, `row` included.
  std::vector<uint32_t> Variants(uint32_t row) const;
  // The row Find() returns for the word of `row` (the row itself unless
  // kInsensitive): two rows are the same word when their Canonical agree.
  uint32_t Canonical(uint32_t row) const;
  uint32_t candidates() const { return candidates_; }
  // The vector of any word: Find()'s row's values, or, from a subword model,
  // Embeddings::WordVector of the word (lowercased under kLower, as written
  // otherwise: its own row when the file has it beyond the candidates, else
  // its n-grams' mean). False when neither.
  bool Vector(std::string_view word, std::vector<float>* out) const;

 private:
  std::string Key(std::string_view word) const;
  const Embeddings& embeddings_;
  const CaseMode mode_;
  const uint32_t candidates_;
  std::unordered_map<std::string, std::vector<uint32_t>> folded_;  // kInsensitive only
};

struct Neighbor {
  uint32_t row;
  double cosine;
};

// A word of a query: a row of the file, or a vector (a subword model's
// unseen word, WordMatcher::Vector), whose row is then kNotFound.
struct QueryTerm {
  QueryTerm(uint32_t r) : row(r) {}  // NOLINT: a row is a term
  explicit QueryTerm(std::vector<float> v) : vector(std::move(v)) {}
  uint32_t row = Embeddings::kNotFound;
  std::vector<float> vector;
};

// The k candidate rows nearest by cosine to the sum of the unit vectors of
// `plus` minus those of `minus` (one word: its neighbours; b and c plus, a
// minus: the 3CosAdd analogy), best first; the query's rows (and their
// variants) are excluded.
std::vector<Neighbor> NearestNeighbors(const Embeddings& embeddings, const WordMatcher& matcher,
                                       const std::vector<QueryTerm>& plus,
                                       const std::vector<QueryTerm>& minus, uint32_t k);

}  // namespace streamglove

#endif  // STREAMGLOVE_EVAL_H_
