// The train command's engine: block stream, epochs of shuffled blocks trained
// by Hogwild threads, a checkpoint after every epoch, and the vectors file.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "store/store.h"
#include "streamglove/train.h"
#include "train/block_stream.h"
#include "train/glove_model.h"
#include "train/sgns_model.h"
#include "util/alias_table.h"
#include "util/hash.h"
#include "util/interrupt.h"
#include "util/progress.h"
#include "util/size.h"
#include "vectors/vectors_writer.h"

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;

// The vocabulary cut: ids are ranks, so the kept words are a prefix.
uint32_t VocabCut(const std::vector<VocabEntry>& vocab, const TrainOptions& o) {
  uint64_t n = 0;
  while (n < vocab.size() && vocab[n].count >= o.min_count) ++n;
  if (o.max_vocab != 0) n = std::min(n, o.max_vocab);
  return static_cast<uint32_t>(n);
}

double Eta(const TrainOptions& o) { return o.eta > 0 ? o.eta : DefaultEta(o.objective); }

// Hyperparameters a checkpoint must share with the run that resumes it.
uint64_t OptionsHash(const TrainOptions& o, uint32_t vocab, uint64_t pairs) {
  if (o.objective == Objective::kSgns) {
    // "spread": the unit-update stream (a checkpoint of the earlier
    // back-to-back updates is not resumed by this one).
    return HashBytes(fmt::format("sgns spread-due {} {} {} {} {} {} {} {} {}", o.dim, Eta(o), o.negatives, o.noise_power,
                                 o.subsample, o.epochs, o.seed, vocab, pairs));
  }
  const std::string base = fmt::format("{} {} {} {} {} {} {} {}", o.dim, o.x_max, o.alpha, Eta(o), o.grad_clip,
                                      o.seed, vocab, pairs);
  if (o.step_scale == 1 && o.decay_fraction == 0) return HashBytes(base);  // glove.c's update
  // A decaying schedule depends on the run's length: a checkpoint resumes
  // only a run of as many epochs.
  return HashBytes(fmt::format("{} schedule {} {} {}", base, o.step_scale, o.decay_fraction,
                               o.decay_fraction > 0 ? o.epochs : 0));
}

// Deterministic per (seed, epoch, block) so a resumed run shuffles as an
// uninterrupted one would.
uint64_t MixSeed(uint64_t seed, uint64_t a, uint64_t b) {
  return HashBytes(fmt::format("{}/{}/{}", seed, a, b));
}

}  // namespace

const std::vector<TrainPreset>& TrainPresets() {
  static const std::vector<TrainPreset> presets = {
      {"glove-demo", "Stanford GloVe's demo.sh: dim 50, 15 epochs, x_max 10", Objective::kGlove, 50, 15, 10},
      {"demo-time", "the best GloVe vectors found in the wall time of Stanford's whole demo: dim 200, 14 epochs, x_max 10",
       Objective::kGlove, 200, 14, 10},
      {"half-time", "GloVe, dim 100, 10 epochs, x_max 10 (29.6% analogy on wiki100M in about 300 s, a third of demo-time's)",
       Objective::kGlove, 100, 10, 10},
      {"sgns-demo-time",
       "skip-gram (sgns), dim 200, 24 epochs, on a window-5 store: demo-time's analogy score with better similarity, in Stanford's demo time",
       Objective::kSgns, 200, 24, 10},
  };
  return presets;
}

const TrainPreset* FindTrainPreset(const std::string& name) {
  for (const TrainPreset& p : TrainPresets()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

double DefaultEta(Objective objective) { return objective == Objective::kSgns ? 0.075 : 0.05; }

Status ValidateTrainOptions(const TrainOptions& o) {
  if (o.dim < 1 || o.dim > kMaxDim) return Status::InvalidArgument(fmt::format("--dim must be between 1 and {}", kMaxDim));
  if (o.epochs < 1) return Status::InvalidArgument("--epochs must be at least 1");
  if (!(o.x_max > 0)) return Status::InvalidArgument("--x-max must be positive");
  if (!(o.alpha > 0)) return Status::InvalidArgument("--alpha must be positive");
  if (!(o.eta >= 0)) return Status::InvalidArgument("--eta must be positive (or 0 for the objective's default)");
  if (!(o.step_scale > 0 && o.step_scale <= 100)) return Status::InvalidArgument("--step-scale must be in (0, 100]");
  if (!(o.decay_fraction >= 0 && o.decay_fraction <= 1)) {
    return Status::InvalidArgument("--decay-fraction must be in [0, 1]");
  }
  if (o.negatives < 1 || o.negatives > kMaxNegatives) {
    return Status::InvalidArgument(fmt::format("--negatives must be between 1 and {}", kMaxNegatives));
  }
  if (!(o.noise_power >= 0 && o.noise_power <= 1)) return Status::InvalidArgument("--noise-power must be in [0, 1]");
  if (!(o.subsample >= 0 && o.subsample < 1)) return Status::InvalidArgument("--subsample must be in [0, 1)");
  if (o.threads < 0 || o.threads > 1024) return Status::InvalidArgument("--threads must be between 0 and 1024");
  if (o.min_count < 1) return Status::InvalidArgument("--min-count must be at least 1");
  if (o.checkpoint_every < 1) return Status::InvalidArgument("--checkpoint-every must be at least 1");
  if (o.memory_bytes < (size_t{32} << 20)) return Status::InvalidArgument("--memory must be at least 32M");
  return Status::OK();
}

Status Train(const std::string& store_dir, const std::string& output, const TrainOptions& options, TrainStats* stats) {
  *stats = TrainStats();
  const int threads = options.threads > 0 ? options.threads
                                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  stats->threads = threads;

  std::unique_ptr<Store> store;
  SG_RETURN_IF_ERROR(Store::OpenForReading(store_dir, options.memory_bytes, &store));
  if (!store->initialized()) return Status::InvalidArgument(fmt::format("{}: the store holds no vocabulary yet", store_dir));
  const std::vector<VocabEntry> vocab = store->vocab();
  const uint32_t cut = VocabCut(vocab, options);
  if (cut == 0) return Status::InvalidArgument("no word passes --min-count / --max-vocab");
  // --memory is the whole process: the parameters first, then the blocks in
  // memory (the one being trained and the one read ahead, each as 16-byte
  // training records, 4/3 of its 12-byte file size): 2/3 of what is left.
  // (SGNS holds less: one block as records and two half-block parts.)
  const bool sgns = options.objective == Objective::kSgns;
  const size_t parameter_bytes =
      sgns ? SgnsModel::MemoryBytes(cut, options.dim) : GloveModel::MemoryBytes(cut, options.dim);
  constexpr size_t kMinBlockMemory = size_t{32} << 20;  // two 8 MiB blocks as training records
  if (parameter_bytes + kMinBlockMemory > options.memory_bytes) {
    return Status::InvalidArgument(fmt::format(
        "--memory {} cannot hold the parameters of {} words x {} dims ({}) and the blocks (at least {}): raise "
        "--memory, or lower --max-vocab or --dim",
        FormatBytes(options.memory_bytes), cut, options.dim, FormatBytes(parameter_bytes), FormatBytes(kMinBlockMemory)));
  }
  const size_t block_bytes =
      std::clamp((options.memory_bytes - parameter_bytes) / 4, size_t{8} << 20, size_t{256} << 20);
  BlockStreamInfo blocks;
  const auto build_start = Clock::now();
  SG_RETURN_IF_ERROR(OpenBlockStream(store.get(), store_dir + "/" + kBlockStreamDir, cut, block_bytes, options.block_compression, &blocks));
  stats->block_build_seconds = std::chrono::duration<double>(Clock::now() - build_start).count();
  stats->blocks_built = blocks.built;
  stats->blocks = blocks.block_records.size();
  stats->pairs = blocks.pairs;
  stats->vocab_size = cut;
  stats->store_subsample = store->config().subsample;
  store.reset();  // training reads only the blocks: a snapshot of the store

  const float eta = static_cast<float>(Eta(options));
  std::unique_ptr<AliasTable> noise;  // before the model that points to it
  std::unique_ptr<EmbeddingModel> model;
  PairTransform transform;
  if (sgns) {
    uint64_t tokens = 0;  // as word2vec's train_words: the trained vocabulary's counts
    for (uint32_t i = 0; i < cut; ++i) tokens += vocab[i].count;
    noise = std::make_unique<AliasTable>(NoiseWeights(vocab, cut, options.noise_power));
    model = std::make_unique<SgnsModel>(cut, options.dim, options.seed, SgnsHyper{eta, options.negatives}, noise.get());
    // A store subsampled before windowing holds word2vec's subsampled counts.
    const double subsample = stats->store_subsample > 0 ? 0 : options.subsample;
    transform = SgnsTransform(SubsampleKeepProbabilities(vocab, cut, tokens, subsample));
  } else {
    model = std::make_unique<GloveModel>(cut, options.dim, options.seed,
                                         GloveHyper{eta, static_cast<float>(options.grad_clip), options.step_scale,
                                                    options.decay_fraction});
    transform = GloveTransform(options.x_max, options.alpha);
  }
  const uint64_t options_hash = OptionsHash(options, cut, blocks.pairs);
  const std::string checkpoint = output + ".checkpoint";
  uint32_t epoch = 0;
  if (options.resume && std::filesystem::exists(checkpoint)) {
    SG_RETURN_IF_ERROR(model->Load(checkpoint, options_hash, &epoch));
    stats->start_epoch = epoch;
  }
  // The loss log keeps the lines of the epochs the checkpoint holds: those
  // logged after it (lost to a crash) are trained and logged again.
  std::string kept_log = "epoch\tloss\tseconds\tpairs_per_second\tskipped\tpairs\n";
  if (epoch > 0) {
    std::ifstream old(output + ".log.tsv");
    std::string line;
    for (std::getline(old, line); std::getline(old, line);) {
      if (std::strtoul(line.c_str(), nullptr, 10) <= epoch) kept_log += line + "\n";
    }
  }
  std::ofstream log(output + ".log.tsv", std::ios::trunc);
  log << kept_log;

  tbb::task_arena arena(threads);
  // Each epoch reads the blocks in its own order, each block scattered by its
  // own seed: deterministic per (seed, epoch, block), so a resumed run reads
  // as an uninterrupted one would.
  const auto open_epoch = [&](uint32_t e) {
    std::vector<uint32_t> order(blocks.block_records.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::mt19937_64 order_rng(MixSeed(options.seed, e, ~uint64_t{0}));
    std::shuffle(order.begin(), order.end(), order_rng);
    std::vector<uint64_t> shuffle_seeds;
    for (uint32_t b : order) shuffle_seeds.push_back(MixSeed(options.seed, e, b));
    return std::make_unique<BlockReader>(&blocks, std::move(order), std::move(shuffle_seeds), &transform);
  };
  BlockPart part;
  ProgressMeter meter("train", options.progress);
  const uint32_t first_epoch = epoch;
  const auto train_start = Clock::now();
  uint64_t pairs_trained = 0;
  std::unique_ptr<BlockReader> reader = epoch < options.epochs ? open_epoch(epoch) : nullptr;
  for (; epoch < options.epochs; ++epoch) {
    const auto start = Clock::now();
    std::unique_ptr<BlockReader> next_reader;  // the next epoch's, opened while this one's last part trains
    std::vector<RangeTotals> totals(threads);
    uint64_t epoch_pairs = 0;  // stored records trained so far this epoch
    const double run_pairs_all = static_cast<double>(blocks.pairs) * options.epochs;
    for (size_t block = 0;; ++block) {
      bool done = false;
      SG_RETURN_IF_ERROR(reader->Next(&part, &done));
      if (done) break;
      if (reader->exhausted() && epoch + 1 < options.epochs) next_reader = open_epoch(epoch + 1);
      const size_t n = part.pairs.size();
      // Where this part sits in the whole run, in stored records (for a
      // decaying learning rate; SGNS's parts hold unit updates, not records).
      const double before = static_cast<double>(blocks.pairs) * epoch + static_cast<double>(epoch_pairs);
      const double records_per_pair = n > 0 ? static_cast<double>(part.records) / static_cast<double>(n) : 0;
      // The threads take the part's buckets in turn, each preparing a bucket
      // (converted and shuffled: the second pass of the reader's shuffle) and
      // training it; one thread takes them in order, so its run is
      // reproducible.
      std::atomic<size_t> next_bucket{0};
      arena.execute([&] {
        tbb::parallel_for(0, threads, [&](int t) {
          for (size_t k; (k = next_bucket.fetch_add(1, std::memory_order_relaxed)) < part.buckets();) {
            const size_t begin = part.bucket_begin[k], end = part.bucket_begin[k + 1];
            // Tagged apart from the blocks' scatter seeds (MixSeed(seed, epoch,
            // block id)): the same generator draws both.
            const uint64_t tag = (uint64_t{1} << 63) | (uint64_t{block} << 32) | k;
            PrepareBucket(&part, k, transform, MixSeed(options.seed, epoch, tag));
            RangeContext context;
            context.progress_begin = (before + records_per_pair * static_cast<double>(begin)) / run_pairs_all;
            context.progress_end = (before + records_per_pair * static_cast<double>(end)) / run_pairs_all;
            context.seed = MixSeed(options.seed, epoch, tag | (uint64_t{1} << 62));
            model->TrainRange(part.pairs.data() + begin, end - begin, context, &totals[t]);
          }
        });
      });
      epoch_pairs += part.records;
      pairs_trained += part.records;
      if (Interrupted()) {
        meter.Finish();
        return InterruptedStatus(
            fmt::format("stopped in epoch {}; rerun with --resume to continue from {}", epoch + 1, checkpoint));
      }
      const double run_pairs = static_cast<double>(blocks.pairs) * (options.epochs - first_epoch);
      const double seconds = std::chrono::duration<double>(Clock::now() - train_start).count();
      meter.UpdateFraction(fmt::format("epoch {}/{}", epoch + 1, options.epochs), pairs_trained / run_pairs,
                           fmt::format("{:.2f} M pairs/s", pairs_trained / seconds / 1e6));
    }
    reader.reset();  // before the next opens: its buffers, if any, are freed first
    reader = next_reader ? std::move(next_reader) : (epoch + 1 < options.epochs ? open_epoch(epoch + 1) : nullptr);
    EpochStats e;
    e.epoch = epoch + 1;
    e.pairs = blocks.pairs;
    for (const RangeTotals& t : totals) {
      e.loss += t.loss;
      e.updates += t.updates;
      e.skipped += t.skipped;
    }
    e.loss /= static_cast<double>(std::max<uint64_t>(e.updates, 1));
    if ((epoch + 1) % options.checkpoint_every == 0 || epoch + 1 == options.epochs) {
      SG_RETURN_IF_ERROR(model->Save(checkpoint, epoch + 1, options_hash));
    }
    e.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    log << fmt::format("{}\t{:.6f}\t{:.3f}\t{:.0f}\t{}\t{}\n", e.epoch, e.loss, e.seconds, e.pairs / e.seconds, e.skipped,
                      e.pairs);
    log.flush();
    if (options.progress) {
      meter.Finish();
      fmt::print(stderr, "train: epoch {}/{}: loss {:.6f}, {:.1f} s, {:.2f} M pairs/s{}\n", e.epoch, options.epochs,
                 e.loss, e.seconds, e.pairs / e.seconds / 1e6,
                 sgns ? fmt::format(" ({:.2f} M positive updates/s)", e.updates / e.seconds / 1e6) : "");
    }
    stats->epochs.push_back(e);
  }
  part = BlockPart();  // the vectors file's rows are built in its place
  return WriteVectors(output, vocab, *model, options.vectors, options.format);
}

}  // namespace streamglove
