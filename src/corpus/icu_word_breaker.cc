#include "corpus/icu_word_breaker.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include <unicode/ubrk.h>
#include <unicode/utext.h>

namespace streamglove {

Status CheckIcuWordRules() {
  UErrorCode status = U_ZERO_ERROR;
  UBreakIterator* iterator = ubrk_open(UBRK_WORD, "", nullptr, 0, &status);
  ubrk_close(iterator);
  if (U_FAILURE(status)) {
    return Status::InvalidArgument(
        std::string("--tokenizer icu: ICU's word break rules are unavailable (") +
        u_errorName(status) + ")");
  }
  return Status::OK();
}

struct IcuWordBreaker::Impl {
  UBreakIterator* iterator = nullptr;
  UText* text = nullptr;
};

IcuWordBreaker::IcuWordBreaker() : impl_(std::make_unique<Impl>()) {
  UErrorCode status = U_ZERO_ERROR;
  // The root locale: the dictionaries apply by script, whatever the locale.
  impl_->iterator = ubrk_open(UBRK_WORD, "", nullptr, 0, &status);
  if (U_FAILURE(status)) {
    std::fprintf(stderr, "streamglove: error: ICU word break iterator unavailable (%s)\n",
                 u_errorName(status));
    std::abort();
  }
}

IcuWordBreaker::~IcuWordBreaker() {
  ubrk_close(impl_->iterator);
  utext_close(impl_->text);
}

void IcuWordBreaker::Segment(std::string_view text, std::vector<WordSegment>* out) {
  out->clear();
  if (text.empty()) return;
  UErrorCode status = U_ZERO_ERROR;
  // UText over the UTF-8 bytes: no conversion to UTF-16, and the iterator's
  // indexes are byte offsets.
  impl_->text =
      utext_openUTF8(impl_->text, text.data(), static_cast<int64_t>(text.size()), &status);
  ubrk_setUText(impl_->iterator, impl_->text, &status);
  if (U_FAILURE(status)) {  // only for text over 2 GiB, which no chunk is
    out->push_back({0, text.size(), true});
    return;
  }
  int32_t begin = ubrk_first(impl_->iterator);
  for (int32_t end = ubrk_next(impl_->iterator); end != UBRK_DONE;
       begin = end, end = ubrk_next(impl_->iterator)) {
    out->push_back({static_cast<size_t>(begin), static_cast<size_t>(end),
                    ubrk_getRuleStatus(impl_->iterator) >= UBRK_WORD_NONE_LIMIT});
  }
}

}  // namespace streamglove
