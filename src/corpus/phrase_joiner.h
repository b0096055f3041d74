// PhraseJoiner: a TokenSink that joins a phrase list's phrases in the tokens
// passing through it, pass after pass, before they reach the next sink
// (streamglove/phrases.h gives the rule).
//
// A joiner sees one chunk at a time: Flush() at a chunk's end sends on the
// tokens it holds back (one per pass). A chunk ends at a document end except
// inside a line longer than a chunk (text8-style files), so there a phrase
// cut by the chunk boundary stays two tokens.
//
// Thread-safety: one per thread; the list must outlive it.
#ifndef STREAMGLOVE_CORPUS_PHRASE_JOINER_H_
#define STREAMGLOVE_CORPUS_PHRASE_JOINER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamglove/phrases.h"
#include "streamglove/tokenizer.h"

namespace streamglove {

class PhraseJoiner final : public TokenSink {
 public:
  // Joins `list`'s phrases into the tokens it sends to `out`.
  // REQUIRES: !list->empty().
  PhraseJoiner(const PhraseList* list, TokenSink* out);
  ~PhraseJoiner() override;

  void OnToken(std::string_view token) override;
  void OnDocumentEnd() override;
  // Sends on every token held back.
  void Flush();

 private:
  class Pass;
  std::vector<std::unique_ptr<Pass>> passes_;  // passes_[0] is pass 1, fed by OnToken
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_PHRASE_JOINER_H_
