#include <sys/stat.h>

#include <algorithm>

#include <catch2/catch.hpp>

#include "corpus/chunk_tokenizer.h"
#include "streamglove/corpus_reader.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

// Reads every chunk; checks that they tile each input exactly.
std::vector<Chunk> ReadChunks(const std::vector<InputFile>& inputs, const CorpusOptions& options,
                              Status* status) {
  ChunkReader reader(inputs, options);
  std::vector<Chunk> chunks;
  for (;;) {
    Chunk c;
    bool done = false;
    *status = reader.Next(&c, &done);
    if (!status->ok() || done) return chunks;
    chunks.push_back(std::move(c));
  }
}

}  // namespace

TEST_CASE("Chunks tile the input and cut at newlines or safe bytes and tokenize like the whole",
          "[corpus]") {
  TestDir dir("sg-test-");
  std::mt19937_64 rng(11);
  // Long lines (few newlines) force cuts inside lines and inside long tokens
  // (and inside multi-byte sequences, which must not pass for bad records).
  std::string text = ReplaceBadBytes(RandomText(&rng, 400000));
  text += std::string(20000, 'z') + " after the giant token\n" +
          ReplaceBadBytes(RandomText(&rng, 1000));
  WriteFile(dir.path() + "/a.txt.zst", ZstdFrames({text.substr(0, 1000), text.substr(1000)}));
  std::vector<InputFile> inputs;
  REQUIRE(ExpandInputs({dir.path() + "/a.txt.zst"}, InputFormat::kAuto, &inputs).ok());

  for (size_t chunk_bytes : {size_t{97}, size_t{5000}, size_t{65536}, size_t{1} << 20}) {
    INFO("chunk_bytes " << chunk_bytes);
    CorpusOptions options;
    options.chunk_bytes = chunk_bytes;
    Status s;
    const std::vector<Chunk> chunks = ReadChunks(inputs, options, &s);
    REQUIRE(s.ok());
    std::string joined;
    ChunkTokenizer tokenizer(options, &inputs);
    TokenCollector sink;
    for (size_t i = 0; i < chunks.size(); ++i) {
      const Chunk& c = chunks[i];
      CHECK(c.offset == joined.size());
      CHECK(c.size() <= std::max(chunk_bytes, size_t{4096}));  // 97 is raised to the 4 KiB floor
      CHECK(c.ends_input == (i + 1 == chunks.size()));
      if (i + 1 < chunks.size() && !chunks[i + 1].continues_line) CHECK(c.text().back() == '\n');
      joined.append(c.text());
      REQUIRE(tokenizer.Tokenize(c, &sink).ok());
    }
    CHECK(joined == text);
    std::vector<std::string> expected = ReferenceTokens(text);
    if (text.back() != '\n') expected.push_back(kDocEnd);  // the input's end ends a document
    REQUIRE(sink.out.size() == expected.size());
    const auto mismatch = std::mismatch(sink.out.begin(), sink.out.end(), expected.begin());
    CHECK(mismatch.first == sink.out.end());
  }
}

TEST_CASE("Directories expand recursively in sorted order and formats resolve by name",
          "[corpus]") {
  TestDir dir("sg-test-");
  ::mkdir((dir.path() + "/sub").c_str(), 0700);
  WriteFile(dir.path() + "/b.txt", "b\n");
  WriteFile(dir.path() + "/sub/a.jsonl.gz", GzipMembers({"{\"text\": \"a\"}\n"}));
  WriteFile(dir.path() + "/a.ndjson", "{\"text\": \"x\"}\n");
  WriteFile(dir.path() + "/sub/b.jsonl.xz", XzStreams({"{\"text\": \"b\"}\n"}));
  WriteFile(dir.path() + "/sub/c.jsonl.bz2", Bzip2Streams({"{\"text\": \"c\"}\n"}));
  WriteFile(dir.path() + "/sub/d.txt.xz", XzStreams({"d\n"}));
  std::vector<InputFile> inputs;
  REQUIRE(ExpandInputs({dir.path()}, InputFormat::kAuto, &inputs).ok());
  REQUIRE(inputs.size() == 6);
  CHECK(inputs[0].path == dir.path() + "/a.ndjson");
  CHECK(inputs[0].format == InputFormat::kJsonl);
  CHECK(inputs[1].path == dir.path() + "/b.txt");
  CHECK(inputs[1].format == InputFormat::kText);
  CHECK(inputs[2].path == dir.path() + "/sub/a.jsonl.gz");
  CHECK(inputs[2].format == InputFormat::kJsonl);
  CHECK(inputs[3].format == InputFormat::kJsonl);
  CHECK(inputs[4].format == InputFormat::kJsonl);
  CHECK(inputs[5].format == InputFormat::kText);
  CHECK(ExpandInputs({dir.path() + "/nope"}, InputFormat::kAuto, &inputs).code() ==
        Status::Code::kNotFound);
}

TEST_CASE("Empty inputs and oversized JSONL records are errors with file and offset", "[corpus]") {
  TestDir dir("sg-test-");
  WriteFile(dir.path() + "/empty.txt", "");
  WriteFile(dir.path() + "/empty.zst", ZstdFrames({""}));
  std::string records = "{\"text\": \"ok\"}\n{\"text\": \"" + std::string(100000, 'a') + "\"}\n";
  WriteFile(dir.path() + "/big.jsonl", records);
  CorpusOptions options;
  options.chunk_bytes = 4096;
  options.max_record_bytes = 8192;
  for (const char* name : {"empty.txt", "empty.zst", "big.jsonl"}) {
    INFO(name);
    std::vector<InputFile> inputs;
    REQUIRE(ExpandInputs({dir.path() + "/" + name}, InputFormat::kAuto, &inputs).ok());
    Status s;
    ReadChunks(inputs, options, &s);
    REQUIRE_FALSE(s.ok());
    CHECK(s.message().find(dir.path() + "/" + name + ": byte ") == 0);
    if (std::string(name) == "big.jsonl") CHECK(s.message().find("byte 15:") != std::string::npos);
  }
}

TEST_CASE("JSONL chunks give one document per record and bad records name their offset",
          "[corpus]") {
  TestDir dir("sg-test-");
  const std::string good =
      "{\"id\": 1, \"text\": \"caf\\u00e9 au\\tlait\\nnext line\"}\n\n{\"text\": \"b c\"}\r\n";
  WriteFile(dir.path() + "/good.jsonl", good);
  std::vector<InputFile> inputs;
  REQUIRE(ExpandInputs({dir.path() + "/good.jsonl"}, InputFormat::kAuto, &inputs).ok());
  CorpusOptions options;
  Status s;
  auto chunks = ReadChunks(inputs, options, &s);
  REQUIRE(s.ok());
  ChunkTokenizer tokenizer(options, &inputs);
  TokenCollector sink;
  for (const Chunk& c : chunks) REQUIRE(tokenizer.Tokenize(c, &sink).ok());
  CHECK(sink.out == std::vector<std::string>{"café", "au", "lait", kDocEnd, "next", "line", kDocEnd,
                                             "b", "c", kDocEnd});

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{\"text\": \"x\"}\n{\"id\": 2}\n", "no field \"text\""},
      {"{\"text\": \"x\"}\n{\"text\": 5}\n", "is not a string"},
      {"{\"text\": \"x\"}\n{\"text\": \"y\", }\n", "malformed JSON"},
      {"{\"text\": \"x\"}\n[\"text\"]\n", "not an object"},
      {"{\"text\": \"x\"}\n{\"text\": \"\xFF\"}\n", "malformed JSON"},
  };
  for (const auto& [content, expected] : bad) {
    INFO(content);
    WriteFile(dir.path() + "/bad.jsonl", content);
    REQUIRE(ExpandInputs({dir.path() + "/bad.jsonl"}, InputFormat::kAuto, &inputs).ok());
    chunks = ReadChunks(inputs, options, &s);
    REQUIRE(s.ok());
    ChunkTokenizer t(options, &inputs);
    Status ts = t.Tokenize(chunks.at(0), &sink);
    REQUIRE(ts.code() == Status::Code::kCorruption);
    CHECK(ts.message().find("bad.jsonl: byte 14: ") != std::string::npos);
    CHECK(ts.message().find(expected) != std::string::npos);
  }
}

// "\u0000" in a JSON string put a NUL inside a word, where a raw
// NUL byte in a text line is a bad record.
TEST_CASE("A JSONL string holding U+0000 is a bad record, as a NUL byte in text is", "[corpus]") {
  TestDir dir("sg-test-");
  const std::string path =
      dir.Write("nul.jsonl",
                "{\"text\": \"fine words\"}\n{\"text\": \"wo\\u0000rd\"}\n{\"text\": \"more\"}\n");
  std::vector<InputFile> inputs;
  REQUIRE(ExpandInputs({path}, InputFormat::kAuto, &inputs).ok());
  CorpusOptions options;
  Status s;
  const std::vector<Chunk> chunks = ReadChunks(inputs, options, &s);
  REQUIRE(s.ok());
  const std::string reason =
      path + ": byte 23: JSON field \"text\" holds a NUL character (\\u0000)";
  TokenCollector sink;
  ChunkTokenizer strict(options, &inputs);
  const Status failed = strict.Tokenize(chunks.at(0), &sink);
  CHECK(failed.code() == Status::Code::kCorruption);
  CHECK(failed.message() == reason + " (a bad record: --skip-bad-records skips and counts them)");

  options.skip_bad_records = true;
  ChunkTokenizer skipping(options, &inputs);
  sink.out.clear();
  REQUIRE(skipping.Tokenize(chunks.at(0), &sink).ok());
  CHECK(sink.out == std::vector<std::string>{"fine", "words", kDocEnd, "more", kDocEnd});
  CHECK(skipping.bad_records() == 1);
  CHECK(skipping.first_bad_reason() == reason);
}

TEST_CASE("An input ending exactly at a chunk boundary still ends its last chunk", "[corpus]") {
  TestDir dir("sg-test-");
  // Two lines of exactly one chunk each: the file ends where the second
  // chunk's read stops, so only reading ahead can tell it is the last.
  const std::string text =
      std::string(2000, 'a') + " " + std::string(2094, 'b') + "\n" + std::string(4095, 'c') + "\n";
  WriteFile(dir.path() + "/exact.txt", text);
  WriteFile(dir.path() + "/next.txt", "more\n");
  std::vector<InputFile> inputs;
  REQUIRE(ExpandInputs({dir.path() + "/exact.txt", dir.path() + "/next.txt"}, InputFormat::kAuto,
                       &inputs)
              .ok());
  CorpusOptions options;
  options.chunk_bytes = 4096;
  Status s;
  const std::vector<Chunk> chunks = ReadChunks(inputs, options, &s);
  REQUIRE(s.ok());
  REQUIRE(chunks.size() == 3);
  CHECK(chunks[0].input == 0);
  CHECK_FALSE(chunks[0].ends_input);
  CHECK(chunks[1].input == 0);
  CHECK(chunks[1].ends_input);
  CHECK(chunks[1].offset + chunks[1].size() == 8192);
  CHECK(chunks[2].ends_input);
}

TEST_CASE("Words-tokenizer chunks cut only where tokens cannot join", "[corpus]") {
  TestDir dir("sg-test-");
  // No spaces or tabs: cuts must come from the words tokenizer's own rules.
  static const std::vector<std::string> kPieces = {
      "日本", "語", "。", "、", "ab",           "-",   "'", "1",
      ".",    ",",  "!",  "«",  "\xE2\x80\x99", "Ünï", "2", "x"};
  std::mt19937_64 rng(5);
  std::string text;
  while (text.size() < 300000) text += kPieces[rng() % kPieces.size()];
  for (int i = 0; i < 5000; ++i) text += "a-";  // one 10 KB token: no safe cut inside
  text += "end。";
  while (text.size() < 330000) text += kPieces[rng() % kPieces.size()];
  WriteFile(dir.path() + "/cjk.txt", text);
  std::vector<InputFile> inputs;
  REQUIRE(ExpandInputs({dir.path() + "/cjk.txt"}, InputFormat::kAuto, &inputs).ok());

  CorpusOptions options;
  options.tokenizer = TokenizerKind::kWords;
  Tokenizer whole(options);
  TokenCollector expected;
  whole.Tokenize(text, false, &expected);
  expected.out.push_back(kDocEnd);  // the input's end
  for (size_t chunk_bytes : {size_t{4096}, size_t{5000}, size_t{65536}}) {
    INFO("chunk_bytes " << chunk_bytes);
    options.chunk_bytes = chunk_bytes;
    Status s;
    const std::vector<Chunk> chunks = ReadChunks(inputs, options, &s);
    REQUIRE(s.ok());
    CHECK(chunks.size() > 4);
    ChunkTokenizer tokenizer(options, &inputs);
    TokenCollector sink;
    for (const Chunk& c : chunks) REQUIRE(tokenizer.Tokenize(c, &sink).ok());
    const auto [got, want] =
        std::mismatch(sink.out.begin(), sink.out.end(), expected.out.begin(), expected.out.end());
    INFO("first difference at token " << (got - sink.out.begin()) << ": got '"
                                      << (got != sink.out.end() ? *got : "<end>") << "', want '"
                                      << (want != expected.out.end() ? *want : "<end>") << "'");
    CHECK(got == sink.out.end());
    CHECK(want == expected.out.end());
  }
}
