#include "train/tile_schedule.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "train/bucket_trainer.h"

namespace streamglove {

uint32_t PartSize(uint32_t vocab, uint32_t part, uint32_t parts) {
  const uint32_t laps = vocab / parts;  // whole laps: one word of each part
  const uint32_t rest = vocab % parts;  // the last lap's first `rest` positions
  const uint32_t at = laps % 2 == 0 ? part : parts - 1 - part;
  return laps + (at < rest ? 1 : 0);
}

uint32_t ChooseTileParts(uint64_t stream_bytes, uint64_t round_bytes) {
  for (uint32_t parts = kMinTileParts; parts <= kMaxTileParts; parts *= 2) {
    if (stream_bytes / parts <= round_bytes) return parts;
  }
  return 0;
}

namespace {

// 0 .. n-1 in an order drawn from `rng`.
std::vector<uint32_t> Permutation(uint32_t n, std::mt19937_64* rng) {
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), *rng);
  return order;
}

}  // namespace

std::vector<uint32_t> RoundTiles(uint64_t seed, uint32_t epoch, uint32_t round, uint32_t parts) {
  // Tags apart from the block orders' (~0) and buckets' (top bit set).
  std::mt19937_64 rng(MixSeed(seed, epoch, (uint64_t{1} << 62) | 0x7113));
  const std::vector<uint32_t> cols = Permutation(parts, &rng);
  const std::vector<uint32_t> shifts = Permutation(parts, &rng);
  std::vector<uint32_t> tiles(parts);
  for (uint32_t r = 0; r < parts; ++r) {
    tiles[r] = TileId(r, cols[(r + shifts[round]) % parts], parts);
  }
  return tiles;
}

std::vector<uint32_t> SweepRounds(uint64_t seed, uint32_t epoch, uint32_t sweep, uint32_t parts) {
  std::mt19937_64 rng(MixSeed(seed, epoch, (uint64_t{1} << 62) | (uint64_t{sweep} << 20) | 0x5e3));
  return Permutation(parts, &rng);
}

PartNoise::PartNoise(const std::vector<double>& weights, uint32_t parts) : parts_(parts) {
  const auto vocab = static_cast<uint32_t>(weights.size());
  tables_.reserve(parts);
  for (uint32_t c = 0; c < parts; ++c) {
    std::vector<double> part(PartSize(vocab, c, parts));
    for (uint32_t i = 0; i < part.size(); ++i) part[i] = weights[PartWord(i, c, parts)];
    // A part without weight (fewer words than parts) is never drawn from:
    // it has no columns, so no tile of it holds a pair.
    if (part.empty() || std::accumulate(part.begin(), part.end(), 0.0) <= 0) part.assign(1, 1.0);
    tables_.emplace_back(part);
  }
}

}  // namespace streamglove
