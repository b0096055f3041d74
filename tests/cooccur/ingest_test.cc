#include "streamglove/ingest.h"

#include <sys/stat.h>

#include <cmath>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <map>
#include <random>

#include "cooccur/fixed_point.h"
#include "store/store.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

using Counts = std::map<std::pair<uint32_t, uint32_t>, uint64_t>;

// Stanford GloVe's cooccur loop over the reference tokens, in fixed point:
// the independent oracle for the whole ingest path.
Counts BruteForce(const std::vector<std::string>& files, const std::vector<VocabEntry>& vocab, uint32_t window,
                  bool symmetric, bool weighting) {
  std::map<std::string, uint32_t> ids;
  for (uint32_t i = 0; i < vocab.size(); ++i) ids[vocab[i].word] = i;
  const uint64_t scale = CountScale(window, weighting);
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
        const uint64_t add = weighting ? scale / (j - k) : 1;
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
  REQUIRE(store->ForEachPair([&](uint32_t r, uint32_t c, uint64_t v) {
    counts[{r, c}] = v;
    return Status::OK();
  }).ok());
  return counts;
}

// Zipf-ish words in long and short lines, so chunks cut inside lines.
std::string Corpus(std::mt19937_64* rng, size_t words) {
  std::string s;
  for (size_t i = 0; i < words; ++i) {
    const auto id = static_cast<size_t>(std::pow(3000.0, static_cast<double>((*rng)() % 1000000) / 1e6));
    s += fmt::format("w{}", id);
    s += (*rng)() % 400 == 0 ? "\n" : ((*rng)() % 9 == 0 ? "\t" : " ");
  }
  return s;
}

struct Fixture {
  TempDir dir;
  std::vector<std::string> texts;
  std::vector<InputFile> inputs;
  std::string vocab_path;
  std::vector<VocabEntry> vocab;

  Fixture() {
    REQUIRE(dir.Create("", "sg-ingest-").ok());
    std::mt19937_64 rng(21);
    texts = {Corpus(&rng, 60000), Corpus(&rng, 30000), Corpus(&rng, 20000)};
    ::mkdir((dir.path() + "/in").c_str(), 0700);
    WriteFile(dir.path() + "/in/a.txt", texts[0]);
    WriteFile(dir.path() + "/in/b.txt.zst", ZstdFrames({texts[1].substr(0, 5000), texts[1].substr(5000)}));
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
    std::stable_sort(vocab.begin(), vocab.end(), [](const auto& a, const auto& b) { return a.count > b.count; });
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
    bool symmetric, weighting;
    int threads;
    size_t max_dense, max_buffer;
    uint64_t batch_bytes;
  };
  int n = 0;
  for (const Case& c : {Case{15, true, true, 2, 0, 0, uint64_t{1} << 30},
                        Case{15, false, true, 1, 0, 0, uint64_t{1} << 30},
                        Case{5, true, false, 2, 4096, 4096, 65536},  // tiny dense region, spills, many batches
                        Case{1, false, false, 2, 0, 2048, 100000},
                        Case{20, true, true, 1, 1, 1 << 12, 70000}}) {
    INFO("window " << c.window << " symmetric " << c.symmetric << " weighting " << c.weighting << " threads "
                   << c.threads << " dense " << c.max_dense << " buffer " << c.max_buffer);
    IngestOptions o = f.Options();
    o.window = c.window;
    o.symmetric = c.symmetric;
    o.distance_weighting = c.weighting;
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
