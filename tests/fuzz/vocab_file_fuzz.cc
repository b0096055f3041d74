// The vocabulary file reader: any input loads or fails naming the file; a
// loaded vocabulary has unique words and positive counts.
#include <cstdint>
#include <set>
#include <string>

#include "fuzz_input.h"
#include "streamglove/vocabulary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace streamglove;
  const std::string path = fuzz::WriteInput(data, size, ".vocab");
  std::vector<VocabEntry> vocab;
  const Status s = ReadVocabFile(path, &vocab);
  if (!s.ok()) {
    if (s.message().rfind(path, 0) != 0) __builtin_trap();
    return 0;
  }
  std::set<std::string> words;
  for (const VocabEntry& e : vocab) {
    if (e.count == 0 || !words.insert(e.word).second) __builtin_trap();
  }
  return 0;
}
