#include "util/sorted_merge.h"

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

using namespace streamglove;

namespace {

// Merges `sources` (each sorted by key) and returns what was visited.
std::vector<std::pair<int, int>> Merge(
    const std::vector<std::vector<std::pair<int, int>>>& sources) {
  std::vector<size_t> pos(sources.size(), 0);
  std::vector<std::pair<int, int>> visited;
  const Status s = MergeSorted<std::pair<int, int>>(
      sources.size(),
      [&](size_t i, std::pair<int, int>* item, bool* done) {
        *done = pos[i] == sources[i].size();
        if (!*done) *item = sources[i][pos[i]++];
        return Status::OK();
      },
      [](const std::pair<int, int>& a, const std::pair<int, int>& b) { return a.first < b.first; },
      [&](const std::pair<int, int>& item) {
        visited.push_back(item);
        return true;
      });
  REQUIRE(s.ok());
  return visited;
}

}  // namespace

TEST_CASE("MergeSorted visits every item of every source in key order", "[util]") {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = rng() % 9;  // 0 to 8 sources, some empty
    std::vector<std::vector<std::pair<int, int>>> sources(n);
    std::vector<std::pair<int, int>> all;
    for (size_t i = 0; i < n; ++i) {
      const size_t len = rng() % 30;
      for (size_t k = 0; k < len; ++k)
        sources[i].push_back({static_cast<int>(rng() % 40), static_cast<int>(i)});
      std::sort(sources[i].begin(), sources[i].end());
      all.insert(all.end(), sources[i].begin(), sources[i].end());
    }
    std::vector<std::pair<int, int>> visited = Merge(sources);
    REQUIRE(visited.size() == all.size());
    CHECK(std::is_sorted(visited.begin(), visited.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; }));
    // The same multiset of (key, source) as a brute-force concatenation.
    std::sort(visited.begin(), visited.end());
    std::sort(all.begin(), all.end());
    CHECK(visited == all);
  }
}

TEST_CASE("MergeSorted stops where the visitor says, and returns a source's error", "[util]") {
  const std::vector<int> a = {1, 3, 5}, b = {2, 4, 6};
  size_t pa = 0, pb = 0, visits = 0;
  const auto next = [&](size_t i, int* item, bool* done) {
    size_t& p = i == 0 ? pa : pb;
    const std::vector<int>& v = i == 0 ? a : b;
    if (i == 1 && p == 2 && visits >= 4) return Status::Corruption("source 1 is damaged");
    *done = p == v.size();
    if (!*done) *item = v[p++];
    return Status::OK();
  };
  const auto less = [](int x, int y) { return x < y; };
  const Status stopped = MergeSorted<int>(2, next, less, [&](int item) {
    ++visits;
    return item != 4;
  });
  CHECK(stopped.ok());
  CHECK(visits == 4);  // 1, 2, 3, 4
  pa = pb = visits = 0;
  const Status damaged = MergeSorted<int>(2, next, less, [&](int) {
    ++visits;
    return true;
  });
  CHECK(damaged.code() == Status::Code::kCorruption);
  CHECK(visits == 4);  // 1, 2, 3, 4: then source 1 fails to read its next
}
