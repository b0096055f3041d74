// WindowCounter and ChunkStitcher against a brute-force count of Stanford's
// windows: a random token stream with out-of-vocabulary tokens and document
// ends, cut into chunks at random token boundaries, each chunk counted by
// its own WindowCounter and stitched in order, gives exactly the counts of
// every in-vocabulary pair within the window of one document (scale / d at
// distance d, both ways), the word counts and the token totals.
#include "cooccur/window_counter.h"

#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "cooccur/fixed_point.h"
#include "cooccur/pair_run.h"
#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

constexpr uint32_t kKnown = 30, kUnknown = 6;
constexpr char kDocumentEnd[] = "\n";

// Token t of the stream: a known word ("k<id>"), an unknown one or a
// document end.
std::vector<std::string> RandomStream(std::mt19937_64* rng, size_t n) {
  std::vector<std::string> tokens;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = (*rng)() % 100;
    if (r < 4) {
      tokens.push_back(kDocumentEnd);
    } else if (r < 15) {
      tokens.push_back(fmt::format("u{}", (*rng)() % kUnknown));
    } else {
      tokens.push_back(fmt::format("k{}", (*rng)() % kKnown));
    }
  }
  return tokens;
}

// The windows of each document's in-vocabulary ids, counted directly.
std::map<uint64_t, uint64_t> BruteForce(const std::vector<std::string>& tokens, uint32_t window,
                                        uint64_t scale) {
  std::map<uint64_t, uint64_t> counts;
  std::vector<uint32_t> ids;  // the open document's in-vocabulary ids
  for (const std::string& t : tokens) {
    if (t == kDocumentEnd) {
      ids.clear();
      continue;
    }
    if (t[0] != 'k') continue;
    const uint32_t id = static_cast<uint32_t>(std::stoul(t.substr(1)));
    for (uint32_t d = 1; d <= window && d <= ids.size(); ++d) {
      const uint32_t left = ids[ids.size() - d];
      counts[PairKey(left, id)] += scale / d;
      counts[PairKey(id, left)] += scale / d;
    }
    ids.push_back(id);
  }
  return counts;
}

}  // namespace

TEST_CASE("Windows counted in chunks and stitched equal a brute-force count of each document",
          "[cooccur]") {
  std::vector<VocabEntry> vocab;
  for (uint32_t i = 0; i < kKnown; ++i) vocab.push_back({fmt::format("k{}", i), 100});
  const VocabIndex index(vocab);
  // No dense region, or one over the pairs of the low ids (kept once a
  // pair: a symmetric window's).
  const uint64_t max_product = GENERATE(0, 120);
  INFO("dense cells (r + 1)(c + 1) <= " << max_product);
  std::mt19937_64 rng(41);
  for (uint32_t window : {1u, 3u, 10u}) {
    for (size_t chunk_tokens : {size_t{1}, size_t{2}, size_t{7}, size_t{400}}) {
      INFO("window " << window << ", chunks of about " << chunk_tokens << " tokens");
      const std::vector<std::string> tokens = RandomStream(&rng, 3000);
      WindowConfig config;
      config.window = window;
      config.symmetric = true;
      config.weighting = DistanceWeighting::kHarmonic;
      config.scale = CountScale(window, config.weighting, /*subsampled=*/false);
      TestDir dir("sg-windows-");
      BatchRuns runs(dir.path());
      DenseRegion dense(kKnown, max_product, config.symmetric, /*writers=*/1);
      PairAccumulator out(
          PairAccumulator::Layout{kKnown, kKnown, &dense, size_t{1} << 20, 0, config.symmetric},
          &runs);
      ChunkStitcher stitcher(config, &out);
      std::vector<uint64_t> word_counts(kKnown, 0);
      uint64_t tokens_seen = 0, unknown = 0;
      // One counter for every chunk, as a counting worker has; each token
      // passed through a buffer overwritten after the call, as a
      // tokenizer's is.
      WindowCounter counter(&index, config, &out, word_counts.data());
      std::string token_buffer;
      for (size_t at = 0; at < tokens.size();) {
        const size_t n = std::min(tokens.size() - at, 1 + rng() % chunk_tokens);
        ChunkEdges edges;
        counter.BeginChunk(&edges);
        for (size_t i = at; i < at + n; ++i) {
          if (tokens[i] == kDocumentEnd) {
            counter.OnDocumentEnd();
          } else {
            token_buffer = tokens[i];
            counter.OnToken(token_buffer);
            token_buffer.assign(token_buffer.size(), '#');
          }
        }
        counter.EndChunk();
        stitcher.Stitch(edges);
        tokens_seen += edges.tokens;
        unknown += edges.unknown_tokens;
        at += n;
      }
      out.FinishBatch();
      REQUIRE(out.status().ok());
      REQUIRE(runs.Take().empty());  // nothing spilled: the buffer holds every count
      std::vector<std::unique_ptr<PairStream>> streams;
      streams.push_back(NewPairSpanStream(out.sorted_records()));
      streams.push_back(dense.NewDrainStream());
      CHECK(MergedPairs(std::move(streams)) == BruteForce(tokens, window, config.scale));

      std::vector<uint64_t> want_counts(kKnown, 0);
      uint64_t want_tokens = 0, want_unknown = 0;
      for (const std::string& t : tokens) {
        if (t == kDocumentEnd) continue;
        ++want_tokens;
        if (t[0] == 'k') {
          ++want_counts[std::stoul(t.substr(1))];
        } else {
          ++want_unknown;
        }
      }
      CHECK(word_counts == want_counts);
      CHECK(tokens_seen == want_tokens);
      CHECK(unknown == want_unknown);
    }
  }
}
