// The vectors-file parsers (GloVe text, word2vec text and binary): any input
// loads or fails with a message naming the file; a loaded file is consistent.
#include <cmath>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "streamglove/embeddings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace streamglove;
  const std::string path = fuzz::WriteInput(data, size, ".vec");
  Embeddings e;
  const Status s = e.Load(path);
  if (!s.ok()) {
    if (s.message().rfind(path, 0) != 0) __builtin_trap();  // errors name the file first
    return 0;
  }
  for (uint32_t i = 0; i < e.size(); ++i) {
    if (e.Find(e.word(i)) != i) __builtin_trap();
    for (uint32_t k = 0; k < e.dim(); ++k) {
      if (!std::isfinite(e.value(i, k))) __builtin_trap();
    }
  }
  return 0;
}
