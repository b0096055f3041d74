// The corpus readers end to end: compression detection and decoding, chunk
// cutting (tiny chunks, so long lines and tokens are cut), JSONL fields and
// the bad-record checks, the three tokenizers. Any outcome but a crash (or a
// sanitizer report) is fine.
#include <cstdint>
#include <string>

#include "corpus/chunk_tokenizer.h"
#include "fuzz_input.h"
#include "streamglove/corpus_reader.h"

namespace {

struct Counter final : streamglove::TokenSink {
  uint64_t tokens = 0, documents = 0;
  void OnToken(std::string_view) override { ++tokens; }
  void OnDocumentEnd() override { ++documents; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace streamglove;
  if (size < 1) return 0;
  // The first byte picks the options; the rest is the file.
  const uint8_t knobs = data[0];
  const std::string path = fuzz::WriteInput(data + 1, size - 1, (knobs & 1) ? ".jsonl" : ".txt");
  CorpusOptions options;
  options.chunk_bytes = 16 + (knobs >> 4) * 8;
  options.max_record_bytes = 4096;
  options.tokenizer = !(knobs & 2)     ? TokenizerKind::kWhitespace
                      : (knobs & 0x10) ? TokenizerKind::kIcu
                                       : TokenizerKind::kWords;
  options.lowercase = (knobs & 4) != 0;
  options.skip_bad_records = (knobs & 8) != 0;
  std::vector<InputFile> inputs;
  if (!ExpandInputs({path}, InputFormat::kAuto, &inputs).ok()) return 0;
  ChunkReader reader(inputs, options);
  ChunkTokenizer tokenizer(options, &reader.inputs());
  Counter counter;
  Chunk chunk;
  for (;;) {
    bool done = false;
    if (!reader.Next(&chunk, &done).ok() || done) break;
    if (!tokenizer.Tokenize(chunk, &counter).ok()) break;
  }
  return 0;
}
