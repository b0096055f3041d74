// streamglove-make-corpus: a synthetic corpus for demos and scale tests.
//
// Deterministic from --seed. Background words follow a Zipf law over
// --vocab pronounceable pseudo-words. Planted structure: --relations
// families, each of --pairs word pairs (a_i, b_i). Every pair has topic words
// of its own; a_i appears beside its topic words and the family's "a" marker,
// b_i beside the same topic words and the "b" marker. So b_i - a_i points the
// same way for every pair of a family, and the analogies a_i : b_i :: a_j : b_j
// are recoverable; --questions writes them in the Google questions-words
// format (one ": family-N" section per family).
//
// Output: --shards files DIR/shard-NNNNN.txt.zst (one document per line) or
// .jsonl.zst ({"id": ..., "text": ...} per line) holding about --bytes of text.
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace {

// A readable pseudo-word for an id: consonant-vowel syllables, unique per id.
std::string PseudoWord(uint64_t id, const char* prefix = "") {
  static const char* kSyllables[] = {"ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze",
                                     "bo", "da", "fi", "gu", "he", "jo"};
  std::string w = prefix;
  do {
    w += kSyllables[id % 16];
    id /= 16;
  } while (id > 0);
  return w;
}

class ZipfSampler {
 public:
  ZipfSampler(size_t n, double exponent) : cdf_(n) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) cdf_[i] = sum += 1.0 / std::pow(static_cast<double>(i + 1), exponent);
    for (double& c : cdf_) c /= sum;
  }
  size_t operator()(std::mt19937_64& rng) const {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    return static_cast<size_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
  }

 private:
  std::vector<double> cdf_;
};

class ZstdFile {
 public:
  explicit ZstdFile(const std::string& path) : path_(path), out_(std::fopen(path.c_str(), "wb")) {
    if (out_ == nullptr) throw std::runtime_error(fmt::format("{}: cannot create", path));
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, 3);
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
  }
  ~ZstdFile() {
    Compress("", ZSTD_e_end);
    std::fclose(out_);
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Generate a synthetic corpus with planted analogies", "streamglove-make-corpus"};
  std::string dir, questions_path;
  double bytes = 20e6;
  size_t vocab = 50000, shards = 4, relations = 4, pairs = 25, topic_words = 6;
  uint64_t seed = 1;
  std::string format = "text";
  app.add_option("-o,--output", dir, "Output directory (must exist)")->required();
  app.add_option("--questions", questions_path, "Also write the planted analogies to this file");
  app.add_option("--bytes", bytes, "Approximate bytes of text in all")->capture_default_str();
  app.add_option("--vocab", vocab, "Distinct background words")->capture_default_str();
  app.add_option("--shards", shards, "Number of output files")->capture_default_str();
  app.add_option("--relations", relations, "Planted relation families")->capture_default_str();
  app.add_option("--pairs", pairs, "Word pairs per family")->capture_default_str();
  app.add_option("--format", format, "text or jsonl")->check(CLI::IsMember({"text", "jsonl"}))->capture_default_str();
  app.add_option("--seed", seed, "Random seed")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  try {
    std::mt19937_64 rng(seed);
    const ZipfSampler background(vocab, 1.0);
    // Planted words use prefixes so they never collide with background words.
    auto pair_word = [](size_t r, size_t i, int side) { return PseudoWord(r * 1000 + i, side == 0 ? "xa" : "xb"); };
    auto marker = [](size_t r, int side) { return PseudoWord(r, side == 0 ? "qa" : "qb"); };
    auto topic = [&](size_t r, size_t i, size_t k) { return PseudoWord((r * 1000 + i) * 16 + k, "tp"); };

    std::FILE* questions = questions_path.empty() ? nullptr : std::fopen(questions_path.c_str(), "w");
    if (!questions_path.empty() && questions == nullptr) {
      throw std::runtime_error(fmt::format("{}: cannot create", questions_path));
    }
    for (size_t r = 0; questions != nullptr && r < relations; ++r) {
      fmt::print(questions, ": family-{}\n", r);
      for (size_t i = 0; i < pairs; ++i) {
        for (size_t j = 0; j < pairs; ++j) {
          if (i != j) {
            fmt::print(questions, "{} {} {} {}\n", pair_word(r, i, 0), pair_word(r, i, 1), pair_word(r, j, 0),
                       pair_word(r, j, 1));
          }
        }
      }
    }
    if (questions != nullptr) std::fclose(questions);

    const double per_shard = bytes / static_cast<double>(shards);
    uint64_t doc_id = 0;
    std::string doc, sentence_words;
    for (size_t s = 0; s < shards; ++s) {
      ZstdFile out(fmt::format("{}/shard-{:05d}.{}.zst", dir, s, format == "jsonl" ? "jsonl" : "txt"));
      double written = 0;
      while (written < per_shard) {
        doc.clear();
        const int sentences = 1 + static_cast<int>(rng() % 12);
        for (int k = 0; k < sentences; ++k) {
          std::vector<std::string> words;
          const int length = 5 + static_cast<int>(rng() % 20);
          if (relations > 0 && rng() % 4 == 0) {  // a planted sentence
            const size_t r = rng() % relations, i = rng() % pairs;
            const int side = static_cast<int>(rng() % 2);
            words.push_back(pair_word(r, i, side));
            words.push_back(marker(r, side));
            for (int t = 0; t < 3; ++t) words.push_back(topic(r, i, rng() % topic_words));
          }
          while (static_cast<int>(words.size()) < length) words.push_back(PseudoWord(background(rng)));
          std::shuffle(words.begin(), words.end(), rng);
          for (const std::string& w : words) {
            if (!doc.empty()) doc += ' ';
            doc += w;
          }
        }
        const std::string line = format == "jsonl" ? fmt::format("{{\"id\": \"{}\", \"text\": \"{}\"}}\n", doc_id, doc)
                                                   : doc + "\n";
        out.Write(line);
        written += static_cast<double>(line.size());
        ++doc_id;
      }
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "streamglove-make-corpus: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
