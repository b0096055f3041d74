// The tokenizers on arbitrary bytes, whole and split at every cut place the
// chunk reader may use: the tokens must be the same.
#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/tokenizer.h"

namespace {

struct Collector final : streamglove::TokenSink {
  std::vector<std::string> out;
  void OnToken(std::string_view t) override { out.emplace_back(t); }
  void OnDocumentEnd() override { out.emplace_back("\n<end>\n"); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace streamglove;
  if (size < 1) return 0;
  CorpusOptions options;
  options.tokenizer = (data[0] & 4)   ? TokenizerKind::kIcu
                      : (data[0] & 1) ? TokenizerKind::kWords
                                      : TokenizerKind::kWhitespace;
  options.lowercase = (data[0] & 2) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  Tokenizer whole_tokenizer(options);
  Collector whole;
  whole_tokenizer.Tokenize(text, false, &whole);
  // Cut where the chunk reader would (the last safe place in the first
  // half): tokenizing the two parts gives the same tokens.
  const size_t cut = LastSafeCut(text.substr(0, text.size() / 2), options.tokenizer);
  if (cut > 0) {
    Tokenizer split_tokenizer(options);
    Collector split;
    split_tokenizer.Tokenize(text.substr(0, cut), false, &split);
    split_tokenizer.Tokenize(text.substr(cut), false, &split);
    if (split.out != whole.out) __builtin_trap();
  }
  return 0;
}
