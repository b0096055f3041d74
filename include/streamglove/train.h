// Training GloVe vectors from a store, without holding the co-occurrence
// matrix in memory.
//
// The store's non-zero pairs are laid out once on disk (STORE/blocks/),
// rebuilt automatically when the store or the vocabulary cut changes: as
// P x P tiles of word parts (GloVe's default schedule on the CPU), or as random blocks
// (TrainSchedule::kHogwild, and on a device). An epoch of tiles is P rounds,
// each training P tiles that share no word row, one thread each, so the
// vectors do not depend on the thread count; an epoch of blocks visits them
// in a fresh random order, shuffles each in memory, and trains it with
// lock-free (Hogwild) updates across threads. The objective and update are
// Stanford GloVe's glove.c's, its steps scaled by a schedule
// (TrainOptions::step_scale, decay_fraction; 1 and 0 give glove.c's own).
// Parameters and AdaGrad state are checkpointed atomically after every epoch
// (or every `checkpoint_every` epochs), so `--resume` continues as if never
// stopped; with a fixed seed, training in tiles (GloVe's default) is
// reproducible bit for bit at any thread count (a subword model's n-gram rows, shared by every
// part, at one thread), and Hogwild training at one thread.
#ifndef STREAMGLOVE_TRAIN_H_
#define STREAMGLOVE_TRAIN_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "streamglove/status.h"
#include "streamglove/subwords.h"
#include "streamglove/vectors_format.h"

namespace streamglove {

// How the block stream's files are stored.
enum class BlockCompression {
  kAuto,  // zstd when the stream is larger than half the available memory
  kZstd,  // always zstd (level 1; docs/formats.md gives its ratio)
  kNone,  // raw 12-byte records
};

// How the CPU's threads share an epoch (docs/architecture.md, "Tiles").
enum class TrainSchedule {
  // Tiles on the CPU, random blocks on a device.
  kAuto,
  // Rounds of tiles whose rows and columns no two threads share: no
  // Hogwild, and the same vectors at any thread count.
  kTiles,
  // Random blocks whose pairs every thread takes, updating shared rows
  // without locks (Hogwild, as glove.c and word2vec).
  kHogwild,
};

// What the vectors are fitted to (docs/sgns.md for the second).
enum class Objective {
  kGlove,  // weighted least squares on log X_ij (Pennington et al.)
  kSgns,   // word2vec's skip-gram with negative sampling, from the counts
};

// Where the updates run.
enum class TrainDevice {
  kCpu,   // the machine's cores, Hogwild threads
  kCuda,  // an NVIDIA GPU, through the CUDA plugin (docs/gpu.md)
};

// "cpu" or "cuda", as the command line names them.
const char* TrainDeviceName(TrainDevice device);
bool ParseTrainDevice(const std::string& name, TrainDevice* device);

// "glove" or "sgns", as the command line names them.
const char* ObjectiveName(Objective objective);
// The objective called `name`; false if none is.
bool ParseObjective(const std::string& name, Objective* objective);

// What a wall-time budget (TrainOptions::budget_seconds) may choose besides
// the epochs: the settings the user did not give.
struct BudgetChoices {
  bool objective = true;  // from the store's window and subsampling (train/budget_plan.h)
  bool dim = true;        // of 50, 100, 200, 300, the one PlanBudget picks (train/budget_plan.h)
  bool x_max = true;      // GloVe: 10, as the presets
};

struct EpochStats;
struct TrainStats;

struct TrainOptions {
  Objective objective = Objective::kGlove;  // Default: GloVe.
  uint32_t dim = 50;                        // vector size. Default: 50.
  uint32_t epochs = 25;                     // passes over the pairs. Default: 25.
  double x_max = 100;                       // GloVe: weighting cutoff. Default: 100.
  double alpha = 0.75;                      // GloVe: weighting exponent. Default: 0.75.
  // Initial learning rate; 0: the objective's, store's and run's default
  // (DefaultEta).
  double eta = 0;
  double grad_clip = 100;  // GloVe: per-component gradient clip, as glove.c. Default: 100.
  // GloVe: AdaGrad's steps of the vector components (not the biases) are
  // multiplied by step_scale, which falls linearly to 0 over the last
  // decay_fraction of the run. glove.c: 1 and 0. Larger
  // steps early help the semantic analogies and the similarity scores, the
  // decay the syntactic ones (docs/benchmarks.md). Defaults: 2 and 1/3.
  double step_scale = 2;
  double decay_fraction = 1.0 / 3;
  uint32_t negatives = 5;  // SGNS: noise words per positive update. Default: 5.
  // SGNS: noise words drawn from unigram^power. Default (empty): 0.75 for
  // words as atoms (word2vec's and gensim's; against fastText's 0.5 it trades
  // analogies for similarity on two of three corpora: docs/sgns.md), 0.5 for
  // a subword model (fastText's; higher syntactic, SimLex and MEN scores
  // there: docs/subwords.md).
  std::optional<double> noise_power;
  // SGNS: word2vec's subsampling threshold t (0: none), applied to the
  // stored counts; not applied to a store counted with subsampling before
  // windowing (IngestOptions::subsample), whose counts hold it. Default: 1e-4.
  double subsample = 1e-4;
  // Character n-grams on the word side of both objectives (fastText's
  // scheme, include/streamglove/subwords.h): every word's vector gains its
  // n-grams', and the model file OUT.model answers words outside the
  // vocabulary. Without buckets given, the n-gram rows take at most half of
  // what memory_bytes leaves beside the words and the smallest blocks. Not
  // with a device or VectorsKind::kBoth. Default (subwords.chosen false):
  // on for skip-gram on the CPU, whose syntactic analogies and rare words
  // they improve at equal time; off for GloVe, whose scores they lower at
  // equal time, on a device and with kBoth (docs/subwords.md).
  SubwordOptions subwords;
  int threads = 0;  // 0: one per core (with a device: the host's threads).
  // The updates on the CPU (default) or a device; the schedule, the
  // checkpoints and the outputs are the same, and so is the block stream
  // when the device run is given the CPU run's memory_bytes plus its
  // staging slots (48 MiB; less memory makes smaller blocks). A device
  // needs a planned number of epochs (no budget).
  TrainDevice device = TrainDevice::kCpu;
  // The CPU's schedule. Default: kAuto. A device trains random blocks, and so
  // does a stream too large for 32 x 32 tiles in memory_bytes
  // (TrainStats::tile_parts says which ran).
  TrainSchedule schedule = TrainSchedule::kAuto;
  // With a device: one update at a time, in order, so a run equals
  // threads = 1 on the CPU to float rounding (for checking a device; slow).
  bool device_sequential = false;
  // With a device: the most device memory the run may take (0: what the
  // device reports free). GloVe's pairs are kept there, and every epoch
  // after the first trained from them, when they fit beside the parameters
  // and the staging slots; otherwise every epoch streams them from the host
  // (TrainStats::device_resident_pairs says which ran). Default: 0.
  uint64_t device_memory_bytes = 0;
  uint64_t seed = 1;  // initialisation and shuffling. Default: 1.
  // Train only words with at least min_count occurrences in the store, the
  // max_vocab most frequent of them. Either 0 takes the store's own cut (a
  // growing store's ingest --min-count and --max-vocab at creation, default 5
  // and all; a fixed vocabulary is already cut: 1 and all). Default: 0.
  uint64_t min_count = 0;
  uint64_t max_vocab = 0;
  size_t memory_bytes = size_t{1} << 30;  // the whole process, parameters included. Default: 1 GiB.
  BlockCompression block_compression = BlockCompression::kAuto;
  uint32_t checkpoint_every = 1;  // epochs between checkpoints (and after the last). Default: 1.
  bool resume = false;            // continue from the checkpoint beside the output
  // Without a checkpoint to resume: start from an earlier run's parameters
  // (its output, with the checkpoint beside it; the same objective and dim),
  // word by word, new words fresh: after an addition to the store, a shorter
  // run gets where a full one from scratch would. Default: empty (none).
  std::string warm_start;
  // A wall-time budget for the whole call (0: none). With one, the epochs
  // (and what budget_choices allows) are planned from rates measured on the
  // store's own pairs, so that training, checkpoints and the vectors file end
  // within it; the plan is written to output + ".plan" and a resumed run
  // finishes it. `epochs` is then ignored.
  double budget_seconds = 0;
  BudgetChoices budget_choices;
  bool progress = true;  // a progress line on a terminal
  // What the vectors file holds. Default (empty): kWordPlusContext; kWord
  // for a GloVe subword model without a context_weight given (the input
  // vectors, as measured there: docs/subwords.md).
  std::optional<VectorsKind> vectors;
  // kWordPlusContext's vectors are w + context_weight * w̃. Default (empty):
  // 1 for words as atoms (the paper's w + w̃); kSubwordContextWeight for a
  // subword model, whose input vector w already holds the n-grams: a little
  // of the context row adds semantic analogy points and costs fewer
  // syntactic ones (docs/subwords.md). Only with kWordPlusContext.
  std::optional<float> context_weight;
  VectorsFormat format = VectorsFormat::kGloveText;
  // Reports, called on Train()'s thread (either may be empty): once the
  // settings are final (after a budget's measurement), and after each
  // epoch's checkpoint and loss-log line. The library prints nothing but
  // the progress line; the command line prints these.
  std::function<void(const TrainStats&)> on_plan;
  std::function<void(const TrainStats&, const EpochStats&)> on_epoch;
};

struct EpochStats {
  uint32_t epoch = 0;
  double loss = 0;       // GloVe: mean f(X)(w·w̃ + b + b̃ − log X)² / 2 per pair; SGNS: mean
                         // −log σ(w·c) − Σ log σ(−w·c_n) per positive update
  uint64_t updates = 0;  // GloVe: = pairs; SGNS: positive updates
  double seconds = 0;
  uint64_t pairs = 0;
  uint64_t skipped = 0;  // updates skipped for NaN or Inf
};

struct TrainStats {
  uint64_t vocab_size = 0;
  uint64_t pairs = 0;  // per epoch
  uint64_t blocks = 0;
  uint32_t tile_parts = 0;  // the tiles' parts P (blocks = P x P); 0: random blocks
  bool blocks_built = false;
  double block_build_seconds = 0;
  uint32_t start_epoch = 0;  // > 0 when resumed
  uint32_t warm_words = 0;   // words started from --warm-start's run
  double store_subsample =
      0;  // the store's subsampling before windowing (SGNS does not subsample again)
  std::vector<EpochStats> epochs;
  int threads = 0;
  std::string device;  // "cpu", or the device's name
  // The pairs a device kept, trained from device memory after the first
  // epoch (0: streamed every epoch, or the CPU).
  uint64_t device_resident_pairs = 0;
  // Subwords: the buckets trained (0: words are atoms) and the words'
  // n-grams, repeats counted.
  uint32_t subword_buckets = 0;
  uint64_t subword_ngrams = 0;
  // With a budget: what was planned (or resumed), and how.
  bool budget_planned = false;
  bool budget_resumed = false;     // the plan was read from output + ".plan"
  bool budget_short = false;       // no dim got budget_min_epochs (PlanBudget says which trained)
  uint32_t budget_min_epochs = 0;  // the fewest epochs a budget plans for the objective
  Objective objective = Objective::kGlove;
  uint32_t dim = 0;
  double x_max = 0;
  double eta = 0;                 // the initial learning rate trained (given, or DefaultEta)
  uint32_t epochs_planned = 0;    // a budget's: what its plan says now
  double last_epoch_share = 1;    // of the last planned epoch's pairs (a budget's may be partial)
  bool budget_replanned = false;  // epochs ran slower or faster than measured: the plan changed
  double budget_predicted_seconds = 0;  // the whole call, as planned
  std::string budget_rates;             // "dim 50: 1.64 M pairs/s, ..." as measured
  double seconds = 0;                   // the whole call
};

// Named settings (docs/benchmarks.md has the measurements behind them). A
// preset sets the objective, dim, epochs and x_max, and trains words as
// atoms (what it was measured with: subwords take longer an epoch); flags
// given explicitly override it.
struct TrainPreset {
  const char* name;
  const char* description;
  Objective objective;
  uint32_t dim;
  uint32_t epochs;
  double x_max;
};
const std::vector<TrainPreset>& TrainPresets();
// The preset called `name`, or nullptr.
const TrainPreset* FindTrainPreset(const std::string& name);

// The initial learning rate of a run of `epochs`. GloVe: 0.05 (glove.c's
// AdaGrad eta). SGNS on a store subsampled before windowing (`ingest
// --subsample`, word2vec's windows: an epoch makes about one word2vec pass's
// updates): 0.025, word2vec's skip-gram alpha, for 10 epochs or more (it
// trades a little analogy accuracy for similarity against 0.075). Shorter
// runs (kSgnsFullRateEpochs) get 0.025 x 10 / epochs, at most 0.05: fewer
// steps need larger ones. SGNS on a store whose pairs the trainer
// subsamples (fewer updates an epoch): 0.075, the best of 0.025-0.2 there.
// The measurements: docs/sgns.md.
double DefaultEta(Objective objective, bool store_subsampled, uint32_t epochs);
// SGNS on word2vec's windows: runs of fewer epochs than this get a larger
// rate (DefaultEta).
inline constexpr uint32_t kSgnsFullRateEpochs = 10;
// TrainOptions::noise_power's defaults: word2vec's for words as atoms,
// fastText's for a subword model.
inline constexpr double kWordNoisePower = 0.75;
inline constexpr double kSubwordNoisePower = 0.5;
// TrainOptions::context_weight's default for a subword model (docs/subwords.md).
inline constexpr float kSubwordContextWeight = 0.2f;

Status ValidateTrainOptions(const TrainOptions& options);

// Sets options->subwords.enabled, then the defaults that depend on it
// (vectors, context_weight, noise_power), where not chosen. Train()
// calls it once the objective is settled (a budget may choose it).
void ResolveSubwords(TrainOptions* options);

// Trains on the store in `store_dir` and writes vectors to `output`, a loss
// log to output + ".log.tsv" and the checkpoint to output + ".checkpoint".
// For --memory to hold, it sets glibc's mmap threshold of the whole process
// to 1 MiB (mallopt M_MMAP_THRESHOLD), so that large blocks are returned
// to the system as they are freed; the setting outlives the call.
Status Train(const std::string& store_dir, const std::string& output, const TrainOptions& options,
             TrainStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_H_
