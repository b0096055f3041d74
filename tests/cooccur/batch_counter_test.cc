// BatchCounter, the counting half of an ingest, on its own: three inputs
// (plain, zstd, gzip; chunks of 4 KiB, so windows cross chunk edges) counted
// in one batch on two threads, and in many small batches on one thread,
// both give the pairs of a brute-force count of Stanford's windows over the
// reference tokenizer's documents, and the word counts of the tokens.
#include "cooccur/batch_counter.h"

#include <sys/stat.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "cooccur/fixed_point.h"
#include "cooccur/ingest_setup.h"
#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

constexpr uint32_t kWindow = 4;

// Zipf-ish words in lines of various lengths.
std::string Text(std::mt19937_64* rng, size_t words) {
  std::string s;
  for (size_t i = 0; i < words; ++i) {
    s += fmt::format(
        "w{}", static_cast<size_t>(std::pow(400.0, static_cast<double>((*rng)() % 1000000) / 1e6)));
    s += (*rng)() % 200 == 0 ? "\n" : ((*rng)() % 9 == 0 ? "\t" : " ");
  }
  return s;
}

struct Counted {
  std::map<uint64_t, uint64_t> pairs;
  std::vector<uint64_t> words;
  size_t batches = 0;
  size_t finished = 0;
  uint64_t spilled_runs = 0;
};

// The inputs counted by one BatchCounter in batches of about `batch_bytes`.
Counted Count(const std::vector<InputFile>& inputs, const VocabIndex& vocab,
              const WindowConfig& window, int threads, uint64_t batch_bytes,
              const std::string& runs_dir, uint32_t head_words, size_t max_buffer_bytes = 0) {
  CorpusOptions corpus;
  corpus.chunk_bytes = 4096;
  IngestOptions options;
  options.memory_bytes = 128 << 20;
  options.max_buffer_bytes = max_buffer_bytes;
  options.progress = false;
  ::mkdir(runs_dir.c_str(), 0700);
  std::unique_ptr<BatchCounter> counter;
  REQUIRE(BatchCounter::Create(inputs, std::vector<std::string>(inputs.size(), "fingerprint"),
                               &vocab, head_words, /*complete_vocab=*/true, window, corpus, options,
                               threads, runs_dir, &counter)
              .ok());
  Counted counted;
  counted.words.assign(vocab.size(), 0);
  for (bool done = false; !done;) {
    BatchCounter::Result result;
    REQUIRE(counter->CountBatch(batch_bytes, /*whole_inputs=*/false, &result).ok());
    done = result.corpus_done;
    if (!result.any) break;
    ++counted.batches;
    counted.finished += result.finished.size();
    std::vector<PairRun> runs;
    REQUIRE(counter->FinishBatchAsRuns(4, &runs).ok());
    std::vector<std::unique_ptr<PairStream>> streams;
    for (const PairRun& run : runs) streams.push_back(NewPairRunReader(run));
    for (const auto& [key, value] : MergedPairs(std::move(streams))) counted.pairs[key] += value;
    std::vector<uint64_t> words;
    counter->TakeWordCounts(&words);
    for (size_t i = 0; i < words.size(); ++i) counted.words[i] += words[i];
  }
  IngestStats stats;
  counter->Finish(&stats);
  counted.spilled_runs = stats.spilled_runs;
  return counted;
}

}  // namespace

TEST_CASE("A batch counter's batches, one or many, count every window of every document",
          "[cooccur]") {
  TestDir dir("sg-batch-counter-");
  std::mt19937_64 rng(3);
  const std::vector<std::string> texts = {Text(&rng, 30000), Text(&rng, 12000), Text(&rng, 9000)};
  WriteFile(dir.path() + "/a.txt", texts[0]);
  WriteFile(dir.path() + "/b.txt.zst",
            ZstdFrames({texts[1].substr(0, 7000), texts[1].substr(7000)}));
  WriteFile(dir.path() + "/c.txt.gz", GzipMembers({texts[2]}));
  std::vector<InputFile> inputs;
  for (const char* name : {"a.txt", "b.txt.zst", "c.txt.gz"}) {
    std::vector<InputFile> one;
    REQUIRE(ExpandInputs({dir.path() + "/" + name}, InputFormat::kAuto, &one).ok());
    inputs.push_back(one.at(0));
  }

  // The vocabulary (every word), and the brute force over each file's
  // documents: the reference tokenizer's, a file's end ending one too.
  std::map<std::string, uint32_t> ids;
  std::vector<VocabEntry> entries;
  std::map<uint64_t, uint64_t> want_pairs;
  std::vector<uint64_t> want_words;
  const uint64_t scale = CountScale(kWindow, DistanceWeighting::kHarmonic, false);
  for (const std::string& text : texts) {
    std::vector<uint32_t> document;
    for (const std::string& token : ReferenceTokens(text)) {
      if (token == kDocEnd) {
        document.clear();
        continue;
      }
      const auto [at, added] = ids.emplace(token, static_cast<uint32_t>(entries.size()));
      if (added) {
        entries.push_back({token, 1});
        want_words.push_back(0);
      }
      const uint32_t id = at->second;
      ++want_words[id];
      for (uint32_t d = 1; d <= kWindow && d <= document.size(); ++d) {
        const uint32_t left = document[document.size() - d];
        want_pairs[PairKey(left, id)] += scale / d;
        want_pairs[PairKey(id, left)] += scale / d;
      }
      document.push_back(id);
    }
  }
  const VocabIndex vocab(entries);
  WindowConfig window;
  window.window = kWindow;
  window.symmetric = true;
  window.weighting = DistanceWeighting::kHarmonic;
  window.scale = scale;

  const Counted one =
      Count(inputs, vocab, window, 2, uint64_t{1} << 40, dir.path() + "/runs-1", vocab.size());
  CHECK(one.batches == 1);
  CHECK(one.finished == inputs.size());
  CHECK(one.pairs == want_pairs);
  CHECK(one.words == want_words);

  const Counted many = Count(inputs, vocab, window, 1, 20000, dir.path() + "/runs-2", vocab.size());
  CHECK(many.batches > 5);
  CHECK(many.finished == inputs.size());
  CHECK(many.pairs == want_pairs);
  CHECK(many.words == want_words);

  // Counting's tail (the last two thirds of the ids) in buffers of 64 KiB,
  // so that the tail's buffer spills many runs: the same counts.
  const Counted tail = Count(inputs, vocab, window, 2, 40000, dir.path() + "/runs-3",
                             static_cast<uint32_t>(vocab.size() / 3), size_t{64} << 10);
  CHECK(tail.spilled_runs > 10);
  CHECK(tail.pairs == want_pairs);
  CHECK(tail.words == want_words);
}
