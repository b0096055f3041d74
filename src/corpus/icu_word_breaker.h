// IcuWordBreaker: word boundaries by ICU's word break iterator — the Unicode
// rules of UAX #29 plus ICU's dictionaries for the scripts written without
// spaces (Chinese, Japanese, Thai, Lao, Khmer, Burmese). The `icu` tokenizer
// (tokenizer.h) is built on it; ICU stays out of every other header.
//
// Thread-safety: holds an ICU iterator; use one per thread.
#ifndef STREAMGLOVE_CORPUS_ICU_WORD_BREAKER_H_
#define STREAMGLOVE_CORPUS_ICU_WORD_BREAKER_H_

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "streamglove/status.h"

namespace streamglove {

// OK when ICU's word rules open; else why not (checked once, with the options).
Status CheckIcuWordRules();

struct WordSegment {
  size_t begin = 0, end = 0;  // byte offsets in the text given
  bool word = false;  // a word (letters, numbers, kana, ideographs), not spaces or punctuation
};

class IcuWordBreaker {
 public:
  // REQUIRES: CheckIcuWordRules().ok() (else aborts with a message).
  IcuWordBreaker();
  ~IcuWordBreaker();
  IcuWordBreaker(const IcuWordBreaker&) = delete;
  IcuWordBreaker& operator=(const IcuWordBreaker&) = delete;

  // The segments of `text` (UTF-8; invalid bytes are read as U+FFFD and keep
  // their byte offsets), in order, into *out.
  void Segment(std::string_view text, std::vector<WordSegment>* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_ICU_WORD_BREAKER_H_
