// streamglove-make-corpus: a synthetic corpus for demos and scale tests.
//
// Deterministic from --seed (each shard from its own seed, so --threads does
// not change the output). Background words follow a Zipf law over --vocab
// pronounceable pseudo-words; documents and sentences have prose-like
// lengths (log-normal sentences, median 20 words; geometric documents, mean
// 12 sentences). Planted structure: --relations families of --pairs word
// pairs (a_i, b_i), each family like "capital of": see PlantedWords. The
// analogies a_i : b_i :: a_j : b_j are then recoverable; --questions writes
// them in the Google questions-words format (one ": family-N" section each).
//
// Output: --shards files DIR/shard-NNNNN.txt.zst (one document per line) or
// .jsonl.zst ({"id": ..., "text": ...} per line) holding about --bytes of text.
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "util/alias_table.h"

namespace {

// A readable pseudo-word for an id: consonant-vowel syllables, unique per id.
std::string PseudoWord(uint64_t id, const char* prefix = "") {
  static const char* kSyllables[] = {"ka", "lo", "mi", "nu", "pe", "ra", "si", "to",
                                     "vu", "ze", "bo", "da", "fi", "gu", "he", "jo"};
  std::string w = prefix;
  do {
    w += kSyllables[id % 16];
    id /= 16;
  } while (id > 0);
  return w;
}

// Zipf-distributed background word ids, drawn in O(1).
class ZipfSampler {
 public:
  ZipfSampler(size_t n, double exponent) : table_(Weights(n, exponent)) {}
  size_t operator()(std::mt19937_64& rng) const { return table_.Sample(rng()); }

 private:
  static std::vector<double> Weights(size_t n, double exponent) {
    std::vector<double> w(n);
    for (size_t i = 0; i < n; ++i) w[i] = 1.0 / std::pow(static_cast<double>(i + 1), exponent);
    return w;
  }
  streamglove::AliasTable table_;
};

class ZstdFile {
 public:
  explicit ZstdFile(const std::string& path) : path_(path), out_(std::fopen(path.c_str(), "wb")) {
    if (out_ == nullptr) throw std::runtime_error(fmt::format("{}: cannot create", path));
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, 3);
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
  }
  // Ends the frame and closes the file; throws on a failed write or close
  // (a full disk must not leave a truncated shard behind a zero exit).
  void Close() {
    Compress("", ZSTD_e_end);
    std::FILE* out = out_;
    out_ = nullptr;
    if (std::fclose(out) != 0) throw std::runtime_error(fmt::format("{}: write failed", path_));
  }
  ~ZstdFile() {
    if (out_ != nullptr) std::fclose(out_);  // after an error: the caller reports it
    ZSTD_freeCCtx(cctx_);
  }
  void Write(const std::string& s) { Compress(s, ZSTD_e_continue); }

 private:
  void Compress(const std::string& s, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{s.data(), s.size(), 0};
    std::string buf(ZSTD_CStreamOutSize(), '\0');
    for (;;) {
      ZSTD_outBuffer out{buf.data(), buf.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx_, &out, &in, mode);
      if (ZSTD_isError(left)) throw std::runtime_error(ZSTD_getErrorName(left));
      if (std::fwrite(buf.data(), 1, out.pos, out_) != out.pos) {
        throw std::runtime_error(fmt::format("{}: write failed", path_));
      }
      if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) break;
    }
  }
  std::string path_;
  std::FILE* out_;
  ZSTD_CCtx* cctx_ = ZSTD_createCCtx();
};

// The planted structure: family r's pair i is (a_i, b_i). Each pair has
// topic words of its own, each side of a family has role words of its own
// (think "paris ... capital city" and "france ... country"). A planted phrase
// is a short run of a pair word, two role words of its side and two of its
// pair's topic words, in random order, inside an ordinary sentence: so
// b_i - a_i points along (roles of b) - (roles of a) for every pair of a family.
struct PlantedWords {
  static constexpr size_t kRoles = 4, kTopics = 6;
  static std::string Pair(size_t r, size_t i, int side) {
    return PseudoWord(r * 1000 + i, side == 0 ? "xa" : "xb");
  }
  static std::string Role(size_t r, int side, size_t k) {
    return PseudoWord(r * kRoles + k, side == 0 ? "qa" : "qb");
  }
  static std::string Topic(size_t r, size_t i, size_t k) {
    return PseudoWord((r * 1000 + i) * kTopics + k, "tp");
  }
};

struct CorpusSpec {
  std::string dir, format;
  double shard_bytes;
  size_t relations, pairs;
  double planted_rate;
  uint64_t seed;
};

struct ShardTotals {
  uint64_t bytes = 0, tokens = 0, documents = 0;
};

// One shard, from its own seed (so shards can be written in any order and
// by any number of threads with the same result).
ShardTotals WriteShard(const CorpusSpec& spec, size_t shard, const std::vector<std::string>& words,
                       const ZipfSampler& background) {
  std::mt19937_64 rng(spec.seed * 0x9E3779B97F4A7C15ull + shard + 1);
  // Sentence lengths: log-normal, median 20 words (as in news and Wikipedia
  // prose); documents: geometric, mean 12 sentences.
  std::lognormal_distribution<double> sentence_length(std::log(20.0), 0.5);
  std::geometric_distribution<int> extra_sentences(1.0 / 12);
  std::bernoulli_distribution planted(spec.planted_rate);
  ShardTotals totals;
  ZstdFile out(fmt::format("{}/shard-{:05d}.{}.zst", spec.dir, shard,
                           spec.format == "jsonl" ? "jsonl" : "txt"));
  std::string doc, line;
  std::vector<std::string_view> sentence;
  std::vector<std::string> phrase;
  while (static_cast<double>(totals.bytes) < spec.shard_bytes) {
    doc.clear();
    const int sentences = 1 + std::min(extra_sentences(rng), 200);
    for (int s = 0; s < sentences; ++s) {
      const size_t length = std::clamp<size_t>(static_cast<size_t>(sentence_length(rng)), 3, 120);
      sentence.clear();
      phrase.clear();
      if (spec.relations > 0 && planted(rng)) {
        const size_t r = rng() % spec.relations, i = rng() % spec.pairs;
        const int side = static_cast<int>(rng() % 2);
        phrase.push_back(PlantedWords::Pair(r, i, side));
        for (int k = 0; k < 2; ++k)
          phrase.push_back(PlantedWords::Role(r, side, rng() % PlantedWords::kRoles));
        for (int k = 0; k < 2; ++k)
          phrase.push_back(PlantedWords::Topic(r, i, rng() % PlantedWords::kTopics));
        std::shuffle(phrase.begin(), phrase.end(), rng);
      }
      const size_t plain = length > phrase.size() ? length - phrase.size() : 0;
      const size_t at = rng() % (plain + 1);
      for (size_t k = 0; k < plain; ++k) {
        if (k == at) sentence.insert(sentence.end(), phrase.begin(), phrase.end());
        sentence.push_back(words[background(rng)]);
      }
      if (at == plain) sentence.insert(sentence.end(), phrase.begin(), phrase.end());
      for (std::string_view w : sentence) {
        if (!doc.empty()) doc += ' ';
        doc += w;
      }
      totals.tokens += sentence.size();
    }
    line = spec.format == "jsonl" ? fmt::format("{{\"id\": \"{}-{}\", \"text\": \"{}\"}}\n", shard,
                                                totals.documents, doc)
                                  : doc + "\n";
    out.Write(line);
    totals.bytes += line.size();
    ++totals.documents;
  }
  out.Close();
  return totals;
}

void WriteQuestions(const std::string& path, size_t relations, size_t pairs) {
  std::FILE* questions = std::fopen(path.c_str(), "w");
  if (questions == nullptr) throw std::runtime_error(fmt::format("{}: cannot create", path));
  for (size_t r = 0; r < relations; ++r) {
    fmt::print(questions, ": family-{}\n", r);
    for (size_t i = 0; i < pairs; ++i) {
      for (size_t j = 0; j < pairs; ++j) {
        if (i != j) {
          fmt::print(questions, "{} {} {} {}\n", PlantedWords::Pair(r, i, 0),
                     PlantedWords::Pair(r, i, 1), PlantedWords::Pair(r, j, 0),
                     PlantedWords::Pair(r, j, 1));
        }
      }
    }
  }
  if (std::fclose(questions) != 0) throw std::runtime_error(fmt::format("{}: write failed", path));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Generate a synthetic corpus with planted analogies", "streamglove-make-corpus"};
  CorpusSpec spec{"", "text", 0, 4, 25, 0.25, 1};
  std::string questions_path;
  double bytes = 20e6, zipf = 1.0;
  size_t vocab = 50000, shards = 4;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  app.add_option("-o,--output", spec.dir, "Output directory (must exist)")->required();
  app.add_option("--questions", questions_path, "Also write the planted analogies to this file");
  app.add_option("--bytes", bytes, "Approximate bytes of text in all")->capture_default_str();
  app.add_option("--vocab", vocab, "Distinct background words")->capture_default_str();
  app.add_option("--zipf", zipf, "Exponent of the background words' Zipf law")
      ->capture_default_str();
  app.add_option("--shards", shards, "Number of output files")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--relations", spec.relations, "Planted relation families")->capture_default_str();
  app.add_option("--pairs", spec.pairs, "Word pairs per family")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--planted-rate", spec.planted_rate,
                 "Fraction of sentences holding a planted phrase")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--format", spec.format, "text or jsonl")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  app.add_option("--seed", spec.seed, "Random seed")->capture_default_str();
  app.add_option("--threads", threads, "Shards written at once (the output does not depend on it)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  try {
    if (!questions_path.empty()) WriteQuestions(questions_path, spec.relations, spec.pairs);
    spec.shard_bytes = bytes / static_cast<double>(shards);
    std::vector<std::string> words(vocab);
    for (size_t i = 0; i < vocab; ++i) words[i] = PseudoWord(i);
    const ZipfSampler background(vocab, zipf);
    std::vector<ShardTotals> totals(shards);
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < std::min<size_t>(threads, shards); ++t) {
      workers.emplace_back([&] {
        for (size_t s; (s = next++) < shards;) {
          try {
            totals[s] = WriteShard(spec, s, words, background);
          } catch (...) {
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            next = shards;
          }
        }
      });
    }
    for (std::thread& w : workers) w.join();
    if (failure) std::rethrow_exception(failure);
    ShardTotals all;
    for (const ShardTotals& t : totals)
      all.bytes += t.bytes, all.tokens += t.tokens, all.documents += t.documents;
    fmt::print(stderr, "streamglove-make-corpus: {} shards, {} bytes, {} tokens, {} documents\n",
               shards, all.bytes, all.tokens, all.documents);
  } catch (const std::exception& e) {
    fmt::print(stderr, "streamglove-make-corpus: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
