// Phrases: adjacent words joined into one token ("new york" -> "new_york")
// before windowing, and the pass that finds them in a corpus of any size.
//
// A phrase list is a set of (pass, left, right): reading a corpus with it
// (CorpusOptions::phrases) joins, pass after pass, each adjacent pair
// `left right` of the pass's tokens into `left_right`, greedily from the
// left as word2phrase does (a token joined to its left neighbour is not
// joined to its right one in the same pass). Pass p's tokens are those that
// passes 1..p-1 made, so pass 2 can join `new_york` and `times`. Pairs never
// join across a document end. File format: docs/formats.md.
//
// FindPhrases() counts a corpus's ordered bigrams and unigrams into a store
// per pass (ingest with --window 1 --asymmetric: bounded memory, resumable
// after kill -9, additive), then scores every bigram of the store.
//
// Thread-safety: a PhraseList is immutable after construction; share it.
#ifndef STREAMGLOVE_PHRASES_H_
#define STREAMGLOVE_PHRASES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "streamglove/corpus_reader.h"
#include "streamglove/options.h"
#include "streamglove/status.h"

namespace streamglove {

// What joins the two halves of a phrase's token (word2phrase's).
inline constexpr char kPhraseJoiner = '_';

struct Phrase {
  uint32_t pass = 1;  // 1 or more
  std::string left, right;
  double score = 0;    // what found it (informative; joining ignores it)
  uint64_t count = 0;  // times `left right` was seen (informative)
};

class PhraseList {
 public:
  // REQUIRES: every phrase valid (CheckPhrase), no (pass, left, right) twice.
  explicit PhraseList(std::vector<Phrase> phrases);

  // Reads a phrase list file. Errors name the file, the line and its byte
  // offset: a malformed line, a pass that is not a positive integer, a token
  // holding whitespace, a joined token longer than kMaxTokenBytes, a phrase
  // given twice.
  static Status Read(const std::string& path, std::shared_ptr<const PhraseList>* list);
  // Writes the list, atomically, in pass order (as given within a pass).
  Status Write(const std::string& path) const;

  const std::vector<Phrase>& phrases() const { return phrases_; }
  bool empty() const { return phrases_.empty(); }
  // The highest pass, 0 for an empty list.
  uint32_t passes() const { return passes_; }
  // Names the list's joins (not its scores or counts), whatever its order:
  // 16 hex digits. A store records the one it was counted with.
  const std::string& fingerprint() const { return fingerprint_; }

  // True when pass `pass` joins `left right`.
  bool Joins(uint32_t pass, std::string_view left, std::string_view right) const;

  // Why `p` cannot be a phrase, or empty.
  static std::string CheckPhrase(const Phrase& p);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const;
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  // Per pass (index pass - 1): left token -> its right tokens.
  using Rights = std::unordered_map<std::string, std::vector<std::string>, Hash, Equal>;

  std::vector<Phrase> phrases_;
  uint32_t passes_ = 0;
  std::string fingerprint_;
  std::vector<Rights> by_pass_;
};

// How a bigram (a, b), seen c_ab times among N tokens, is scored; c_a and
// c_b are its words' counts.
enum class PhraseScore {
  // word2phrase's: (c_ab - min_count) / (c_a * c_b) * N.
  kWord2Phrase,
  // Normalised pointwise mutual information (Bouma 2009), in [-1, 1]:
  // ln(p_ab / (p_a * p_b)) / -ln(p_ab), each p a count over N.
  kNpmi,
};

// "word2phrase", "npmi": the --score values.
inline const char* PhraseScoreName(PhraseScore s) {
  return s == PhraseScore::kNpmi ? "npmi" : "word2phrase";
}

// The score of a bigram as PhraseScore says (min_count is word2phrase's
// discount).
double ScoreBigram(PhraseScore score, uint64_t c_ab, uint64_t c_a, uint64_t c_b, uint64_t tokens,
                   uint64_t min_count);

struct PhraseOptions {
  PhraseScore score = PhraseScore::kWord2Phrase;
  // A bigram above it is a phrase. Default: 100 (word2phrase's) for
  // word2phrase scores; 0.5 for npmi (set by the CLI when not given).
  double threshold = 100;
  // A phrase and each of its words are seen at least this often. Default: 5.
  uint64_t min_count = 5;
  // Passes over the corpus; pass p joins the tokens passes before it made,
  // so p passes make phrases of up to 2^p words. Default: 2 (word2vec's
  // demo-phrases.sh runs word2phrase twice).
  uint32_t passes = 2;
  // As IngestOptions: worker threads (0: one per core), peak memory.
  int threads = 0;
  size_t memory_bytes = size_t{1} << 30;
  bool progress = true;
};

Status ValidatePhraseOptions(const PhraseOptions& options);

struct PhrasePassStats {
  uint64_t tokens = 0;     // the store's tokens (after earlier passes' joins)
  uint64_t bigrams = 0;    // distinct ordered bigrams counted
  uint64_t phrases = 0;    // found by this pass
  bool recounted = false;  // its counts were made with another earlier list: counted again
  double seconds = 0;
};

struct PhraseStats {
  std::vector<PhrasePassStats> passes;
  std::vector<std::string> messages;  // one line each
};

// Finds the phrases of `inputs`: pass p counts the inputs, joined by the
// phrases of passes before it, into the store `work_dir`/pass-p (created,
// resumed, or added to as `ingest` would; recounted whole when the earlier
// passes' phrases changed), and scores its bigrams. *found gets every
// pass's phrases, each pass's by descending score. Passes end early when
// one finds none.
Status FindPhrases(const std::string& work_dir, const std::vector<InputFile>& inputs,
                   const CorpusOptions& corpus, const PhraseOptions& options,
                   std::vector<Phrase>* found, PhraseStats* stats);

// Scores the bigrams of a store counted with --window 1 --asymmetric as
// pass `pass`: *found gets those above the threshold, by descending score;
// stats gets the store's tokens and bigrams and the phrases' number.
Status ScoreStoreBigrams(const std::string& store_dir, uint32_t pass, const PhraseOptions& options,
                         std::vector<Phrase>* found, PhrasePassStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_PHRASES_H_
