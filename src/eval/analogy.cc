// Word analogies by 3CosAdd or 3CosMul over batches of questions.

#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <unordered_map>

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
  // a b c d; a, b or c is kNotFound when a subword model answers it from its
  // n-grams: its unit vector is then unseen[t] of the UnseenWords.
  std::array<uint32_t, 4> rows;
  std::array<uint32_t, 3> unseen{};
  uint32_t section;
};

// The unit vectors, in double, of the question words outside the candidates
// that a subword model gives a vector, each word once.
class UnseenWords {
 public:
  // The index of the unit vector of `word`, or Embeddings::kNotFound when it
  // has no vector.
  uint32_t Add(const WordMatcher& matcher, const std::string& word) {
    const auto it = index_.find(word);
    if (it != index_.end()) return it->second;
    if (!matcher.Vector(word, &v_)) return Embeddings::kNotFound;
    double norm = 0;
    for (float x : v_) norm += double{x} * x;
    norm = std::sqrt(norm);
    for (float x : v_) units_.push_back(norm > 0 ? x / norm : 0.0);
    const uint32_t i = static_cast<uint32_t>(index_.size());
    index_.emplace(word, i);
    return i;
  }
  const double* unit(uint32_t i) const { return units_.data() + size_t{i} * v_.size(); }

 private:
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<double> units_;
  std::vector<float> v_;
};

double UnitDot(const Embeddings& e, uint32_t x, uint32_t y) {
  double sum = 0;
  for (uint32_t k = 0; k < e.dim(); ++k)
    sum += e.value(x, k) / e.norm(x) * (e.value(y, k) / e.norm(y));
  return e.norm(x) > 0 && e.norm(y) > 0 ? sum : 0;
}

// Component k of the unit vector of question word t (0, 1, 2: a, b, c).
double Unit(const Embeddings& e, const UnseenWords& unseen, const Question& q, int t, uint32_t k) {
  const uint32_t row = q.rows[t];
  if (row == Embeddings::kNotFound) return unseen.unit(q.unseen[t])[k];
  return e.norm(row) > 0 ? e.value(row, k) / e.norm(row) : 0.0;
}

// The cosine of row x and question word t, in double.
double TermDot(const Embeddings& e, const UnseenWords& unseen, uint32_t x, const Question& q,
               int t) {
  if (q.rows[t] != Embeddings::kNotFound) return UnitDot(e, x, q.rows[t]);
  if (e.norm(x) == 0) return 0;
  const double* u = unseen.unit(q.unseen[t]);
  double sum = 0;
  for (uint32_t k = 0; k < e.dim(); ++k) sum += e.value(x, k) / e.norm(x) * u[k];
  return sum;
}

// cos'(x, y) = (1 + cos) / 2, in [0, 1].
double Shifted(double cosine) { return (1 + cosine) / 2; }

Status ReadQuestions(const std::string& path, const WordMatcher& matcher, AnalogyReport* report,
                     std::vector<Question>* questions, UnseenWords* unseen) {
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
      // The answer must be a candidate; a subword model gives a, b and c
      // their n-grams' vectors when they are not.
      if (i < 3 && q.rows[i] == Embeddings::kNotFound) {
        q.unseen[i] = unseen->Add(matcher, words[i]);
        known = known && q.unseen[i] != Embeddings::kNotFound;
      } else {
        known = known && q.rows[i] != Embeddings::kNotFound;
      }
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
  UnseenWords unseen;
  SG_RETURN_IF_ERROR(ReadQuestions(path, matcher, report, &questions, &unseen));

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
      const Question& question = questions[begin + q];
      for (uint32_t k = 0; k < dim; ++k) {
        auto u = [&](int t) { return Unit(embeddings, unseen, question, t, k); };
        if (cosmul) {  // words a, b, c of the question, one query each
          for (int t = 0; t < 3; ++t) {
            const uint32_t row = question.rows[t];
            queries[(t * count + q) * dim + k] =
                row != Embeddings::kNotFound ? embeddings.unit(row)[k] : static_cast<float>(u(t));
          }
        } else {
          queries[q * dim + k] = static_cast<float>(u(1) - u(0) + u(2));
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
        if (r[t] == Embeddings::kNotFound) continue;  // no row to exclude
        for (uint32_t v : matcher.Variants(r[t])) excluded.push_back(v);
      }
      auto dot = [&](uint32_t x, int t) { return TermDot(embeddings, unseen, x, question, t); };
      std::function<double(uint32_t)> exact;
      float tolerance;
      if (cosmul) {
        exact = [&](uint32_t x) {
          return Shifted(dot(x, 1)) * Shifted(dot(x, 2)) / (Shifted(dot(x, 0)) + kCosMulEpsilon);
        };
        // Relative: the scores are ratios of shifted cosines.
        float top = 0;
        for (uint32_t x = 0; x < n; ++x) top = std::max(top, row[x]);
        tolerance = top * 1e-3f + cos_error;
      } else {
        exact = [&](uint32_t x) { return dot(x, 1) - dot(x, 0) + dot(x, 2); };
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
