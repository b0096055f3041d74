// WET files (Common Crawl's WARC records of page text) through the chunk
// reader and tokenizer, against the pages the test wrote.
#include <catch2/catch.hpp>

#include "corpus/chunk_tokenizer.h"
#include "corpus/warc_record.h"
#include "streamglove/corpus_reader.h"
#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

// One WARC record as Common Crawl writes them; `length` overrides the true
// Content-Length (a record that lies).
std::string Record(const std::string& type, const std::string& body, long long length = -1) {
  return "WARC/1.0\r\nWARC-Type: " + type + "\r\nWARC-Target-URI: http://example.com/" +
         std::to_string(body.size()) +
         "\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nContent-Type: text/plain\r\nContent-Length: " +
         std::to_string(length < 0 ? static_cast<long long>(body.size()) : length) + "\r\n\r\n" +
         body + "\r\n\r\n";
}

std::string Warcinfo() {
  return Record("warcinfo", "software: test\r\nformat: WARC File Format 1.0\r\n");
}

// What the reader must produce from pages: each page's whitespace tokens, a
// newline ending a document, and the page's end ending one (after a final
// newline too, as a JSONL record's: an empty document costs nothing).
std::vector<std::string> PageTokens(const std::vector<std::string>& pages) {
  std::vector<std::string> out;
  for (const std::string& page : pages) {
    std::vector<std::string> t = ReferenceTokens(page);
    out.insert(out.end(), t.begin(), t.end());
    out.push_back(kDocEnd);
  }
  return out;
}

struct ReadResult {
  Status status;
  std::vector<std::string> tokens;
  uint64_t bad_records = 0;
  std::string first_bad;
};

ReadResult ReadAll(const std::string& path, CorpusOptions options,
                   InputFormat format = InputFormat::kAuto) {
  ReadResult r;
  options.format = format;  // as the CLI sets both from --format
  std::vector<InputFile> inputs;
  r.status = ExpandInputs({path}, format, &inputs);
  if (!r.status.ok()) return r;
  ChunkReader reader(inputs, options);
  ChunkTokenizer tokenizer(options, &reader.inputs());
  TokenCollector sink;
  for (;;) {
    Chunk chunk;
    bool done = false;
    r.status = reader.Next(&chunk, &done);
    if (!r.status.ok() || done) break;
    r.status = tokenizer.Tokenize(chunk, &sink);
    if (!r.status.ok()) break;
  }
  r.tokens = sink.out;
  r.bad_records = tokenizer.bad_records();
  r.first_bad = tokenizer.first_bad_reason();
  return r;
}

}  // namespace

TEST_CASE("WARC records: good, metadata, and every way a record is bad", "[corpus]") {
  const std::string page = "hello world\n";
  const std::string file = Warcinfo() + Record("conversion", page) + Record("conversion", "x", 5) +
                           Record("conversion", "second page");
  WarcRecord r;
  REQUIRE(ScanWarcRecord(file, 0, true, 1 << 20, &r) == WarcScan::kRecord);
  CHECK(r.problem.empty());
  CHECK_FALSE(r.text);
  const size_t second = r.end;
  REQUIRE(ScanWarcRecord(file, second, true, 1 << 20, &r) == WarcScan::kRecord);
  CHECK(r.text);
  CHECK(file.substr(r.body_begin, r.body_size) == page);
  // Content-Length 5 for a 1-byte body: bad, and the next record is found.
  const size_t third = r.end;
  REQUIRE(ScanWarcRecord(file, third, true, 1 << 20, &r) == WarcScan::kRecord);
  CHECK(r.problem.find("Content-Length 5 does not end at a record boundary") != std::string::npos);
  REQUIRE(ScanWarcRecord(file, r.end, true, 1 << 20, &r) == WarcScan::kRecord);
  CHECK(r.problem.empty());
  CHECK(file.substr(r.body_begin, r.body_size) == "second page");
  CHECK(r.end == file.size());

  // Cut anywhere before its end, a record needs more bytes (not at the end)
  // or is bad (at the end).
  const std::string one = Record("conversion", page);
  for (size_t cut = 1; cut < one.size(); ++cut) {
    INFO("cut " << cut);
    CHECK(ScanWarcRecord(std::string_view(one).substr(0, cut), 0, false, 1 << 20, &r) ==
          WarcScan::kNeedMore);
    REQUIRE(ScanWarcRecord(std::string_view(one).substr(0, cut), 0, true, 1 << 20, &r) ==
            WarcScan::kRecord);
    CHECK_FALSE(r.problem.empty());
  }

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"GET / HTTP/1.1\r\n\r\n", "not a WARC record"},
      {"WARC/1.0\r\nWARC-Type: conversion\r\n\r\nbody\r\n\r\n", "without a Content-Length"},
      {"WARC/1.0\r\nContent-Length: 12x\r\n\r\nbody\r\n\r\n", "is not a number"},
      {"WARC/1.0\r\nContent-Length: 999999999\r\n\r\nbody\r\n\r\n",
       "over the 1048576-byte record limit"},
      {"WARC/1.0\r\nContent-Length: 40\r\n\r\nbody\r\n\r\n", "runs past the end of the input"},
      {"WARC/1.0\r\nContent-Length: 2\r\n\r\nbody\r\n\r\n", "does not end at a record boundary"},
      {"WARC/1.0\r\n" + std::string(kMaxWarcHeaderBytes + 10, 'h'), "header without an end"},
  };
  for (const auto& [bytes, why] : bad) {
    INFO(why);
    REQUIRE(ScanWarcRecord(bytes, 0, true, 1 << 20, &r) == WarcScan::kRecord);
    CHECK(r.problem.find(why) != std::string::npos);
    CHECK(r.end == bytes.size());  // no later record to resynchronise on
  }
}

TEST_CASE("A multi-member WET file reads as its pages, in any chunk size", "[corpus]") {
  TestDir dir("sg-test-");
  std::mt19937_64 rng(5);
  // Pages larger and smaller than a chunk, one in UTF-8 beyond ASCII, one with
  // CRLF line ends, one empty.
  const std::vector<std::string> pages = {"Breaking news\nthe quick brown fox\n",
                                          ReplaceBadBytes(RandomText(&rng, 30000)),
                                          "Café crème, naïve façade — 東京 ünïcödé\nzweite Zeile",
                                          "",
                                          "line one\r\nline two\r\n",
                                          ReplaceBadBytes(RandomText(&rng, 9000))};
  std::vector<std::string> members = {Warcinfo()};
  for (const std::string& p : pages) members.push_back(Record("conversion", p));
  members.push_back(Record("metadata", "fetchTimeMs: 12\r\n"));
  // Gzip members cut inside records, as concatenated shards may be.
  std::string all;
  for (const std::string& m : members) all += m;
  WriteFile(dir.path() + "/CC-MAIN-1.warc.wet.gz",
            GzipMembers({all.substr(0, 100), all.substr(100, 20000), all.substr(20100)}));
  WriteFile(dir.path() + "/by-content.txt", all);  // no name to go by: the header says WET
  const std::vector<std::string> expected = PageTokens(pages);
  for (const char* name : {"CC-MAIN-1.warc.wet.gz", "by-content.txt"}) {
    for (size_t chunk_bytes : {size_t{4096}, size_t{10000}, size_t{1} << 20}) {
      INFO(name << " chunk_bytes " << chunk_bytes);
      CorpusOptions options;
      options.chunk_bytes = chunk_bytes;
      const ReadResult r = ReadAll(dir.path() + "/" + name, options);
      INFO(r.status.ToString());
      REQUIRE(r.status.ok());
      CHECK(r.tokens == expected);
    }
  }
  // Forced as text, the same bytes are lines of headers and text.
  CorpusOptions options;
  const ReadResult as_text = ReadAll(dir.path() + "/by-content.txt", options, InputFormat::kText);
  REQUIRE(as_text.status.ok());
  CHECK(as_text.tokens != expected);
  CHECK(std::find(as_text.tokens.begin(), as_text.tokens.end(), "WARC-Type:") !=
        as_text.tokens.end());
}

TEST_CASE("A WET record whose Content-Length lies is an error at its offset, or skipped alone",
          "[corpus]") {
  TestDir dir("sg-test-");
  const std::string good1 = Record("conversion", "first page words\n");
  const std::string good2 = Record("conversion", "third page words\n");
  for (long long lie :
       {3LL, 40LL, 200LL}) {  // short, long (swallows the next record), past the end
    INFO("Content-Length " << lie);
    const std::string liar = Record("conversion", "second page has some words\n", lie);
    const std::string prefix = Warcinfo() + good1;
    const bool at_end = lie == 200;
    const std::string all = prefix + liar + (at_end ? "" : good2);
    WriteFile(dir.path() + "/x.wet.gz", GzipMembers({all}));
    CorpusOptions options;
    ReadResult r = ReadAll(dir.path() + "/x.wet.gz", options);
    REQUIRE(r.status.code() == Status::Code::kCorruption);
    CHECK(r.status.message().find(dir.path() + "/x.wet.gz: byte " + std::to_string(prefix.size()) +
                                  ": WARC") == 0);
    CHECK(r.status.message().find("--skip-bad-records") != std::string::npos);

    options.skip_bad_records = true;
    r = ReadAll(dir.path() + "/x.wet.gz", options);
    INFO(r.status.ToString());
    REQUIRE(r.status.ok());
    CHECK(r.bad_records == 1);
    CHECK(r.first_bad.find("byte " + std::to_string(prefix.size())) != std::string::npos);
    CHECK(r.tokens == PageTokens(at_end ? std::vector<std::string>{"first page words\n"}
                                        : std::vector<std::string>{"first page words\n",
                                                                   "third page words\n"}));
  }
}

TEST_CASE("Invalid UTF-8 in a WET page is a bad record at its byte", "[corpus]") {
  TestDir dir("sg-test-");
  const std::string head = Warcinfo();
  const std::string page = "caf\xC3 au lait\n";
  const std::string record = Record("conversion", page);
  WriteFile(dir.path() + "/u.wet", head + record + Record("conversion", "fine\n"));
  CorpusOptions options;
  ReadResult r = ReadAll(dir.path() + "/u.wet", options);
  REQUIRE(r.status.code() == Status::Code::kCorruption);
  const size_t body = head.size() + record.find(page);
  CHECK(r.status.message().find("byte " + std::to_string(body + 3) + ": invalid UTF-8") !=
        std::string::npos);
  options.skip_bad_records = true;
  r = ReadAll(dir.path() + "/u.wet", options);
  INFO(r.status.ToString());
  REQUIRE(r.status.ok());
  CHECK(r.bad_records == 1);
  CHECK(r.tokens == PageTokens({"fine\n"}));
}
