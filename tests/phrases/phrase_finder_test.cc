#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "store/store.h"
#include "streamglove/ingest.h"
#include "streamglove/phrases.h"
#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

using Bigram = std::pair<std::string, std::string>;

// Zipf-ish words in lines, with planted phrases (new york, new york times,
// ice cream) and near misses (new X, X york).
std::string Corpus(std::mt19937_64* rng, size_t words) {
  std::string s;
  for (size_t i = 0; i < words; ++i) {
    const uint64_t r = (*rng)() % 100;
    if (r < 3) {
      s += "new york";
    } else if (r < 5) {
      s += "new york times";
    } else if (r < 7) {
      s += "ice cream";
    } else if (r < 8) {
      s += (*rng)() % 2 ? "new" : "york";
    } else {
      s += fmt::format("w{}", static_cast<int>(std::pow(400.0, ((*rng)() % 1000000) / 1e6)));
    }
    s += (*rng)() % 30 == 0 ? "\n" : " ";
  }
  return s + "\n";
}

// The tokens of `texts` (kDocEnd between documents), joined by `list`.
std::vector<std::string> Tokens(const std::vector<std::string>& texts, const PhraseList* list) {
  std::vector<std::string> tokens;
  for (const std::string& text : texts) {
    for (std::string& t : ReferenceTokens(text)) tokens.push_back(std::move(t));
    tokens.push_back(kDocEnd);
  }
  if (list != nullptr) tokens = JoinPhrases(*list, std::move(tokens));
  return tokens;
}

// word2phrase's scan, by brute force: every adjacent pair within a document
// scored with the formulas as the docs write them.
std::map<Bigram, double> Expected(const std::vector<std::string>& tokens, PhraseScore score,
                                  double threshold, uint64_t min_count) {
  std::map<std::string, uint64_t> unigrams;
  std::map<Bigram, uint64_t> bigrams;
  uint64_t n = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] == kDocEnd) continue;
    ++unigrams[tokens[i]];
    ++n;
    if (i + 1 < tokens.size() && tokens[i + 1] != kDocEnd) ++bigrams[{tokens[i], tokens[i + 1]}];
  }
  std::map<Bigram, double> out;
  for (const auto& [ab, c] : bigrams) {
    const double ca = unigrams[ab.first], cb = unigrams[ab.second], N = n;
    if (c < min_count || ca < min_count || cb < min_count) continue;
    const double s = score == PhraseScore::kWord2Phrase
                         ? (c - static_cast<double>(min_count)) * N / (ca * cb)
                         : -std::log((c / N) / ((ca / N) * (cb / N))) / std::log(c / N);
    if (s > threshold) out[ab] = s;
  }
  return out;
}

std::map<Bigram, double> OfPass(const std::vector<Phrase>& found, uint32_t pass) {
  std::map<Bigram, double> out;
  for (const Phrase& p : found) {
    if (p.pass == pass) out[{p.left, p.right}] = p.score;
  }
  return out;
}

void CheckSame(const std::map<Bigram, double>& got, const std::map<Bigram, double>& want) {
  REQUIRE(got.size() == want.size());
  for (const auto& [ab, s] : want) {
    INFO(ab.first << " " << ab.second);
    REQUIRE(got.count(ab) == 1);
    CHECK(got.at(ab) == Approx(s).epsilon(1e-12));
  }
}

struct Fixture {
  TestDir dir{"sg-phrases-"};
  std::vector<std::string> texts;
  std::vector<InputFile> inputs;

  Fixture() {
    std::mt19937_64 rng(3);
    texts = {Corpus(&rng, 20000), Corpus(&rng, 8000)};
    dir.Write("a.txt", texts[0]);
    WriteFile(dir.path() + "/b.txt.zst", ZstdFrames({texts[1]}));
    REQUIRE(ExpandInputs({dir.path() + "/a.txt"}, InputFormat::kAuto, &inputs).ok());
  }
  static PhraseOptions Options(PhraseScore score, double threshold, uint32_t passes) {
    PhraseOptions o;
    o.score = score;
    o.threshold = threshold;
    o.passes = passes;
    o.memory_bytes = 128 << 20;
    o.progress = false;
    return o;
  }
};

}  // namespace

TEST_CASE("Phrases score every bigram as the formulas say, against a brute-force count",
          "[phrases]") {
  Fixture f;
  for (const PhraseScore score : {PhraseScore::kWord2Phrase, PhraseScore::kNpmi}) {
    const double threshold = score == PhraseScore::kNpmi ? 0.3 : 5;
    std::vector<Phrase> found;
    PhraseStats stats;
    const std::string work = f.dir.path() + "/" + PhraseScoreName(score);
    REQUIRE(FindPhrases(work, f.inputs, CorpusOptions(), Fixture::Options(score, threshold, 1),
                        &found, &stats)
                .ok());
    const std::map<Bigram, double> want =
        Expected(Tokens({f.texts[0]}, nullptr), score, threshold, 5);
    CheckSame(OfPass(found, 1), want);
    CHECK(want.count({"new", "york"}) == 1);
    CHECK(want.count({"ice", "cream"}) == 1);
    REQUIRE(stats.passes.size() == 1);
    CHECK(stats.passes[0].phrases == want.size());
    CHECK(std::is_sorted(found.begin(), found.end(),
                         [](const Phrase& a, const Phrase& b) { return a.score > b.score; }));
  }
}

TEST_CASE("Pass 2 scores the text pass 1 joined, and more inputs equal one run over all of them",
          "[phrases]") {
  Fixture f;
  const PhraseOptions o = Fixture::Options(PhraseScore::kWord2Phrase, 5, 2);
  std::vector<Phrase> found;
  PhraseStats stats;
  REQUIRE(FindPhrases(f.dir.path() + "/w", f.inputs, CorpusOptions(), o, &found, &stats).ok());
  std::vector<Phrase> first;
  for (const Phrase& p : found) {
    if (p.pass == 1) first.push_back(p);
  }
  const PhraseList pass1(first);
  CheckSame(OfPass(found, 2), Expected(Tokens({f.texts[0]}, &pass1), o.score, o.threshold, 5));
  CHECK(OfPass(found, 2).count({"new_york", "times"}) == 1);
  REQUIRE(stats.passes.size() == 2);
  CHECK_FALSE(stats.passes[1].recounted);

  // Another input: pass 1 adds its counts; pass 2, whose text changed with
  // pass 1's list, counts again. The result is one run's over both inputs.
  std::vector<InputFile> both;
  REQUIRE(ExpandInputs({f.dir.path() + "/a.txt", f.dir.path() + "/b.txt.zst"}, InputFormat::kAuto,
                       &both)
              .ok());
  std::vector<Phrase> added, once;
  REQUIRE(FindPhrases(f.dir.path() + "/w", both, CorpusOptions(), o, &added, &stats).ok());
  REQUIRE(stats.passes.size() == 2);
  // Recounted when more text moved a pass-1 score across the threshold.
  const auto joins = [](const std::map<Bigram, double>& m) {
    std::vector<Bigram> keys;
    for (const auto& kv : m) keys.push_back(kv.first);
    return keys;
  };
  CHECK(stats.passes[1].recounted == (joins(OfPass(added, 1)) != joins(OfPass(found, 1))));
  REQUIRE(FindPhrases(f.dir.path() + "/once", both, CorpusOptions(), o, &once, &stats).ok());
  REQUIRE(PhraseList(added).fingerprint() == PhraseList(once).fingerprint());
  CheckSame(OfPass(added, 1), OfPass(once, 1));
  CheckSame(OfPass(added, 2), OfPass(once, 2));

  // A higher threshold drops pass-1 phrases: pass 2 is counted again, and
  // equals a fresh run's.
  PhraseOptions higher = o;
  higher.threshold = 30;
  std::vector<Phrase> rescored, fresh;
  REQUIRE(FindPhrases(f.dir.path() + "/w", both, CorpusOptions(), higher, &rescored, &stats).ok());
  REQUIRE(joins(OfPass(rescored, 1)) != joins(OfPass(added, 1)));
  REQUIRE(stats.passes.size() == 2);
  CHECK(stats.passes[1].recounted);
  REQUIRE(FindPhrases(f.dir.path() + "/fresh", both, CorpusOptions(), higher, &fresh, &stats).ok());
  CheckSame(OfPass(rescored, 2), OfPass(fresh, 2));
}

TEST_CASE("A store counts the joined tokens, records its list and refuses another", "[phrases]") {
  Fixture f;
  const auto list = std::make_shared<const PhraseList>(
      std::vector<Phrase>{{1, "new", "york"}, {1, "ice", "cream"}, {2, "new_york", "times"}});
  CorpusOptions joined;
  joined.phrases = list;
  IngestOptions o;
  o.window = 3;
  o.memory_bytes = 128 << 20;
  o.progress = false;
  IngestStats stats;
  const std::string store = f.dir.path() + "/joined";
  REQUIRE(Ingest(store, f.inputs, joined, o, &stats).ok());
  // The same counts as a store of the text joined beforehand.
  std::string text;
  for (const std::string& t : Tokens({f.texts[0]}, list.get()))
    text += t == kDocEnd ? "\n" : t + " ";
  std::vector<InputFile> prejoined;
  f.dir.Write("prejoined.txt", text);
  REQUIRE(ExpandInputs({f.dir.path() + "/prejoined.txt"}, InputFormat::kAuto, &prejoined).ok());
  REQUIRE(Ingest(f.dir.path() + "/plain", prejoined, CorpusOptions(), o, &stats).ok());
  const auto pairs = [](const std::string& dir) {
    std::unique_ptr<Store> s;
    REQUIRE(Store::Open(dir, 64 << 20, false, &s).ok());
    std::map<Bigram, uint64_t> out;
    const std::vector<VocabEntry> vocab = s->vocab();
    REQUIRE(s->ForEachPair([&](uint32_t r, uint32_t c, uint64_t v) {
               out[{vocab[r].word, vocab[c].word}] = v;
               return Status::OK();
             }).ok());
    return std::make_pair(out, s->config().phrases);
  };
  const auto [with_list, recorded] = pairs(store);
  const auto [plain, none] = pairs(f.dir.path() + "/plain");
  CHECK(with_list == plain);
  CHECK(std::any_of(with_list.begin(), with_list.end(),
                    [](const auto& kv) { return kv.first.first == "new_york_times"; }));
  CHECK(recorded == list->fingerprint());
  CHECK(none.empty());

  // Another list, or none, is refused in one line naming both; nothing changes.
  std::vector<InputFile> more;
  REQUIRE(ExpandInputs({f.dir.path() + "/b.txt.zst"}, InputFormat::kAuto, &more).ok());
  Status s = Ingest(store, more, CorpusOptions(), o, &stats);
  REQUIRE_FALSE(s.ok());
  CHECK(s.message().find("joined with the phrase list " + list->fingerprint() +
                         "; this run joins no phrases") != std::string::npos);
  CorpusOptions other;
  other.phrases = std::make_shared<const PhraseList>(std::vector<Phrase>{{1, "new", "york"}});
  s = Ingest(store, more, other, o, &stats);
  REQUIRE_FALSE(s.ok());
  CHECK(s.message().find(other.phrases->fingerprint()) != std::string::npos);
  CHECK(pairs(store).first == with_list);
}

TEST_CASE("Phrase options out of range are refused", "[phrases]") {
  PhraseOptions o;
  CHECK(ValidatePhraseOptions(o).ok());
  o.passes = 0;
  CHECK_FALSE(ValidatePhraseOptions(o).ok());
  o = PhraseOptions();
  o.min_count = 0;
  CHECK_FALSE(ValidatePhraseOptions(o).ok());
  o = PhraseOptions();
  o.score = PhraseScore::kNpmi;
  o.threshold = 100;
  CHECK(ValidatePhraseOptions(o).message().find("[-1, 1]") != std::string::npos);
  o.threshold = 0.5;
  CHECK(ValidatePhraseOptions(o).ok());
}
