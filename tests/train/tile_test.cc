// The tile schedule (train/tile_schedule.h) and its reader (train/
// tile_reader.h), each against a brute-force check, and training in tiles:
// the same vectors at any thread count.
#include <cmath>
#include <csignal>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "store/ranked_vocab.h"
#include "store/store.h"
#include "streamglove/interrupt.h"
#include "streamglove/train.h"
#include "train/block_stream.h"
#include "train/tile_reader.h"
#include "train/tile_schedule.h"
#include "train/train_fixture.h"
#include "util/split_mix.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

using Cell = std::pair<uint32_t, uint32_t>;

// Every part of an epoch of `reader`, each checked to hold in bucket k only
// pairs of round tile k (the rounds as RoundTiles deals them, visited in
// SweepRounds' order, one part a round); fn(sweep, pair) for every pair read.
template <typename Fn>
void ReadEpochChecked(TileReader* reader, const BlockStreamInfo& info, uint64_t seed,
                      uint32_t epoch, Fn fn) {
  const uint32_t parts = info.tile_parts;
  BlockPart part;
  uint32_t visit = 0;
  uint64_t records = 0;
  for (bool done = false;;) {
    REQUIRE(reader->Next(&part, &done).ok());
    if (done) break;
    records += part.records;
    const uint32_t sweep = visit / parts;
    const uint32_t round = SweepRounds(seed, epoch, sweep, parts).at(visit % parts);
    const std::vector<uint32_t> tiles = RoundTiles(seed, epoch, round, parts);
    REQUIRE(part.buckets() == parts);
    REQUIRE(part.bucket_noise_part.size() == parts);
    for (size_t k = 0; k < parts; ++k) {
      CHECK(part.bucket_noise_part[k] == tiles[k] % parts);
      for (size_t i = part.bucket_begin[k]; i < part.bucket_begin[k + 1]; ++i) {
        const TrainingPair& p = part.pairs[i];
        CHECK(TilePart(p.row, parts) == tiles[k] / parts);
        CHECK(TilePart(p.col, parts) == tiles[k] % parts);
        fn(sweep, p);
      }
    }
    ++visit;
  }
  CHECK(records == info.pairs);
}

// The loss column of a run's log.
std::string Losses(const TrainFixture& f, const std::string& name) {
  std::istringstream log(ReadFile(f.dir.path() + "/" + name + ".log.tsv"));
  std::string losses, line;
  while (std::getline(log, line)) {
    std::istringstream fields(line);
    std::string epoch, loss;
    fields >> epoch >> loss;
    losses += loss + " ";
  }
  return losses;
}

}  // namespace

TEST_CASE("Tile parts deal the ranks in a snake, each part's words found from its own index",
          "[train][tiles]") {
  for (const uint32_t parts : {1u, 3u, 16u, 32u}) {
    for (const uint32_t vocab : {0u, 1u, 15u, 16u, 17u, 33u, 1000u}) {
      INFO("parts " << parts << " vocab " << vocab);
      std::vector<std::vector<uint32_t>> members(parts);
      for (uint32_t rank = 0; rank < vocab; ++rank) {
        const uint32_t part = TilePart(rank, parts);
        REQUIRE(part < parts);
        members[part].push_back(rank);
      }
      for (uint32_t c = 0; c < parts; ++c) {
        CHECK(PartSize(vocab, c, parts) == members[c].size());
        for (uint32_t i = 0; i < members[c].size(); ++i)
          CHECK(PartWord(i, c, parts) == members[c][i]);
      }
      // The snake: ranks kP .. kP + P - 1 go one to each part.
      for (uint32_t lap = 0; (lap + 1) * parts <= vocab; ++lap) {
        std::set<uint32_t> seen;
        for (uint32_t i = 0; i < parts; ++i) seen.insert(TilePart(lap * parts + i, parts));
        CHECK(seen.size() == parts);
      }
    }
  }
  CHECK(ChooseTileParts(1000, 1000) == 16);
  CHECK(ChooseTileParts(16000, 1000) == 16);
  CHECK(ChooseTileParts(16016, 1000) == 32);
  CHECK(ChooseTileParts(32032, 1000) == 0);  // too large for tiles: random blocks
}

TEST_CASE("A round's tiles share no row or column part, and an epoch trains every tile once",
          "[train][tiles]") {
  for (const uint32_t parts : {1u, 5u, 16u, 32u}) {
    for (const uint64_t seed : {1u, 7u}) {
      std::set<std::vector<uint32_t>> orders;  // the epochs' first rounds
      for (uint32_t epoch = 0; epoch < 4; ++epoch) {
        INFO("parts " << parts << " seed " << seed << " epoch " << epoch);
        std::vector<int> trained(parts * parts, 0);
        for (uint32_t round = 0; round < parts; ++round) {
          const std::vector<uint32_t> tiles = RoundTiles(seed, epoch, round, parts);
          REQUIRE(tiles.size() == parts);
          std::set<uint32_t> rows, cols;
          for (uint32_t k = 0; k < parts; ++k) {
            CHECK(tiles[k] / parts == k);  // in the order of their row parts
            rows.insert(tiles[k] / parts);
            cols.insert(tiles[k] % parts);
            ++trained.at(tiles[k]);
          }
          CHECK(rows.size() == parts);
          CHECK(cols.size() == parts);
        }
        CHECK(std::count(trained.begin(), trained.end(), 1) == parts * parts);
        orders.insert(RoundTiles(seed, epoch, 0, parts));
        CHECK(RoundTiles(seed, epoch, 0, parts) == RoundTiles(seed, epoch, 0, parts));
      }
      if (parts >= 16) CHECK(orders.size() > 1);  // epochs differ
      // Each sweep visits every round once, sweeps in orders of their own.
      std::set<std::vector<uint32_t>> sweeps;
      for (uint32_t sweep = 0; sweep < kUnitSweeps; ++sweep) {
        std::vector<uint32_t> rounds = SweepRounds(seed, 3, sweep, parts);
        sweeps.insert(rounds);
        std::sort(rounds.begin(), rounds.end());
        for (uint32_t r = 0; r < parts; ++r) CHECK(rounds.at(r) == r);
      }
      if (parts >= 16) CHECK(sweeps.size() == kUnitSweeps);
    }
  }
}

TEST_CASE("A part's noise words are its own words, drawn in their share", "[train][tiles]") {
  const uint32_t vocab = 100, parts = 16;
  std::vector<double> weights(vocab);
  for (uint32_t i = 0; i < vocab; ++i) weights[i] = 1.0 / (i + 1);
  const PartNoise noise(weights, parts);
  SplitMix64 random(3);
  for (const uint32_t part : {0u, 5u, 15u}) {
    double part_weight = 0;
    for (uint32_t i = 0; i < vocab; ++i) part_weight += TilePart(i, parts) == part ? weights[i] : 0;
    std::map<uint32_t, int> drawn;
    const int draws = 200000;
    for (int d = 0; d < draws; ++d) ++drawn[noise.Sample(part, random.Next())];
    for (const auto& [word, n] : drawn) {
      INFO("part " << part << " word " << word);
      REQUIRE(word < vocab);
      CHECK(TilePart(word, parts) == part);
      CHECK(static_cast<double>(n) / draws == Approx(weights[word] / part_weight).margin(0.01));
    }
  }
}

TEST_CASE("A tiled stream is read whole each epoch, each bucket within its round's tile",
          "[train][tiles]") {
  TrainFixture f;
  std::unique_ptr<Store> store;
  REQUIRE(Store::OpenForReading(f.store, 64 << 20, &store).ok());
  const RankedVocab ranked(store->config(), store->vocab(), 1, 0);
  std::map<Cell, float> want;
  const double scale = static_cast<double>(store->config().scale);
  REQUIRE(ForEachRankedPair(store.get(), ranked, [&](uint32_t row, uint32_t col, uint64_t value) {
            want[{row, col}] = static_cast<float>(static_cast<double>(value) / scale);
            return Status::OK();
          }).ok());
  BlockStreamInfo info;
  for (const BlockCompression compression : {BlockCompression::kNone, BlockCompression::kZstd}) {
    REQUIRE(OpenBlockStream(store.get(), f.dir.path() + "/blocks", ranked, size_t{64} << 20,
                            BlockLayout::kTiles, compression, &info)
                .ok());
    REQUIRE(info.tile_parts == kMinTileParts);
    REQUIRE(info.pairs == want.size());
    const PairTransform counts{[](const PairRecord32& r) {
                                 return TrainingPair{r.row, r.col, 0.0f, r.count};
                               },
                               false};
    for (uint32_t epoch = 0; epoch < 2; ++epoch) {
      TileReader reader(&info, 9, epoch, &counts, 1);
      std::map<Cell, float> got;
      ReadEpochChecked(&reader, info, 9, epoch, [&](uint32_t, const TrainingPair& p) {
        CHECK(got.emplace(Cell{p.row, p.col}, p.weight).second);  // each pair once
      });
      CHECK(got == want);
    }
  }
  // Another layout is rebuilt; the same is reused.
  REQUIRE(OpenBlockStream(store.get(), f.dir.path() + "/blocks", ranked, size_t{64} << 20,
                          BlockLayout::kTiles, BlockCompression::kZstd, &info)
              .ok());
  CHECK_FALSE(info.built);
  REQUIRE(OpenBlockStream(store.get(), f.dir.path() + "/blocks", ranked, size_t{64} << 20,
                          BlockLayout::kRandom, BlockCompression::kZstd, &info)
              .ok());
  CHECK(info.built);
  CHECK(info.tile_parts == 0);
}

TEST_CASE("Unit updates from tiles: a record's copies are the same however the round is sliced",
          "[train][tiles]") {
  TrainFixture f;
  std::unique_ptr<Store> store;
  REQUIRE(Store::OpenForReading(f.store, 64 << 20, &store).ok());
  const RankedVocab ranked(store->config(), store->vocab(), 1, 0);
  BlockStreamInfo info;
  REQUIRE(OpenBlockStream(store.get(), f.dir.path() + "/blocks", ranked, size_t{64} << 20,
                          BlockLayout::kTiles, BlockCompression::kNone, &info)
              .ok());
  // Weight x: floor(x) or ceil(x) copies, each of weight 1.
  const PairTransform units{[](const PairRecord32& r) {
                              return TrainingPair{r.row, r.col, 0.0f, r.count * 0.7f};
                            },
                            true};
  std::map<Cell, uint64_t> whole, sliced;
  std::vector<std::map<Cell, uint64_t>> by_sweep(kUnitSweeps);
  uint64_t copies = 0;
  double expected = 0;
  {
    TileReader reader(&info, 4, 1, &units, size_t{1} << 30);  // one part per round
    ReadEpochChecked(&reader, info, 4, 1, [&](uint32_t sweep, const TrainingPair& p) {
      CHECK(p.weight == 1);
      ++whole[{p.row, p.col}];
      ++by_sweep.at(sweep)[{p.row, p.col}];
      ++copies;
    });
  }
  // Each sweep holds an even share of every record's copies: n copies give
  // floor(n / sweeps) or one more to each.
  for (const auto& [cell, n] : whole) {
    for (uint32_t k = 0; k < kUnitSweeps; ++k) {
      const auto it = by_sweep[k].find(cell);
      const uint64_t got = it == by_sweep[k].end() ? 0 : it->second;
      CHECK(got >= n / kUnitSweeps);
      CHECK(got <= (n + kUnitSweeps - 1) / kUnitSweeps);
    }
  }
  REQUIRE(ForEachRankedPair(store.get(), ranked, [&](uint32_t, uint32_t, uint64_t value) {
            expected +=
                0.7 * static_cast<double>(value) / static_cast<double>(store->config().scale);
            return Status::OK();
          }).ok());
  CHECK(static_cast<double>(copies) == Approx(expected).epsilon(0.02));
  size_t parts_read = 0;
  {
    TileReader reader(&info, 4, 1, &units, 97);  // many slices a round
    BlockPart part;
    for (bool done = false;;) {
      REQUIRE(reader.Next(&part, &done).ok());
      if (done) break;
      ++parts_read;
      for (const TrainingPair& p : part.pairs) ++sliced[{p.row, p.col}];
    }
  }
  CHECK(parts_read > 2 * kUnitSweeps * kMinTileParts);
  CHECK(sliced == whole);
  // Records of weight 0.0005: most records have no copy, and most sweeps'
  // slices hold none of a tile's; the sweeps still keep every copy drawn.
  const PairTransform sparse{[](const PairRecord32& r) {
                               return TrainingPair{r.row, r.col, 0.0f, 0.0005f};
                             },
                             true};
  uint64_t sparse_copies = 0;
  {
    TileReader reader(&info, 4, 1, &sparse, 97);
    BlockPart part;
    for (bool done = false;;) {
      REQUIRE(reader.Next(&part, &done).ok());
      if (done) break;
      sparse_copies += part.pairs.size();
    }
  }
  const double mean = 0.0005 * static_cast<double>(info.pairs);
  INFO("pairs " << info.pairs);
  CHECK(std::abs(static_cast<double>(sparse_copies) - mean) < 5 * std::sqrt(mean) + 1);
}

TEST_CASE("Tiles train the same vectors at any thread count, and resumed on another",
          "[train][tiles]") {
  {  // By default both objectives train tiles.
    TrainFixture f;
    TrainStats stats;
    TrainOptions o = f.Options();
    f.Run("glove.txt", o, &stats);
    CHECK(stats.tile_parts == kMinTileParts);
    o.objective = Objective::kSgns;
    f.Run("sgns.txt", o, &stats);
    CHECK(stats.tile_parts == kMinTileParts);
  }
  TrainFixture f;
  TrainStats stats;
  TrainOptions glove = f.Options();
  glove.schedule = TrainSchedule::kTiles;
  TrainOptions sgns = glove;
  sgns.objective = Objective::kSgns;
  sgns.subwords.chosen = true;  // words as atoms: n-gram rows are shared by every part
  for (const TrainOptions& o : {glove, sgns}) {
    INFO(ObjectiveName(o.objective));
    TrainOptions one = o;
    one.threads = 1;
    const std::string vectors = f.Run("one.txt", one, &stats);
    CHECK(stats.tile_parts == kMinTileParts);
    for (const int threads : {2, 3, 16}) {
      INFO("threads " << threads);
      TrainOptions many = o;
      many.threads = threads;
      CHECK(f.Run("many.txt", many, &stats) == vectors);
      CHECK(Losses(f, "many.txt") == Losses(f, "one.txt"));  // summed in one order
    }
    // Interrupted (SIGINT) on 3 threads once epoch 2's checkpoint is
    // written, resumed on 2: the same vectors.
    TrainOptions stopped = o;
    stopped.threads = 3;
    stopped.on_epoch = [](const TrainStats&, const EpochStats& e) {
      if (e.epoch == 2) std::raise(SIGINT);
    };
    {
      ScopedInterruptHandlers handlers;
      CHECK(Train(f.store, f.dir.path() + "/resumed.txt", stopped, &stats).code() ==
            Status::Code::kInterrupted);
    }
    TrainOptions rest = o;
    rest.threads = 2;
    rest.resume = true;
    CHECK(f.Run("resumed.txt", rest, &stats) == vectors);
    CHECK(stats.start_epoch == 2);
    // Hogwild threads train other vectors (random blocks, another order).
    TrainOptions hogwild = one;
    hogwild.schedule = TrainSchedule::kHogwild;
    CHECK(f.Run("hogwild.txt", hogwild, &stats) != vectors);
    CHECK(stats.tile_parts == 0);
  }
}

TEST_CASE("A tiny stream in tiles trains every sweep, its empty slices passed over",
          "[train][tiles]") {
  TrainFixture f;
  std::string text;
  for (int i = 0; i < 200; ++i)
    text += "the cafe sells coffee and the cat drinks milk near a station\n";
  WriteFile(f.dir.path() + "/corpus.txt", text);
  IngestOptions window5;
  window5.window = 5;
  const std::string tiny = f.IngestCorpus("tiny", window5);
  std::map<TrainSchedule, uint64_t> updates;  // of the last epoch
  for (const TrainSchedule schedule : {TrainSchedule::kTiles, TrainSchedule::kHogwild}) {
    TrainOptions o = f.Options();
    o.objective = Objective::kSgns;
    o.subwords.chosen = true;
    o.subsample = 0;  // every count's updates: thousands
    o.schedule = schedule;
    o.on_epoch = [&](const TrainStats&, const EpochStats& e) { updates[schedule] = e.updates; };
    TrainStats stats;
    REQUIRE(Train(tiny, f.dir.path() + "/tiny.txt", o, &stats).ok());
    CHECK(stats.pairs < 200);  // fewer records than a round has slices
  }
  INFO("tiles " << updates[TrainSchedule::kTiles] << " hogwild "
                << updates[TrainSchedule::kHogwild]);
  CHECK(static_cast<double>(updates[TrainSchedule::kTiles]) ==
        Approx(static_cast<double>(updates[TrainSchedule::kHogwild])).epsilon(0.2));
}
