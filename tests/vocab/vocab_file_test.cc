#include <sys/stat.h>

#include <cstdio>
#include <thread>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "streamglove/vocabulary.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

TEST_CASE("ReadVocabFile reads GloVe vocab files and names bad lines", "[vocab]") {
  TestDir dir("sg-test-");
  const std::string path = dir.path() + "/vocab.txt";
  WriteFile(path, "the 10\nof 7\r\nnaïve 2\n");
  std::vector<VocabEntry> entries;
  REQUIRE(ReadVocabFile(path, &entries).ok());
  REQUIRE(entries.size() == 3);
  CHECK(entries[2].word == "naïve");
  CHECK(entries[2].count == 2);

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"the 10\nof\n", "line 2: expected"},
      {"the 10\nof -3\n", "line 2: count '-3'"},
      {"the 10\nof 7x\n", "line 2: count '7x'"},
      {"the 10\nof 0\n", "line 2: count '0'"},
      {"the 10\nof 7\nthe 3\n", "line 3: duplicate word 'the'"},
  };
  for (const auto& [content, expected] : bad) {
    INFO(content);
    WriteFile(path, content);
    const Status s = ReadVocabFile(path, &entries);
    REQUIRE(s.code() == Status::Code::kCorruption);
    CHECK(s.message().find(path + ": " + expected) == 0);
  }
}

TEST_CASE("ReadVocabFile reads lines across its read buffer and a last line without newline",
          "[vocab]") {
  TestDir dir("sg-test-");
  const std::string path = dir.path() + "/vocab.txt";
  // About 3.4 MB: lines cross the 1 MiB read buffer's ends.
  std::string text;
  const size_t words = 200000;
  for (size_t i = 0; i < words; ++i)
    text += "word" + std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  text += "last 7";
  WriteFile(path, text);
  std::vector<VocabEntry> entries;
  REQUIRE(ReadVocabFile(path, &entries).ok());
  REQUIRE(entries.size() == words + 1);
  for (size_t i = 0; i < words; ++i) {
    REQUIRE(entries[i].word == "word" + std::to_string(i));
    REQUIRE(entries[i].count == i + 1);
  }
  CHECK(entries.back().word == "last");
  CHECK(entries.back().count == 7);

  // A duplicate far from its first entry.
  WriteFile(path, text + "\nword12345 3\n");
  const Status s = ReadVocabFile(path, &entries);
  REQUIRE(s.code() == Status::Code::kCorruption);
  CHECK(s.message() ==
        path + ": line " + std::to_string(words + 2) + ": duplicate word 'word12345'");
}

TEST_CASE("ForEachVocabFileWord visits ReadVocabFile's entries and names bad lines alike",
          "[vocab]") {
  TestDir dir("sg-test-");
  const std::string path = dir.path() + "/vocab.txt";
  // Lines that cross the 1 MiB read buffer's ends, one from Windows, a last
  // line without a newline.
  std::string text = "the 10\r\n";
  for (size_t i = 0; i < 150000; ++i)
    text += "word" + std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  text += "last 7";
  WriteFile(path, text);
  std::vector<VocabEntry> want;
  REQUIRE(ReadVocabFile(path, &want).ok());
  std::vector<VocabEntry> got;
  REQUIRE(ForEachVocabFileWord(path, [&](std::string_view word, uint64_t count) {
            got.push_back(VocabEntry{std::string(word), count});
            return Status::OK();
          }).ok());
  // Every line, in order, independently of ReadVocabFile's reader.
  REQUIRE(got.size() == 150002);
  CHECK(got.front().word == "the");
  CHECK(got.front().count == 10);
  CHECK(got[12346].word == "word12345");
  CHECK(got[12346].count == 12346);
  CHECK(got.back().word == "last");
  CHECK(got.back().count == 7);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    REQUIRE(got[i].word == want[i].word);
    REQUIRE(got[i].count == want[i].count);
  }

  // The visitor's error stops the pass.
  size_t visited = 0;
  const Status stopped = ForEachVocabFileWord(path, [&](std::string_view, uint64_t) {
    return ++visited == 3 ? Status::IOError("enough") : Status::OK();
  });
  CHECK(stopped.message() == "enough");
  CHECK(visited == 3);

  // A bad line is ReadVocabFile's error, after the lines before it.
  for (const auto& [content, expected] : std::vector<std::pair<std::string, std::string>>{
           {"the 10\nof\n", "line 2: expected"}, {"the 10\nof 0\n", "line 2: count '0'"}}) {
    INFO(content);
    WriteFile(path, content);
    visited = 0;
    const Status s = ForEachVocabFileWord(path, [&](std::string_view, uint64_t) {
      ++visited;
      return Status::OK();
    });
    REQUIRE(s.code() == Status::Code::kCorruption);
    CHECK(s.message().find(path + ": " + expected) == 0);
    CHECK(visited == 1);
  }
  const std::string missing = dir.path() + "/missing";
  const Status s =
      ForEachVocabFileWord(missing, [](std::string_view, uint64_t) { return Status::OK(); });
  CHECK(!s.ok());
  CHECK(s.message().find(missing + ": ") == 0);
}

TEST_CASE("ReadVocabFile reads a pipe, which it cannot count first", "[vocab]") {
  TestDir dir("sg-test-");
  const std::string fifo = dir.path() + "/vocab.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string text;
  for (int i = 0; i < 100000; ++i) text += fmt::format("w{} {}\n", i, i + 1);
  std::thread writer([&] {
    std::FILE* f = std::fopen(fifo.c_str(), "w");
    if (f == nullptr) return;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  });
  std::vector<VocabEntry> entries;
  const Status s = ReadVocabFile(fifo, &entries);
  writer.join();
  REQUIRE(s.ok());
  REQUIRE(entries.size() == 100000);
  CHECK(entries[99999].word == "w99999");
  CHECK(entries[99999].count == 100000);
}
