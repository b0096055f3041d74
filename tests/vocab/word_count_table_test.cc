#include "vocab/word_count_table.h"

#include <map>
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace streamglove;

TEST_CASE("WordCountTable counts like std::map and drains in order", "[vocab]") {
  std::mt19937_64 rng(3);
  WordCountTable table;
  std::map<std::string, uint64_t> expected;
  for (int i = 0; i < 200000; ++i) {
    std::string w = fmt::format("w{}", rng() % 30000);
    if (rng() % 7 == 0) w += std::string(1 + rng() % 40, 'q');
    const uint64_t c = 1 + rng() % 3;
    REQUIRE(table.Add(w, c));
    expected[w] += c;
  }
  CHECK(table.size() == expected.size());

  std::vector<std::pair<std::string, uint64_t>> by_word;
  table.Drain(WordCountTable::Order::kByWord, 1,
              [&](std::string_view w, uint64_t c) { by_word.emplace_back(w, c); });
  CHECK(by_word == std::vector<std::pair<std::string, uint64_t>>(expected.begin(), expected.end()));
  CHECK(table.size() == 0);

  for (const auto& [w, c] : expected) REQUIRE(table.Add(w, c));
  std::vector<std::pair<std::string, uint64_t>> by_count;
  table.Drain(WordCountTable::Order::kByCountDesc, 5,
              [&](std::string_view w, uint64_t c) { by_count.emplace_back(w, c); });
  std::vector<std::pair<std::string, uint64_t>> want;
  for (const auto& e : expected) {
    if (e.second >= 5) want.push_back(e);
  }
  std::stable_sort(want.begin(), want.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  CHECK(by_count == want);
}

TEST_CASE("WordCountTable refuses new words past its budget but never known ones", "[vocab]") {
  const size_t budget = size_t{1} << 20;
  WordCountTable table(budget);
  size_t added = 0;
  while (table.Add(fmt::format("word{}", added), 1)) ++added;
  CHECK(added > 1000);
  CHECK(table.memory_bytes() <= budget);
  CHECK(table.Add("word0", 5));  // known words still count
  table.Clear();
  CHECK(table.Add("fresh", 1));
}
