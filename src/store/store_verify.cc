// VerifyStore: the store's invariants, checked in one pass over the pairs.

#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "store/store.h"
#include "streamglove/store_info.h"

namespace streamglove {

namespace {

// An order-free fingerprint of one triangle: the sum of a hash per pair.
uint64_t PairHash(uint32_t a, uint32_t b, uint64_t value) {
  uint64_t h = (uint64_t{a} << 32 | b) * 0x9E3779B97F4A7C15ull ^ value * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

// Compares the totals' record with the pairs and units the scan found.
void CheckTotals(Store* store, uint64_t pairs, __uint128_t units, VerifyReport* report) {
  const double scale = static_cast<double>(store->config().scale);
  PairTotals totals;
  bool known = false;
  if (Status s = store->GetPairTotals(&totals, &known); !s.ok()) {
    report->problems.push_back(s.message() + " (the next ingest counts the pairs again)");
    return;
  }
  if (!known) {
    report->checks.push_back(
        "no totals' record (a store of an earlier build, or its last commit's files carried "
        "none): the next ingest counts the pairs and records them");
    return;
  }
  const bool pairs_ok = totals.pairs_exact ? totals.pairs == pairs : totals.pairs >= pairs;
  const std::string what = fmt::format(
      "the totals' record: {}{} non-zero pairs, counts summing to {:.3f}; the pairs hold {}, "
      "summing to {:.3f}",
      totals.pairs_exact ? "" : "at most ", totals.pairs, static_cast<double>(totals.units) / scale,
      pairs, static_cast<double>(units) / scale);
  if (pairs_ok && totals.units == units) {
    report->checks.push_back(what);
  } else {
    report->problems.push_back(what);
  }
}

// The input and progress records: unique, not both finished and pending,
// and (where the store's counts allow) holding the tokens its words count.
Status CheckInputs(Store* store, __uint128_t word_occurrences, VerifyReport* report) {
  const StoreConfig& config = store->config();
  std::vector<InputRecord> inputs;
  SG_RETURN_IF_ERROR(store->ListInputs(&inputs));
  std::set<std::string> fingerprints;
  uint64_t tokens = 0;
  for (const InputRecord& r : inputs) {
    if (!fingerprints.insert(r.fingerprint).second) {
      report->problems.push_back(
          fmt::format("input {} recorded twice (fingerprint {})", r.path, r.fingerprint));
    }
    tokens += r.tokens;
  }
  IngestProgress progress;
  bool partial = false;
  SG_RETURN_IF_ERROR(store->GetProgress(&progress, &partial));
  if (partial && fingerprints.count(progress.fingerprint) > 0) {
    report->problems.push_back(
        fmt::format("{} is both finished and pending at byte {}", progress.path, progress.offset));
  }
  // Every token of a growing store is a word occurrence; a fixed store
  // counts those in its vocabulary (a subsampled one keeps its creation
  // counts). Checked when no input is partly ingested (an input that grew
  // is then recorded twice, before and after).
  if (!partial && config.subsample == 0) {
    const bool ok =
        config.fixed_vocabulary ? word_occurrences <= tokens : word_occurrences == tokens;
    const std::string what = fmt::format("word counts sum to {}; the inputs hold {} tokens",
                                         static_cast<uint64_t>(word_occurrences), tokens);
    if (ok) {
      report->checks.push_back(what);
    } else {
      report->problems.push_back(what);
    }
  }
  report->checks.push_back(
      fmt::format("{} inputs ingested ({} tokens){}", inputs.size(), tokens,
                  partial ? fmt::format("; {} pending from byte {} (rerun ingest to finish it)",
                                        progress.path, progress.offset)
                          : std::string()));
  return Status::OK();
}

}  // namespace

Status VerifyStore(const std::string& dir, size_t memory_bytes, VerifyReport* report) {
  *report = VerifyReport();
  std::unique_ptr<Store> store;
  SG_RETURN_IF_ERROR(Store::OpenForReading(dir, memory_bytes, &store));
  if (!store->initialized()) {
    report->problems.push_back(
        fmt::format("{}: the store holds no configuration and vocabulary (an ingest was "
                    "interrupted before its vocabulary pass ended: rerun it)",
                    dir));
    return Status::OK();
  }
  const StoreConfig& config = store->config();
  report->checks.push_back(
      fmt::format("format version {}, window {}, {}, scale {}", config.format_version,
                  config.window, config.symmetric ? "symmetric" : "asymmetric", config.scale));

  const std::vector<VocabEntry>& vocab = store->vocab();
  std::unordered_set<std::string_view> words;
  size_t vocab_problems = 0;
  __uint128_t word_occurrences = 0;
  for (size_t i = 0; i < vocab.size(); ++i) {
    word_occurrences += vocab[i].count;
    std::string problem;
    if (vocab[i].word.empty()) problem = "an empty word";
    if (!words.insert(vocab[i].word).second) problem = "a duplicate word";
    // Ids were ranks when a fixed vocabulary was made; counts may have
    // grown since, so rank order is no invariant.
    if (!problem.empty() && vocab_problems++ < 10) {
      report->problems.push_back(fmt::format("vocabulary id {} ('{}', count {}): {}", i,
                                             vocab[i].word, vocab[i].count, problem));
    }
  }
  if (vocab_problems == 0)
    report->checks.push_back(fmt::format("vocabulary: {} unique words", vocab.size()));

  if (Status s = store->VerifyChecksums(); !s.ok()) {
    report->problems.push_back(s.message());
  } else {
    report->checks.push_back("table file checksums");
  }

  uint64_t pairs = 0, upper = 0, lower = 0, pair_problems = 0;
  __uint128_t units = 0;
  bool have_last = false;
  uint32_t last_row = 0, last_col = 0;
  const uint64_t v = vocab.size();
  const Status scan = store->ForEachPair([&](uint32_t row, uint32_t col, uint64_t value) {
    std::string problem;
    if (row >= v || col >= v) {
      problem = "an id outside the vocabulary";
    } else if (vocab[row].count == 0 && !config.fixed_vocabulary) {
      problem = "a word no committed batch counted";
    }
    if (value == 0) problem = "a zero value";
    if (have_last && (row < last_row || (row == last_row && col <= last_col)))
      problem = "out of (row, col) order";
    if (!problem.empty() && pair_problems++ < 10) {
      report->problems.push_back(fmt::format("pair ({}, {}) = {}: {}", row, col, value, problem));
    }
    have_last = true;
    last_row = row;
    last_col = col;
    ++pairs;
    units += value;
    if (row < col) upper += PairHash(row, col, value);
    if (row > col) lower += PairHash(col, row, value);
    return Status::OK();
  });
  if (!scan.ok()) {
    report->problems.push_back(fmt::format("after {} readable pairs: {}", pairs, scan.message()));
  } else if (pair_problems == 0) {
    report->checks.push_back(
        fmt::format("{} non-zero pairs decode, in order, inside the vocabulary", pairs));
    if (config.symmetric && upper != lower) {
      report->problems.push_back(
          "a symmetric store whose X_ij and X_ji differ (triangle checksums disagree)");
    } else if (config.symmetric) {
      report->checks.push_back("symmetric: both triangles hold the same counts");
    }
    CheckTotals(store.get(), pairs, units, report);
  }

  return CheckInputs(store.get(), word_occurrences, report);
}

}  // namespace streamglove
