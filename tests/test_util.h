// Helpers shared by the unit tests: temporary files, compression, and an
// independent reference tokenizer.
#ifndef STREAMGLOVE_TESTS_TEST_UTIL_H_
#define STREAMGLOVE_TESTS_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "cooccur/pair_run.h"
#include "streamglove/phrases.h"
#include "streamglove/tokenizer.h"
#include "util/file.h"

namespace streamglove::test {

// The streams merged by MergePairStreams, as key -> summed value (REQUIREs
// that the merge succeeds).
std::map<uint64_t, uint64_t> MergedPairs(std::vector<std::unique_ptr<PairStream>> streams);

// A temporary directory for a test's files (under $TMPDIR, named from
// `prefix`), removed with them at the end.
class TestDir {
 public:
  explicit TestDir(const std::string& prefix);
  const std::string& path() const { return dir_.path(); }
  // Writes `data` to the file `name` in the directory; returns its path.
  std::string Write(const std::string& name, const std::string& data) const;

 private:
  TempDir dir_;
};

// Writes `data` to `path`, replacing it.
void WriteFile(const std::string& path, const std::string& data);
std::string ReadFile(const std::string& path);

// `parts` compressed as one zstd frame each, concatenated.
std::string ZstdFrames(const std::vector<std::string>& parts);
// `parts` compressed as one gzip member each, concatenated.
std::string GzipMembers(const std::vector<std::string>& parts);

// One xz stream per part, back to back (as `cat a.xz b.xz` makes).
std::string XzStreams(const std::vector<std::string>& parts);

// One bzip2 stream per part, back to back (as pbzip2 writes).
std::string Bzip2Streams(const std::vector<std::string>& parts);

// Marks a document end in ReferenceTokens() output.
inline const std::string kDocEnd = "\n<doc-end>\n";

// Collects tokens, with kDocEnd for each document end.
struct TokenCollector final : TokenSink {
  std::vector<std::string> out;
  void OnToken(std::string_view t) override { out.emplace_back(t); }
  void OnDocumentEnd() override { out.push_back(kDocEnd); }
};

// Stanford GloVe's get_word() loop (glove/src/common.c), transliterated over
// a string: the independent oracle for the whitespace tokenizer.
std::vector<std::string> ReferenceTokens(const std::string& text);

// word2phrase's rule over a whole token list (kDocEnd between documents),
// pass after pass: the independent oracle for PhraseJoiner.
std::vector<std::string> JoinPhrases(const PhraseList& list, std::vector<std::string> tokens);

// Random text over an alphabet rich in separators, '\r', multi-byte and
// invalid UTF-8, with occasional tokens longer than 999 bytes.
std::string RandomText(std::mt19937_64* rng, size_t bytes);

// The offset of the first NUL or ill-formed UTF-8 byte of `line` (Unicode's
// table 3-7 of well-formed byte sequences), or npos: the tests' own oracle.
size_t FirstBadByte(std::string_view line);

// `text` without its bad lines (see FirstBadByte); *bad counts them and
// *first_bad is the offset of the first bad byte (npos when none).
std::string WithoutBadLines(const std::string& text, uint64_t* bad, size_t* first_bad);

// `text` with every byte FirstBadByte finds replaced by 'x': valid UTF-8
// without NULs, its lines and long tokens kept.
std::string ReplaceBadBytes(std::string text);

}  // namespace streamglove::test

#endif  // STREAMGLOVE_TESTS_TEST_UTIL_H_
