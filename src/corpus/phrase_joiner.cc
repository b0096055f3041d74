#include "corpus/phrase_joiner.h"

namespace streamglove {

// One pass: holds back the last token until the next shows whether the two
// join.
class PhraseJoiner::Pass final : public TokenSink {
 public:
  Pass(const PhraseList* list, uint32_t pass, TokenSink* out)
      : list_(list), pass_(pass), out_(out) {}

  void OnToken(std::string_view token) override {
    if (held_ && list_->Joins(pass_, pending_, token)) {
      pending_.push_back(kPhraseJoiner);
      pending_.append(token);
      out_->OnToken(pending_);  // greedy: a joined token joins nothing more in this pass
      held_ = false;
      return;
    }
    if (held_) out_->OnToken(pending_);
    pending_.assign(token);
    held_ = true;
  }
  void OnDocumentEnd() override {
    Flush();
    out_->OnDocumentEnd();
  }
  void Flush() {
    if (held_) out_->OnToken(pending_);
    held_ = false;
  }

 private:
  const PhraseList* list_;
  const uint32_t pass_;
  TokenSink* out_;
  std::string pending_;
  bool held_ = false;
};

PhraseJoiner::PhraseJoiner(const PhraseList* list, TokenSink* out) {
  // Built from the last pass back, each feeding the one after it.
  passes_.resize(list->passes());
  TokenSink* next = out;
  for (uint32_t p = list->passes(); p >= 1; --p) {
    passes_[p - 1] = std::make_unique<Pass>(list, p, next);
    next = passes_[p - 1].get();
  }
}

PhraseJoiner::~PhraseJoiner() = default;

void PhraseJoiner::OnToken(std::string_view token) { passes_.front()->OnToken(token); }

void PhraseJoiner::OnDocumentEnd() { passes_.front()->OnDocumentEnd(); }

void PhraseJoiner::Flush() {
  for (auto& pass : passes_) pass->Flush();  // in order: a pass's last token reaches the next first
}

}  // namespace streamglove
