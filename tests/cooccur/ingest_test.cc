#include "streamglove/ingest.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "cooccur/cooccur_tuning.h"
#include "cooccur/fixed_point.h"
#include "cooccur/ingest_setup.h"
#include "cooccur/subsampled_window.h"
#include "store/ranked_vocab.h"
#include "store/store.h"
#include "store/store_tuning.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

using Counts = std::map<std::pair<uint32_t, uint32_t>, uint64_t>;

// Stanford GloVe's cooccur loop over the reference tokens, in fixed point:
// the independent oracle for the whole ingest path.
Counts BruteForce(const std::vector<std::string>& files, const std::vector<VocabEntry>& vocab,
                  uint32_t window, bool symmetric, DistanceWeighting weighting) {
  std::map<std::string, uint32_t> ids;
  for (uint32_t i = 0; i < vocab.size(); ++i) ids[vocab[i].word] = i;
  const uint64_t scale = CountScale(window, weighting, /*subsampled=*/false);
  Counts counts;
  for (const std::string& text : files) {
    std::vector<uint32_t> history;  // in-vocabulary ids of the current document
    for (const std::string& token : ReferenceTokens(text + "\n")) {
      if (token == kDocEnd) {
        history.clear();
        continue;
      }
      const auto it = ids.find(token);
      if (it == ids.end()) continue;
      const uint32_t w2 = it->second;
      const size_t j = history.size();
      for (size_t k = j; k-- > (j > window ? j - window : 0);) {
        const uint64_t d = j - k;
        // The weights as the options document them, times the scale.
        const uint64_t add = weighting == DistanceWeighting::kHarmonic ? scale / d
                             : weighting == DistanceWeighting::kLinear
                                 ? (window - d + 1) * scale / window
                                 : 1;
        counts[{history[k], w2}] += add;
        if (symmetric) counts[{w2, history[k]}] += add;
      }
      history.push_back(w2);
    }
  }
  return counts;
}

Counts ReadStore(const std::string& dir) {
  std::unique_ptr<Store> store;
  REQUIRE(Store::Open(dir, 64 << 20, false, &store).ok());
  Counts counts;
  REQUIRE(store
              ->ForEachPair([&](uint32_t r, uint32_t c, uint64_t v) {
                counts[{r, c}] = v;
                return Status::OK();
              })
              .ok());
  return counts;
}

// Zipf-ish words in long and short lines, so chunks cut inside lines.
std::string Corpus(std::mt19937_64* rng, size_t words) {
  std::string s;
  for (size_t i = 0; i < words; ++i) {
    const auto id =
        static_cast<size_t>(std::pow(3000.0, static_cast<double>((*rng)() % 1000000) / 1e6));
    s += fmt::format("w{}", id);
    s += (*rng)() % 400 == 0 ? "\n" : ((*rng)() % 9 == 0 ? "\t" : " ");
  }
  return s;
}

struct Fixture {
  TestDir dir{"sg-ingest-"};
  std::vector<std::string> texts;
  std::vector<InputFile> inputs;
  std::string vocab_path;
  std::vector<VocabEntry> vocab;

  Fixture() {
    std::mt19937_64 rng(21);
    texts = {Corpus(&rng, 60000), Corpus(&rng, 30000), Corpus(&rng, 20000)};
    ::mkdir((dir.path() + "/in").c_str(), 0700);
    WriteFile(dir.path() + "/in/a.txt", texts[0]);
    WriteFile(dir.path() + "/in/b.txt.zst",
              ZstdFrames({texts[1].substr(0, 5000), texts[1].substr(5000)}));
    WriteFile(dir.path() + "/in/c.txt.gz", GzipMembers({texts[2]}));
    REQUIRE(ExpandInputs({dir.path() + "/in"}, InputFormat::kAuto, &inputs).ok());
    // A fixed vocabulary (every word seen twice or more) for every store.
    std::map<std::string, uint64_t> counts;
    for (const auto& t : texts) {
      for (const auto& tok : ReferenceTokens(t)) {
        if (tok != kDocEnd) ++counts[tok];
      }
    }
    for (const auto& [w, c] : counts) {
      if (c >= 2) vocab.push_back({w, c});
    }
    std::stable_sort(vocab.begin(), vocab.end(),
                     [](const auto& a, const auto& b) { return a.count > b.count; });
    std::string file;
    for (const auto& e : vocab) file += fmt::format("{} {}\n", e.word, e.count);
    vocab_path = dir.path() + "/vocab.txt";
    WriteFile(vocab_path, file);
  }

  IngestOptions Options() const {
    IngestOptions o;
    o.vocab_file = vocab_path;
    o.memory_bytes = 128 << 20;
    o.progress = false;
    return o;
  }
  CorpusOptions Corpus4K() const {
    CorpusOptions c;
    c.chunk_bytes = 4096;  // many chunks: windows cross chunk boundaries
    return c;
  }
};

}  // namespace

TEST_CASE("Ingested counts equal a brute-force GloVe count", "[cooccur]") {
  Fixture f;
  struct Case {
    uint32_t window;
    bool symmetric;
    DistanceWeighting weighting;
    int threads;
    size_t max_dense, max_buffer;
    uint64_t batch_bytes;
  };
  int n = 0;
  constexpr DistanceWeighting kHarmonic = DistanceWeighting::kHarmonic;
  constexpr DistanceWeighting kLinear = DistanceWeighting::kLinear;
  constexpr DistanceWeighting kNone = DistanceWeighting::kNone;
  for (const Case& c :
       {Case{15, true, kHarmonic, 2, 0, 0, uint64_t{1} << 30},
        Case{15, false, kHarmonic, 1, 0, 0, uint64_t{1} << 30},
        Case{5, true, kNone, 2, 4096, 4096, 65536},  // tiny dense region, spills, many batches
        Case{1, false, kNone, 2, 0, 2048, 100000}, Case{20, true, kHarmonic, 1, 1, 1 << 12, 70000},
        Case{5, true, kLinear, 2, 4096, 1 << 12, 70000},
        Case{20, false, kLinear, 1, 0, 0, uint64_t{1} << 30}}) {
    INFO("window " << c.window << " symmetric " << c.symmetric << " weighting "
                   << DistanceWeightingName(c.weighting) << " threads " << c.threads << " dense "
                   << c.max_dense << " buffer " << c.max_buffer);
    IngestOptions o = f.Options();
    o.window = c.window;
    o.symmetric = c.symmetric;
    o.weighting = c.weighting;
    o.threads = c.threads;
    o.max_dense_bytes = c.max_dense;
    o.max_buffer_bytes = c.max_buffer;
    o.batch_bytes = c.batch_bytes;
    const std::string store = fmt::format("{}/store{}", f.dir.path(), n++);
    IngestStats stats;
    const Status s = Ingest(store, f.inputs, f.Corpus4K(), o, &stats);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(stats.inputs_ingested == 3);
    if (c.batch_bytes < (1u << 20)) CHECK(stats.batches > 3);
    if (c.max_buffer == 2048) CHECK(stats.spilled_runs > 0);
    const Counts expected = BruteForce(f.texts, f.vocab, c.window, c.symmetric, c.weighting);
    const Counts got = ReadStore(store);
    CHECK(got.size() == expected.size());
    CHECK(got == expected);
  }
}

TEST_CASE("Counts do not depend on shard order or on ingesting shard by shard", "[cooccur]") {
  Fixture f;
  IngestOptions o = f.Options();
  o.window = 7;
  IngestStats stats;
  REQUIRE(Ingest(f.dir.path() + "/all", f.inputs, f.Corpus4K(), o, &stats).ok());
  std::vector<InputFile> reversed(f.inputs.rbegin(), f.inputs.rend());
  o.threads = 1;
  REQUIRE(Ingest(f.dir.path() + "/reversed", reversed, f.Corpus4K(), o, &stats).ok());
  for (const InputFile& in : f.inputs) {
    REQUIRE(Ingest(f.dir.path() + "/one-by-one", {in}, f.Corpus4K(), o, &stats).ok());
    CHECK(stats.inputs_ingested == 1);
  }
  const Counts all = ReadStore(f.dir.path() + "/all");
  CHECK(ReadStore(f.dir.path() + "/reversed") == all);
  CHECK(ReadStore(f.dir.path() + "/one-by-one") == all);

  // Again: every input is recognised and skipped; nothing changes.
  REQUIRE(Ingest(f.dir.path() + "/all", f.inputs, f.Corpus4K(), o, &stats).ok());
  CHECK(stats.inputs_skipped == 3);
  CHECK(stats.inputs_ingested == 0);
  CHECK(ReadStore(f.dir.path() + "/all") == all);

  // A run that counts differently is refused.
  o.window = 8;
  const Status s = Ingest(f.dir.path() + "/all", f.inputs, f.Corpus4K(), o, &stats);
  CHECK(s.code() == Status::Code::kInvalidArgument);
  CHECK(s.message().find("--window 7") != std::string::npos);
}

// word2vec's subsampling before windowing, computed the other way round: for
// every left word, walking forward over the words after it, the distribution
// of how many of those between are kept.
TEST_CASE("Subsampled counts equal a forward computation of word2vec's expected windows",
          "[cooccur]") {
  Fixture f;
  const double t = 2e-3;
  const uint32_t window = 4;
  double total = 0;
  for (const VocabEntry& e : f.vocab) total += static_cast<double>(e.count);
  std::map<std::string, uint32_t> ids;
  std::vector<double> keep;
  for (const VocabEntry& e : f.vocab) {
    ids[e.word] = static_cast<uint32_t>(keep.size());
    const double ratio = t * total / static_cast<double>(e.count);
    keep.push_back(std::min(1.0, std::sqrt(ratio) + ratio));
  }
  std::map<std::pair<uint32_t, uint32_t>, double> expected;  // in units
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> contributions;
  const size_t reach = kSubsampleReachFactor * window;
  for (const std::string& text : f.texts) {
    std::vector<std::vector<uint32_t>> documents(1);
    for (const std::string& token : ReferenceTokens(text + "\n")) {
      if (token == kDocEnd) {
        documents.emplace_back();
      } else if (const auto it = ids.find(token); it != ids.end()) {
        documents.back().push_back(it->second);
      }
    }
    for (const std::vector<uint32_t>& doc : documents) {
      for (size_t a = 0; a < doc.size(); ++a) {
        std::vector<double> kept(window, 0.0);  // P(k of the words between kept), k < W
        kept[0] = 1;
        for (size_t b = a + 1; b < doc.size() && b - a <= reach; ++b) {
          double e = 0;
          for (uint32_t k = 0; k < window; ++k)
            e += kept[k] * (window - k) / window;  // linear weights
          const double units = keep[doc[a]] * keep[doc[b]] * e * kSubsampledScale;
          if (units >= 0.5) {
            expected[{doc[a], doc[b]}] += units;
            expected[{doc[b], doc[a]}] += units;
            ++contributions[{doc[a], doc[b]}];
            ++contributions[{doc[b], doc[a]}];
          }
          const double p = keep[doc[b]];
          for (uint32_t k = window - 1; k > 0; --k) kept[k] = kept[k] * (1 - p) + kept[k - 1] * p;
          kept[0] *= 1 - p;
        }
      }
    }
  }

  IngestOptions o = f.Options();
  o.window = window;
  o.weighting = DistanceWeighting::kLinear;
  o.subsample = t;
  IngestStats stats;
  REQUIRE(Ingest(f.dir.path() + "/chunks", f.inputs, f.Corpus4K(), o, &stats).ok());
  o.threads = 1;
  o.batch_bytes = 70000;
  REQUIRE(Ingest(f.dir.path() + "/one", f.inputs, CorpusOptions(), o, &stats).ok());
  CHECK(stats.batches > 1);
  const Counts got = ReadStore(f.dir.path() + "/chunks");
  // Chunks, threads and batches change nothing, to the unit.
  CHECK(ReadStore(f.dir.path() + "/one") == got);
  size_t mismatches = 0;
  for (const auto& [cell, want] : expected) {
    const auto it = got.find(cell);
    const double have = it == got.end() ? 0.0 : static_cast<double>(it->second);
    // Each increment is rounded to a unit on its own.
    if (std::abs(have - want) > 0.5 * static_cast<double>(contributions[cell]) + 1e-6 * want)
      ++mismatches;
  }
  CHECK(mismatches == 0);
  for (const auto& [cell, units] : got) {
    if (expected.count(cell) == 0) ++mismatches;
  }
  CHECK(mismatches == 0);
  CHECK(got.size() > 10000);

  std::unique_ptr<Store> store;
  REQUIRE(Store::Open(f.dir.path() + "/chunks", 64 << 20, false, &store).ok());
  CHECK(store->config().subsample == t);
  CHECK(store->config().scale == kSubsampledScale);
  store.reset();
  // A run that subsamples otherwise is refused.
  o.subsample = 1e-3;
  const Status s = Ingest(f.dir.path() + "/one", f.inputs, CorpusOptions(), o, &stats);
  CHECK(s.code() == Status::Code::kInvalidArgument);
}

// An addition's vocabulary pass runs beside the store's vocabulary, which it
// must leave room for: about 400 MB at ten million words.
TEST_CASE("An addition's vocabulary pass gets the budget less the store's vocabulary",
          "[cooccur]") {
  // 22-character words sit outside std::string (23 bytes each).
  const auto word = [](size_t i) { return fmt::format("word{:018}", i); };
  std::vector<VocabEntry> vocab;
  for (size_t i = 0; i < 400000; ++i) vocab.push_back({word(i), 1});
  const size_t vocab_bytes = vocab.size() * (sizeof(VocabEntry) + 23);
  IngestOptions options;
  options.memory_bytes = size_t{256} << 20;
  size_t pass = 0;
  REQUIRE(AdditionPassBytes(options, CorpusOptions(), 2, vocab, &pass).ok());
  CHECK(pass ==
        options.memory_bytes - config::StoreMemoryBytes(options.memory_bytes) - vocab_bytes);
  // Too little: refused, naming the least --memory that does, to the MiB.
  options.memory_bytes = size_t{64} << 20;
  const Status refused = AdditionPassBytes(options, CorpusOptions(), 2, vocab, &pass);
  REQUIRE(refused.code() == Status::Code::kInvalidArgument);
  CHECK(refused.message().find("400000 words") != std::string::npos);
  const size_t at = refused.message().rfind("give at least ");
  REQUIRE(at != std::string::npos);
  const size_t least_mib = std::stoul(refused.message().substr(at + 14));
  options.memory_bytes = least_mib << 20;
  CHECK(AdditionPassBytes(options, CorpusOptions(), 2, vocab, &pass).ok());
  options.memory_bytes = (least_mib - 1) << 20;
  CHECK_FALSE(AdditionPassBytes(options, CorpusOptions(), 2, vocab, &pass).ok());
  options.memory_bytes = least_mib << 20;
  CHECK_FALSE(AdditionPassBytes(options, CorpusOptions(), 8, vocab, &pass)
                  .ok());  // more threads, more room

  // End to end: a store of those words, then an addition at a --memory
  // whose store and vocabulary leave the pass too little, refused before
  // its vocabulary pass; the store is unchanged, and a larger budget adds.
  TestDir dir("sg-addition-memory-");
  std::string text;
  for (size_t i = 0; i < vocab.size(); ++i) text += word(i) + (i % 50 == 49 ? "\n" : " ");
  WriteFile(dir.path() + "/a.txt", text);
  WriteFile(dir.path() + "/b.txt", word(vocab.size()) + " " + word(0) + "\n");
  std::vector<InputFile> a, b;
  REQUIRE(ExpandInputs({dir.path() + "/a.txt"}, InputFormat::kAuto, &a).ok());
  REQUIRE(ExpandInputs({dir.path() + "/b.txt"}, InputFormat::kAuto, &b).ok());
  const std::string store = dir.path() + "/store";
  IngestOptions o;
  o.window = 2;
  o.threads = 2;
  o.memory_bytes = size_t{512} << 20;
  IngestStats stats;
  REQUIRE(Ingest(store, a, CorpusOptions(), o, &stats).ok());
  const Counts before = ReadStore(store);
  o.memory_bytes = size_t{64} << 20;  // 44 MiB beside the store: 25 of vocabulary, 24 of pass
  const Status s = Ingest(store, b, CorpusOptions(), o, &stats);
  CHECK(s.code() == Status::Code::kInvalidArgument);
  CHECK(s.message().find("too small to add to this store") != std::string::npos);
  CHECK(ReadStore(store) == before);
  o.memory_bytes = size_t{512} << 20;
  REQUIRE(Ingest(store, b, CorpusOptions(), o, &stats).ok());
  CHECK(stats.new_words == 1);
}

// The line a new growing store prints when its cut leaves out much of the
// corpus: its figures against the readers' own cut (RankedVocab), and only
// from config::kBelowCutNoticeShare of the tokens on.
TEST_CASE("A growing store says when its cut leaves out much of the corpus", "[cooccur]") {
  std::mt19937_64 rng(36);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<VocabEntry> by_rank;
    const size_t words = 1 + rng() % 300;
    for (size_t i = 0; i < words; ++i) by_rank.push_back({fmt::format("w{}", i), 1 + rng() % 60});
    std::sort(by_rank.begin(), by_rank.end(), [](const VocabEntry& a, const VocabEntry& b) {
      return a.count != b.count ? a.count > b.count : a.word < b.word;
    });
    StoreConfig config;
    config.min_count = 1 + rng() % 40;
    config.max_vocab = rng() % 3 == 0 ? rng() % 200 : 0;
    const RankedVocab cut(config, by_rank, 0, 0);
    uint64_t tokens = 0, kept = 0;
    for (const VocabEntry& e : by_rank) tokens += e.count;
    for (const VocabEntry& e : cut.words()) kept += e.count;
    // Whole numbers: 20 * below >= tokens is a share of at least 5%.
    static_assert(config::kBelowCutNoticeShare == 0.05);
    const uint64_t below = tokens - kept;
    const std::string notice = BelowCutNotice(config, by_rank);
    INFO(notice);
    CHECK(notice.empty() == (20 * below < tokens));
    if (!notice.empty()) {
      CHECK(notice.find(fmt::format("keeps {} of the {} words counted; the other {} hold {:.1f}%",
                                    cut.size(), words, words - cut.size(),
                                    100.0 * static_cast<double>(below) /
                                        static_cast<double>(tokens))) != std::string::npos);
    }
    config.fixed_vocabulary = true;
    CHECK(BelowCutNotice(config, by_rank).empty());
  }
  // At exactly 5%: said (one token of 20 below a cut of min-count 2).
  StoreConfig config;
  config.min_count = 2;
  CHECK_FALSE(BelowCutNotice(config, {{"a", 19}, {"b", 1}}).empty());
  CHECK(BelowCutNotice(config, {{"a", 20}, {"b", 1}}).empty());

  // End to end: ten words on every line, and one word seen once on every
  // line (1/11 of the tokens) or every fourth (1/41).
  TestDir dir("sg-below-cut-");
  const auto ingest = [&](int rare_every, bool fixed, std::vector<std::string>* messages) {
    std::string text;
    for (int line = 0; line < 400; ++line) {
      text += "a b c d e f g h i j";
      text += line % rare_every == 0 ? fmt::format(" rare{}\n", line) : "\n";
    }
    const std::string path = dir.path() + fmt::format("/{}-{}.txt", rare_every, fixed);
    WriteFile(path, text);
    std::vector<InputFile> inputs;
    REQUIRE(ExpandInputs({path}, InputFormat::kAuto, &inputs).ok());
    IngestOptions o;
    o.window = 3;
    o.fixed_vocabulary = fixed;
    IngestStats stats;
    REQUIRE(Ingest(path + ".store", inputs, CorpusOptions(), o, &stats).ok());
    *messages = stats.messages;
  };
  std::vector<std::string> messages;
  ingest(1, false, &messages);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].find("keeps 10 of the 410 words counted; the other 400 hold 9.1% of the "
                         "tokens") != std::string::npos);
  ingest(1, true, &messages);
  CHECK(messages.empty());
  ingest(4, false, &messages);
  CHECK(messages.empty());
}

// `ingest --store NEW /dev/null` (or a FIFO) was refused but left a
// half-made store that verify said to rerun, and the rerun failed alike.
TEST_CASE("A refused input leaves no new store behind", "[cooccur]") {
  Fixture f;
  const std::string fifo = f.dir.path() + "/fifo.txt";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& input : {std::string("/dev/null"), fifo}) {
    INFO(input);
    std::vector<InputFile> inputs;
    REQUIRE(ExpandInputs({f.dir.path() + "/in", input}, InputFormat::kAuto, &inputs).ok());
    const std::string store = f.dir.path() + "/new-store";
    IngestStats stats;
    const Status s = Ingest(store, inputs, CorpusOptions(), f.Options(), &stats);
    CHECK(s.message() == input + ": not a regular file (ingest must be able to re-read inputs)");
    CHECK_FALSE(PathExists(store));
  }
}

// A vocabulary pass killed with -9 left its spill runs and its
// unfinished file in the store, and no later run removed them.
TEST_CASE("An ingest removes what a killed vocabulary pass left in the store", "[cooccur]") {
  Fixture f;
  const std::string store = f.dir.path() + "/store";
  IngestStats stats;
  REQUIRE(Ingest(store, f.inputs, CorpusOptions(), f.Options(), &stats).ok());
  const Counts before = ReadStore(store);
  // Under the store's lock every such file is a dead process's, whatever
  // its name says (this process's pid included).
  const std::vector<std::string> left = {
      store + "/vocab.building.tmp-" + std::to_string(::getpid()),
      store + fmt::format("/streamglove-vocab-{}-AbC123", ::getpid()),
      store + "/streamglove-vocab-XyZ789"};  // named as before pids were
  WriteFile(left[0], "the 3\n");
  for (size_t i = 1; i < left.size(); ++i) {
    REQUIRE(::mkdir(left[i].c_str(), 0700) == 0);
    WriteFile(left[i] + "/run-0", "words");
  }
  // Every input is in the store already: no vocabulary pass runs.
  REQUIRE(Ingest(store, f.inputs, CorpusOptions(), f.Options(), &stats).ok());
  CHECK(stats.inputs_skipped == f.inputs.size());
  for (const std::string& path : left) {
    INFO(path);
    CHECK_FALSE(PathExists(path));
  }
  CHECK(ReadStore(store) == before);
}
