// Word analogies by 3CosAdd or 3CosMul over batches of questions.

#include <array>
#include <cmath>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "eval/candidate_scorer.h"
#include "streamglove/eval.h"
#include "util/file.h"
#include "util/quoted.h"

namespace streamglove {

namespace {

constexpr double kCosMulEpsilon = 1e-6;  // gensim's most_similar_cosmul
constexpr size_t kScoreBudgetBytes = size_t{128} << 20;

struct Question {
  std::array<uint32_t, 4> rows;  // a b c d
  uint32_t section;
};

double UnitDot(const Embeddings& e, uint32_t x, uint32_t y) {
  double sum = 0;
  for (uint32_t k = 0; k < e.dim(); ++k)
    sum += e.value(x, k) / e.norm(x) * (e.value(y, k) / e.norm(y));
  return e.norm(x) > 0 && e.norm(y) > 0 ? sum : 0;
}

// cos'(x, y) = (1 + cos) / 2, in [0, 1].
double Shifted(double cosine) { return (1 + cosine) / 2; }

Status ReadQuestions(const std::string& path, const WordMatcher& matcher, AnalogyReport* report,
                     std::vector<Question>* questions) {
  std::string text;
  SG_RETURN_IF_ERROR(ReadFileToString(path, &text));
  std::istringstream in(text);
  std::string line;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (line[0] == ':') {
      const size_t start = line.find_first_not_of(" \t", 1);
      report->sections.push_back({start == std::string::npos ? "" : line.substr(start), 0, 0, 0});
      continue;
    }
    std::istringstream fields(line);
    std::array<std::string, 4> words;
    std::string extra;
    if (!(fields >> words[0] >> words[1] >> words[2] >> words[3]) || (fields >> extra)) {
      return Status::Corruption(
          fmt::format("{}: line {}: expected four words: {}", path, number, Quoted(line, 80)));
    }
    if (report->sections.empty()) report->sections.push_back({"(no section)", 0, 0, 0});
    AnalogySection& section = report->sections.back();
    ++section.questions;
    Question q;
    q.section = static_cast<uint32_t>(report->sections.size() - 1);
    bool known = true;
    for (int i = 0; i < 4; ++i) {
      q.rows[i] = matcher.Find(words[i]);
      known = known && q.rows[i] != Embeddings::kNotFound;
    }
    if (!known) continue;
    ++section.seen;
    questions->push_back(q);
  }
  return Status::OK();
}

void Add(const AnalogySection& from, AnalogySection* to) {
  to->questions += from.questions;
  to->seen += from.seen;
  to->correct += from.correct;
}

}  // namespace

Status EvaluateAnalogies(const Embeddings& embeddings, const std::string& path,
                         const AnalogyOptions& options, AnalogyReport* report) {
  *report = AnalogyReport();
  report->file = path;
  const WordMatcher matcher(embeddings, options.case_mode, options.restrict_vocab);
  std::vector<Question> questions;
  SG_RETURN_IF_ERROR(ReadQuestions(path, matcher, report, &questions));

  const uint32_t n = matcher.candidates();
  const uint32_t dim = embeddings.dim();
  const bool cosmul = options.method == AnalogyMethod::kCosMul;
  const size_t terms = cosmul ? 3 : 1;  // query rows per question
  const size_t batch = QueriesPerBatch(n, kScoreBudgetBytes / terms);
  // Float rounding bound of one GEMM score: unit rows, |query| <= 3.
  const float cos_error = static_cast<float>((dim + 8) * 3 * std::ldexp(1.0, -22));
  std::vector<float> queries, scores, combined;
  std::vector<uint8_t> correct(questions.size());
  for (size_t begin = 0; begin < questions.size(); begin += batch) {
    const size_t count = std::min(batch, questions.size() - begin);
    queries.assign(count * terms * dim, 0.0f);
    for (size_t q = 0; q < count; ++q) {
      const auto& r = questions[begin + q].rows;
      for (uint32_t k = 0; k < dim; ++k) {
        if (cosmul) {  // rows a, b, c of the question, one query each
          for (int t = 0; t < 3; ++t) queries[(t * count + q) * dim + k] = embeddings.unit(r[t])[k];
        } else {
          auto u = [&](uint32_t row) {
            return embeddings.norm(row) > 0 ? embeddings.value(row, k) / embeddings.norm(row) : 0.0;
          };
          queries[q * dim + k] = static_cast<float>(u(r[1]) - u(r[0]) + u(r[2]));
        }
      }
    }
    ScoreCandidates(embeddings, n, queries.data(), count * terms, &scores);
    tbb::parallel_for(size_t{0}, count, [&](size_t q) {
      const Question& question = questions[begin + q];
      const auto& r = question.rows;
      float* row = scores.data() + q * n;
      if (cosmul) {
        const float* sa = scores.data() + (0 * count + q) * n;
        const float* sb = scores.data() + (1 * count + q) * n;
        const float* sc = scores.data() + (2 * count + q) * n;
        float* out = const_cast<float*>(sa);  // combined in place of the a scores
        for (uint32_t x = 0; x < n; ++x) {
          out[x] = static_cast<float>(Shifted(sb[x]) * Shifted(sc[x]) /
                                      (Shifted(sa[x]) + kCosMulEpsilon));
        }
        row = out;
      }
      std::vector<uint32_t> excluded;
      for (int t = 0; t < 3; ++t) {
        for (uint32_t v : matcher.Variants(r[t])) excluded.push_back(v);
      }
      std::function<double(uint32_t)> exact;
      float tolerance;
      if (cosmul) {
        exact = [&](uint32_t x) {
          return Shifted(UnitDot(embeddings, x, r[1])) * Shifted(UnitDot(embeddings, x, r[2])) /
                 (Shifted(UnitDot(embeddings, x, r[0])) + kCosMulEpsilon);
        };
        // Relative: the scores are ratios of shifted cosines.
        float top = 0;
        for (uint32_t x = 0; x < n; ++x) top = std::max(top, row[x]);
        tolerance = top * 1e-3f + cos_error;
      } else {
        exact = [&](uint32_t x) {
          return UnitDot(embeddings, x, r[1]) - UnitDot(embeddings, x, r[0]) +
                 UnitDot(embeddings, x, r[2]);
        };
        tolerance = cos_error;
      }
      const uint32_t best = BestCandidate(row, n, excluded, tolerance, exact);
      correct[begin + q] = best != UINT32_MAX && matcher.Canonical(best) == r[3];
    });
  }
  for (size_t i = 0; i < questions.size(); ++i)
    report->sections[questions[i].section].correct += correct[i];
  for (size_t s = 0; s < report->sections.size(); ++s) {
    Add(report->sections[s],
        s < options.semantic_sections ? &report->semantic : &report->syntactic);
    Add(report->sections[s], &report->total);
  }
  report->semantic.name = "semantic";
  report->syntactic.name = "syntactic";
  report->total.name = "total";
  return Status::OK();
}

}  // namespace streamglove
