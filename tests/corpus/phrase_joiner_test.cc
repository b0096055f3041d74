#include "corpus/phrase_joiner.h"

#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "streamglove/phrases.h"
#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

TEST_CASE("Joining is word2phrase's greedy rule, pass after pass, never across a document end",
          "[phrases]") {
  std::mt19937_64 rng(5);
  const std::vector<std::string> words = {"a", "b", "c", "d", "e"};
  // Every pass-1 pair of a..c, and pass-2 pairs of what pass 1 makes.
  std::vector<Phrase> phrases = {{1, "a", "b"},   {1, "b", "c"},     {1, "c", "c"},
                                 {2, "a_b", "c"}, {2, "c_c", "a_b"}, {2, "d", "b_c"}};
  const PhraseList list(phrases);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> tokens;
    for (int i = 0; i < 60; ++i)
      tokens.push_back(rng() % 8 == 0 ? kDocEnd : words[rng() % words.size()]);
    tokens.push_back(kDocEnd);
    TokenCollector got;
    PhraseJoiner joiner(&list, &got);
    for (const std::string& t : tokens) {
      if (t == kDocEnd) {
        joiner.OnDocumentEnd();
      } else {
        joiner.OnToken(t);
      }
    }
    joiner.Flush();
    REQUIRE(got.out == JoinPhrases(list, tokens));
  }
  // The rule by hand: "a b c" joins a_b first, which pass 2 joins with c.
  TokenCollector got;
  PhraseJoiner joiner(&list, &got);
  for (const char* t : {"a", "b", "c", "b", "c"}) joiner.OnToken(t);
  joiner.Flush();
  CHECK(got.out == std::vector<std::string>{"a_b_c", "b_c"});
}

TEST_CASE("A phrase list reads back as written, and its fingerprint names its joins alone",
          "[phrases]") {
  TestDir dir("sg-phrases-");
  std::vector<Phrase> phrases = {{1, "new", "york", 812.5, 1200},
                                 {1, "ice", "cream", 90, 40},
                                 {2, "new_york", "times", 300, 77}};
  const PhraseList list(phrases);
  REQUIRE(list.passes() == 2);
  REQUIRE(list.Write(dir.path() + "/p.txt").ok());
  std::shared_ptr<const PhraseList> read;
  REQUIRE(PhraseList::Read(dir.path() + "/p.txt", &read).ok());
  REQUIRE(read->phrases().size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(read->phrases()[i].left == list.phrases()[i].left);
    CHECK(read->phrases()[i].score == Approx(list.phrases()[i].score));
    CHECK(read->phrases()[i].count == list.phrases()[i].count);
  }
  CHECK(read->fingerprint() == list.fingerprint());
  CHECK(read->Joins(2, "new_york", "times"));
  CHECK_FALSE(read->Joins(1, "new_york", "times"));
  CHECK_FALSE(read->Joins(1, "york", "new"));
  // Another order, other scores, no scores: the same joins.
  std::vector<Phrase> shuffled = {phrases[2], phrases[1], phrases[0]};
  for (Phrase& p : shuffled) p.score = p.count = 0;
  CHECK(PhraseList(shuffled).fingerprint() == list.fingerprint());
  dir.Write("short.txt",
            "# a hand-made list\r\n1\tnew\tyork\r\n\n2\tnew_york\ttimes\n1\tice\tcream");
  REQUIRE(PhraseList::Read(dir.path() + "/short.txt", &read).ok());
  CHECK(read->fingerprint() == list.fingerprint());
  shuffled.pop_back();
  CHECK(PhraseList(shuffled).fingerprint() != list.fingerprint());
}

TEST_CASE("A malformed phrase list is an error naming its file, line and byte", "[phrases]") {
  TestDir dir("sg-phrases-");
  const std::string good = "# list\n1\tnew\tyork\n";  // line 3 starts at byte 18
  const std::string too_long(kMaxTokenBytes, 'x');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1\tnew york\n", "expected pass, left and right"},
      {"0\tnew\tyork\n", "pass '0' is not a positive integer"},
      {"x\tnew\tyork\n", "is not a positive integer"},
      {"1\tice\tcream\tmany\t3\n", "score 'many' is not a number"},
      {"1\tice\tcream\t2.5\t-1\n", "is not a whole number"},
      {"1\tice\t\n", "an empty token"},
      {"1\tice\t" + too_long + "\n", "longer than 999 bytes"},
      {"1\tnew\tyork\t5\t5\n", "pass 1 joins 'new' 'york' again"},
  };
  for (const auto& [line, message] : cases) {
    const std::string path = dir.Write("bad.txt", good + line);
    std::shared_ptr<const PhraseList> list;
    const Status s = PhraseList::Read(path, &list);
    INFO(line);
    REQUIRE_FALSE(s.ok());
    CHECK(s.message().find(path + ": line 3 (byte 18): ") == 0);
    CHECK(s.message().find(message) != std::string::npos);
  }
  std::shared_ptr<const PhraseList> list;
  const Status missing = PhraseList::Read(dir.path() + "/none.txt", &list);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.message().find("none.txt") != std::string::npos);
}
