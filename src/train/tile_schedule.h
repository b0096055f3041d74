// The tile schedule: training without rows shared between workers.
//
// The trained words are dealt to P parts; the block stream's pairs lie in
// P x P tiles, tile (r, c) holding the pairs whose row is in part r and whose
// column is in part c. An epoch is P rounds (skip-gram's: kUnitSweeps
// sweeps of them, below); a round is P tiles whose row
// parts are pairwise distinct and whose column parts are pairwise distinct,
// so the workers training them at once never touch the same word row,
// context row, bias or AdaGrad sum, and over the P rounds every tile is
// trained once (stratified SGD: Gemulla et al., KDD 2011). Which tiles make
// a round, and the rounds' order, are drawn from (seed, epoch) alone: the
// updates a run makes do not depend on how many workers made them.
//
// Parts are dealt in a snake over the ranks (0, 1, .., P-1, P-1, .., 0, 0,
// ..): ranks near each other have counts near each other, so every part gets
// its share of frequent and rare words, and every tile about 1/P^2 of the
// pairs (docs/architecture.md gives the measured spread).
//
// Thread-safety: the functions are pure; PartNoise is immutable after
// construction.
#ifndef STREAMGLOVE_TRAIN_TILE_SCHEDULE_H_
#define STREAMGLOVE_TRAIN_TILE_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "util/alias_table.h"

namespace streamglove {

// The fewest and most parts of a tile stream: 16 parts keep 16 workers busy
// in every round; 32 x 32 tiles are the block stream's most files.
inline constexpr uint32_t kMinTileParts = 16;
inline constexpr uint32_t kMaxTileParts = 32;

// The part of word rank `rank` among `parts`.
inline uint32_t TilePart(uint32_t rank, uint32_t parts) {
  const uint32_t lap = rank / parts, at = rank % parts;
  return lap % 2 == 0 ? at : parts - 1 - at;
}

// The i-th word (in rank order) of part `part`: the rank that TilePart
// maps to it in lap i.
inline uint32_t PartWord(uint32_t i, uint32_t part, uint32_t parts) {
  return i * parts + (i % 2 == 0 ? part : parts - 1 - part);
}

// How many of the ranks below `vocab` are in part `part`.
uint32_t PartSize(uint32_t vocab, uint32_t part, uint32_t parts);

// The tile of row part r and column part c: its block in the stream.
inline uint32_t TileId(uint32_t row_part, uint32_t col_part, uint32_t parts) {
  return row_part * parts + col_part;
}

// The parts of a stream of about `stream_bytes` of records whose rounds
// (1/P of them each) should hold at most `round_bytes`: the least power of
// two from kMinTileParts that does; 0 when even kMaxTileParts do not (the
// stream is then trained as random blocks).
uint32_t ChooseTileParts(uint64_t stream_bytes, uint64_t round_bytes);

// Round `round` (0 to P-1) of epoch `epoch`: its P tiles, in the order of
// their row parts. Column part of row part r: cols[(r + shift) mod P], where
// cols is a permutation of the parts and shift a permutation of the rounds,
// both drawn from (seed, epoch).
std::vector<uint32_t> RoundTiles(uint64_t seed, uint32_t epoch, uint32_t round, uint32_t parts);

// Skip-gram's epoch is kUnitSweeps sweeps over the P rounds, sweep k
// training slice k of every tile's unit updates, so that a word meets every
// column part eight times an epoch instead of once. In one sweep a word's
// updates in a round all pull towards one part's contexts and away from one
// part's noise; with skip-gram's rate (linear, no AdaGrad) over few epochs
// the last parts' pull stays in the vectors. Measured on the planted corpus
// (tests/train/sgns_planted_test.sh, 3 epochs), analogies answered at
// 1 / 4 / 8 / 16 sweeps: 50.3% / 92.2% / 94.9% / 94.7% (random blocks, Hogwild:
// 97.8%). GloVe (AdaGrad) trains one sweep: its tiles matched Hogwild.
inline constexpr uint32_t kUnitSweeps = 8;

// The order in which sweep `sweep` of epoch `epoch` visits the P rounds: a
// permutation drawn from (seed, epoch, sweep). Each sweep trains the same
// rounds (RoundTiles), each in its turn.
std::vector<uint32_t> SweepRounds(uint64_t seed, uint32_t epoch, uint32_t sweep, uint32_t parts);

// Skip-gram's noise distribution within each column part: a pair of tile
// (r, c) draws its noise words from part c's words alone, with their share of
// unigram^power, so that a round's workers never write each other's context
// rows. Over an epoch a word meets every part's noise as often as its pairs
// meet the part's words.
class PartNoise {
 public:
  // `weights`: NoiseWeights over the ranks of the cut.
  PartNoise(const std::vector<double>& weights, uint32_t parts);
  // A noise word (its rank) of part `part`, from 64 random bits.
  uint32_t Sample(uint32_t part, uint64_t bits) const {
    return PartWord(static_cast<uint32_t>(tables_[part].Sample(bits)), part, parts_);
  }
  uint32_t parts() const { return parts_; }

 private:
  uint32_t parts_;
  std::vector<AliasTable> tables_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_TILE_SCHEDULE_H_
