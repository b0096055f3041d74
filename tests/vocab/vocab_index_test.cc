// VocabIndex against std::unordered_map: every word of a large vocabulary
// (short words inline in their strings, long ones not) finds its id, words
// outside it and prefixes of its words find none, and the index stays within
// its stated size.
#include "vocab/vocab_index.h"

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace streamglove;

TEST_CASE("VocabIndex finds every word's id and nothing else", "[vocab]") {
  std::mt19937_64 rng(11);
  std::vector<VocabEntry> vocab;
  std::unordered_map<std::string, uint32_t> want;
  auto random_word = [&] {
    std::string w(1 + rng() % 24, 'a');
    for (char& c : w) c = static_cast<char>('a' + rng() % 26);
    return w;
  };
  while (vocab.size() < 200000) {
    std::string w = random_word();
    if (want.emplace(w, static_cast<uint32_t>(vocab.size())).second)
      vocab.push_back(VocabEntry{w, vocab.size()});
  }
  const VocabIndex index(vocab);
  CHECK(index.size() == vocab.size());
  for (const auto& [word, id] : want) REQUIRE(index.Lookup(word) == id);
  for (int i = 0; i < 200000; ++i) {
    const std::string w = random_word();
    const auto it = want.find(w);
    REQUIRE(index.Lookup(w) == (it == want.end() ? VocabIndex::kUnknown : it->second));
  }
  for (const VocabEntry& e : vocab) {
    if (e.word.size() > 1 && want.count(e.word.substr(1)) == 0)
      REQUIRE(index.Lookup(e.word.substr(1)) == VocabIndex::kUnknown);
  }
  CHECK(index.Lookup("") == VocabIndex::kUnknown);
  uint64_t long_bytes = 0;  // std::string keeps up to 15 bytes inline
  for (const VocabEntry& e : vocab) long_bytes += e.word.size() > 15 ? e.word.size() + 1 : 0;
  CHECK(long_bytes > 0);
  CHECK(index.out_of_line_bytes() == long_bytes);
  // 8-byte slots at most 3/4 full, at least 3/8 (the table doubles).
  CHECK(index.memory_bytes() == VocabIndex::BytesFor(vocab.size()));
  CHECK(index.memory_bytes() * 3 >= vocab.size() * 8 * 4);
  CHECK(index.memory_bytes() * 3 <= vocab.size() * 8 * 8);
  const std::vector<VocabEntry> none;
  const VocabIndex empty(none);
  CHECK(empty.Lookup("a") == VocabIndex::kUnknown);
  CHECK(empty.size() == 0);
}

TEST_CASE("VocabIndex finds a repeated word at its first id", "[vocab]") {
  // ReadVocabFile finds duplicates so: the later copy's lookup names another id.
  std::vector<VocabEntry> vocab;
  for (int i = 0; i < 1000; ++i) vocab.push_back({fmt::format("w{}", i), 1});
  vocab.push_back({"w17", 1});
  vocab.push_back({"w999", 1});
  vocab.push_back({"w17", 1});
  const VocabIndex index(vocab);
  CHECK(index.Lookup("w17") == 17);
  CHECK(index.Lookup("w999") == 999);
  for (uint32_t id = 0; id < 1000; ++id) REQUIRE(index.Lookup(vocab[id].word) == id);
}
