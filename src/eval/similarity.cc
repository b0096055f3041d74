// Word similarity: Spearman's rho between cosines and human scores.

#include <charconv>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "eval/spearman.h"
#include "streamglove/eval.h"
#include "util/file.h"
#include "util/quoted.h"

namespace streamglove {

namespace {

double Cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    dot += double{a[k]} * b[k];
    na += double{a[k]} * a[k];
    nb += double{b[k]} * b[k];
  }
  return na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0;
}

}  // namespace

Status EvaluateSimilarity(const Embeddings& embeddings, const std::string& path, CaseMode case_mode,
                          SimilarityReport* report) {
  *report = SimilarityReport();
  report->file = path;
  const WordMatcher matcher(embeddings, case_mode, 0);
  std::string text;
  SG_RETURN_IF_ERROR(ReadFileToString(path, &text));
  std::istringstream in(text);
  std::string line;
  std::vector<double> human, model;
  std::vector<float> va, vb;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const size_t tab1 = line.find('\t');
    const size_t tab2 = tab1 == std::string::npos ? tab1 : line.find('\t', tab1 + 1);
    double score = 0;
    bool parsed = tab2 != std::string::npos;
    if (parsed) {
      const size_t end = std::min(line.find('\t', tab2 + 1), line.size());
      const char* first = line.data() + tab2 + 1;
      auto [ptr, ec] = std::from_chars(first, line.data() + end, score);
      parsed = ec == std::errc() && ptr == line.data() + end && std::isfinite(score);
    }
    if (!parsed) {
      return Status::Corruption(fmt::format("{}: line {}: expected word1<TAB>word2<TAB>score: {}",
                                            path, number, Quoted(line, 80)));
    }
    ++report->pairs;
    const std::string_view word_a = std::string_view(line).substr(0, tab1);
    const std::string_view word_b = std::string_view(line).substr(tab1 + 1, tab2 - tab1 - 1);
    const uint32_t a = matcher.Find(word_a), b = matcher.Find(word_b);
    if (a != Embeddings::kNotFound && b != Embeddings::kNotFound) {
      double dot = 0;
      for (uint32_t k = 0; k < embeddings.dim(); ++k)
        dot += embeddings.value(a, k) * embeddings.value(b, k);
      const double norms = embeddings.norm(a) * embeddings.norm(b);
      human.push_back(score);
      model.push_back(norms > 0 ? dot / norms : 0);
    } else if (matcher.Vector(word_a, &va) && matcher.Vector(word_b, &vb)) {
      human.push_back(score);  // a subword model's unseen word
      model.push_back(Cosine(va, vb));
    }
  }
  report->seen = human.size();
  report->spearman = Spearman(human, model);
  return Status::OK();
}

}  // namespace streamglove
