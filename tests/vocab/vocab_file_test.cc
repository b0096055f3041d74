#include <catch2/catch.hpp>

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
