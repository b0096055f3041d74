// FindPhrases and ScoreStoreBigrams (streamglove/phrases.h): word2phrase's
// passes, each a bigram store counted by `ingest` and a scan of its pairs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "store/store.h"
#include "streamglove/ingest.h"
#include "streamglove/interrupt.h"
#include "streamglove/phrases.h"
#include "streamglove/store_info.h"
#include "streamglove/units.h"
#include "util/progress.h"
#include "util/threads.h"

namespace streamglove {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The store's ordered bigrams: window 1, left context only, no subsampling.
Status CheckBigramStore(const std::string& dir, const StoreConfig& c) {
  if (c.window == 1 && !c.symmetric && c.subsample == 0) return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "{}: not a store of bigrams (window {}{}{}); phrases are scored from one counted with "
      "`ingest --window 1 --asymmetric`",
      dir, c.window, c.symmetric ? ", symmetric" : "",
      c.subsample > 0 ? fmt::format(", subsampled {}", c.subsample) : std::string()));
}

// The phrase list a store of pass p was counted with: "" for none.
Status StorePhrases(const std::string& dir, std::string* fingerprint, bool* exists) {
  *exists = std::filesystem::exists(dir + "/CURRENT");
  fingerprint->clear();
  if (!*exists) return Status::OK();
  std::unique_ptr<Store> store;
  SG_RETURN_IF_ERROR(Store::OpenForReading(dir, kStoreReadMemoryBytes, &store));
  if (store->initialized()) *fingerprint = store->config().phrases;
  return Status::OK();
}

}  // namespace

double ScoreBigram(PhraseScore score, uint64_t c_ab, uint64_t c_a, uint64_t c_b, uint64_t tokens,
                   uint64_t min_count) {
  const double n = static_cast<double>(tokens);
  if (score == PhraseScore::kWord2Phrase) {
    return (static_cast<double>(c_ab) - static_cast<double>(min_count)) /
           (static_cast<double>(c_a) * static_cast<double>(c_b)) * n;
  }
  const double p_ab = c_ab / n, p_a = c_a / n, p_b = c_b / n;
  // A bigram seen at every token position: p_ab = 1, perfectly associated.
  if (p_ab >= 1) return 1;
  return std::log(p_ab / (p_a * p_b)) / -std::log(p_ab);
}

Status ValidatePhraseOptions(const PhraseOptions& o) {
  if (o.min_count < 1) return Status::InvalidArgument("--min-count must be at least 1");
  if (o.passes < 1 || o.passes > 8) return Status::InvalidArgument("--passes must be 1 to 8");
  if (!std::isfinite(o.threshold))
    return Status::InvalidArgument("--threshold must be a finite number");
  if (o.score == PhraseScore::kNpmi && !(o.threshold >= -1 && o.threshold < 1))
    return Status::InvalidArgument("--threshold: npmi scores lie in [-1, 1]; give one below 1");
  SG_RETURN_IF_ERROR(CheckThreads(o.threads));
  if (o.memory_bytes < kMinMemoryBytes) {
    return Status::InvalidArgument(fmt::format("--memory must be at least {}",
                                               FormatBytes(static_cast<double>(kMinMemoryBytes))));
  }
  return Status::OK();
}

Status ScoreStoreBigrams(const std::string& store_dir, uint32_t pass, const PhraseOptions& options,
                         std::vector<Phrase>* found, PhrasePassStats* stats) {
  std::unique_ptr<Store> store;
  SG_RETURN_IF_ERROR(Store::OpenForReading(store_dir, kStoreReadMemoryBytes, &store));
  if (!store->initialized())
    return Status::InvalidArgument(fmt::format("{}: the store holds no vocabulary yet", store_dir));
  const StoreConfig& config = store->config();
  SG_RETURN_IF_ERROR(CheckBigramStore(store_dir, config));
  const std::vector<VocabEntry>& vocab = store->vocab();
  uint64_t tokens = 0;
  for (const VocabEntry& e : vocab) tokens += e.count;
  stats->tokens = tokens;
  stats->bigrams = 0;
  found->clear();
  // Rows come in id order: the rows done are the scan's progress.
  ProgressMeter meter("scoring", options.progress);
  const auto start = std::chrono::steady_clock::now();
  // Cell (left, right) holds `left right`'s count in fixed-point units
  // (window_counter.h); at distance 1 each adds `scale`.
  SG_RETURN_IF_ERROR(store->ForEachPair([&](uint32_t left, uint32_t right, uint64_t units) {
    if (++stats->bigrams % (1 << 20) == 0) {
      meter.UpdateFraction(fmt::format("{} bigrams, {} phrases", stats->bigrams, found->size()),
                           static_cast<double>(left) / vocab.size(),
                           fmt::format("{:.1f} M bigrams/s",
                                       stats->bigrams / std::max(SecondsSince(start), 1e-9) / 1e6));
      if (Interrupted()) return InterruptedStatus("no phrase list was written");
    }
    const uint64_t c_ab = units / config.scale;
    if (c_ab < options.min_count) return Status::OK();
    const VocabEntry& a = vocab[left];
    const VocabEntry& b = vocab[right];
    if (a.count < options.min_count || b.count < options.min_count) return Status::OK();
    const double score =
        ScoreBigram(options.score, c_ab, a.count, b.count, tokens, options.min_count);
    if (!(score > options.threshold)) return Status::OK();
    Phrase p{pass, a.word, b.word, score, c_ab};
    if (PhraseList::CheckPhrase(p).empty()) found->push_back(std::move(p));  // not too long
    return Status::OK();
  }));
  std::sort(found->begin(), found->end(), [](const Phrase& x, const Phrase& y) {
    if (x.score != y.score) return x.score > y.score;
    return std::tie(x.left, x.right) < std::tie(y.left, y.right);
  });
  return Status::OK();
}

Status FindPhrases(const std::string& work_dir, const std::vector<InputFile>& inputs,
                   const CorpusOptions& corpus, const PhraseOptions& options,
                   std::vector<Phrase>* found, PhraseStats* stats) {
  found->clear();
  *stats = PhraseStats();
  std::error_code ec;
  std::filesystem::create_directories(work_dir, ec);
  if (ec) return Status::IOError(fmt::format("{}: {}", work_dir, ec.message()));
  IngestOptions counting;
  counting.window = 1;
  counting.symmetric = false;
  counting.min_count = options.min_count;
  counting.threads = options.threads;
  counting.memory_bytes = options.memory_bytes;
  counting.progress = options.progress;
  ScopedProgressJob job("phrases", 0);
  for (uint32_t pass = 1; pass <= options.passes; ++pass) {
    job.SetStage(fmt::format("pass {}/{}", pass, options.passes), pass == options.passes);
    const auto start = std::chrono::steady_clock::now();
    PhrasePassStats pass_stats;
    CorpusOptions joined = corpus;
    joined.phrases = found->empty() ? nullptr : std::make_shared<const PhraseList>(*found);
    const std::string want = joined.phrases ? joined.phrases->fingerprint() : std::string();
    const std::string dir = fmt::format("{}/pass-{}", work_dir, pass);
    std::string have;
    bool exists = false;
    SG_RETURN_IF_ERROR(StorePhrases(dir, &have, &exists));
    if (exists && have != want) {
      // The earlier passes found other phrases (more text, other settings):
      // this pass's text changed, so its counts are made again.
      std::filesystem::remove_all(dir, ec);
      if (ec) return Status::IOError(fmt::format("{}: {}", dir, ec.message()));
      pass_stats.recounted = true;
      stats->messages.push_back(fmt::format(
          "pass {}: the earlier passes' phrases changed, so its counts are made again", pass));
    }
    IngestStats ingest;
    SG_RETURN_IF_ERROR(Ingest(dir, inputs, joined, counting, &ingest));
    for (const std::string& m : ingest.messages) stats->messages.push_back(m);
    std::vector<Phrase> these;
    SG_RETURN_IF_ERROR(ScoreStoreBigrams(dir, pass, options, &these, &pass_stats));
    pass_stats.phrases = these.size();
    pass_stats.seconds = SecondsSince(start);
    stats->passes.push_back(pass_stats);
    found->insert(found->end(), std::make_move_iterator(these.begin()),
                  std::make_move_iterator(these.end()));
    if (these.empty()) break;  // the next pass would read the same text
  }
  return Status::OK();
}

}  // namespace streamglove
