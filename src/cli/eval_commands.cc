#include "cli/eval_commands.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;

const char* FormatName(VectorsFormat f) {
  switch (f) {
    case VectorsFormat::kGloveText:
      return "GloVe text";
    case VectorsFormat::kWord2VecText:
      return "word2vec text";
    case VectorsFormat::kWord2VecBinary:
      return "word2vec binary";
    case VectorsFormat::kSubwordModel:
      return "subword model";
  }
  return "";
}

// Loads the vectors and says so on a terminal's stderr (not in a pipe, with
// --json or --quiet).
Status LoadVectors(const EvalFlags& flags, Embeddings* embeddings) {
  const auto start = Clock::now();
  SG_RETURN_IF_ERROR(embeddings->Load(flags.vectors));
  if (!flags.json && !flags.quiet && ::isatty(STDERR_FILENO) == 1) {
    fmt::print(stderr, "{}: {} words x {} ({}), loaded in {:.2f} s\n", flags.vectors,
               embeddings->size(), embeddings->dim(), FormatName(embeddings->format()),
               std::chrono::duration<double>(Clock::now() - start).count());
  }
  return Status::OK();
}

double Percent(const AnalogySection& s) { return s.seen > 0 ? 100.0 * s.correct / s.seen : 0.0; }

nlohmann::json SectionJson(const AnalogySection& s) {
  return {{"name", s.name},
          {"questions", s.questions},
          {"seen", s.seen},
          {"correct", s.correct},
          {"accuracy", Percent(s)}};
}

// The questions-words file when none is named: $STREAMGLOVE_EVAL_DIR, then
// the shared data beside a checkout.
std::string DefaultQuestions() {
  std::vector<std::string> candidates;
  if (const char* dir = std::getenv("STREAMGLOVE_EVAL_DIR")) {
    candidates.push_back(std::string(dir) + "/analogy/questions-words.txt");
  }
  candidates.push_back("../shared/data/eval/analogy/questions-words.txt");
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (std::filesystem::exists(c, ec)) return c;
  }
  return "";
}

}  // namespace

void EvalFlags::Register(CLI::App* app, bool with_restrict) {
  app->add_option("VECTORS", vectors,
                  "Vectors file: GloVe text, word2vec text or binary, or a subword model "
                  "(OUT.model: any word answered from its n-grams) (detected)")
      ->required();
  app->add_option("--case", case_mode,
                  "Word matching: lower (lowercase the queries), exact, or insensitive (gensim's: "
                  "fold both sides)")
      ->capture_default_str()
      ->check(CLI::IsMember({"lower", "exact", "insensitive"}));
  if (with_restrict) {
    app->add_option("--restrict", restrict_vocab,
                    "Only the N first (most frequent) words count (0: all)")
        ->capture_default_str();
  }
  app->add_flag("--json", json, "Machine-readable results on stdout");
  app->add_flag("-q,--quiet", quiet, "No loading line on stderr");
}

CaseMode EvalFlags::Mode() const {
  return case_mode == "exact"         ? CaseMode::kExact
         : case_mode == "insensitive" ? CaseMode::kInsensitive
                                      : CaseMode::kLower;
}

EvalAnalogyCommand::EvalAnalogyCommand(CLI::App* eval) {
  app_ = eval->add_subcommand("analogy",
                              "Word analogies a:b::c:? (questions-words format), per section");
  flags_.Register(app_, /*with_restrict=*/true);
  app_->add_option(
      "FILE", files_,
      "Question files (default: questions-words.txt from $STREAMGLOVE_EVAL_DIR/analogy or "
      "../shared/data/eval/analogy)");
  app_->add_option("--method", method_,
                   "3cosadd (Stanford's and gensim's) or 3cosmul (Levy & Goldberg)")
      ->capture_default_str()
      ->check(CLI::IsMember({"3cosadd", "3cosmul"}));
}

Status EvalAnalogyCommand::Validate() {
  options_.method = method_ == "3cosmul" ? AnalogyMethod::kCosMul : AnalogyMethod::kCosAdd;
  options_.restrict_vocab = flags_.restrict_vocab;
  options_.case_mode = flags_.Mode();
  if (files_.empty()) {
    const std::string file = DefaultQuestions();
    if (file.empty()) {
      return Status::InvalidArgument(
          "eval analogy: no question file given, and no questions-words.txt under "
          "$STREAMGLOVE_EVAL_DIR/analogy "
          "or ../shared/data/eval/analogy");
    }
    files_.push_back(file);
  }
  return Status::OK();
}

Status EvalAnalogyCommand::Run() {
  Embeddings embeddings;
  SG_RETURN_IF_ERROR(LoadVectors(flags_, &embeddings));
  nlohmann::json files = nlohmann::json::array();
  for (const std::string& file : files_) {
    const auto start = Clock::now();
    AnalogyReport report;
    SG_RETURN_IF_ERROR(EvaluateAnalogies(embeddings, file, options_, &report));
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (flags_.json) {
      nlohmann::json sections = nlohmann::json::array();
      for (const AnalogySection& s : report.sections) sections.push_back(SectionJson(s));
      files.push_back({{"file", file},
                       {"sections", sections},
                       {"semantic", SectionJson(report.semantic)},
                       {"syntactic", SectionJson(report.syntactic)},
                       {"total", SectionJson(report.total)},
                       {"seconds", seconds}});
      continue;
    }
    const uint32_t candidates = options_.restrict_vocab == 0
                                    ? embeddings.size()
                                    : std::min(options_.restrict_vocab, embeddings.size());
    fmt::print("{}: {}, {} candidate words, case {}\n", file,
               method_ == "3cosmul" ? "3CosMul" : "3CosAdd", candidates, flags_.case_mode);
    fmt::print("{:<32} {:>17} {:>8} {:>9}\n", "section", "seen / questions", "correct", "accuracy");
    auto row = [](const AnalogySection& s) {
      fmt::print("{:<32} {:>7} / {:<7} {:>8} {:>8.2f}%\n", s.name, s.seen, s.questions, s.correct,
                 Percent(s));
    };
    for (const AnalogySection& s : report.sections) row(s);
    fmt::print("{:-<77}\n", "");
    row(report.semantic);
    row(report.syntactic);
    row(report.total);
    fmt::print(
        "coverage: {} of {} questions ({:.1f}%); {:.2f} s\n", report.total.seen,
        report.total.questions,
        report.total.questions > 0 ? 100.0 * report.total.seen / report.total.questions : 0.0,
        seconds);
  }
  if (flags_.json) {
    const nlohmann::json out = {{"vectors", flags_.vectors},
                                {"words", embeddings.size()},
                                {"dim", embeddings.dim()},
                                {"method", method_},
                                {"restrict", flags_.restrict_vocab},
                                {"case", flags_.case_mode},
                                {"files", files}};
    std::cout << out.dump() << "\n";
  }
  return Status::OK();
}

EvalSimilarityCommand::EvalSimilarityCommand(CLI::App* eval) {
  app_ = eval->add_subcommand(
      "similarity", "Spearman's rho between cosines and human scores (word1 TAB word2 TAB score)");
  flags_.Register(app_, /*with_restrict=*/false);
  app_->add_option("FILE", files_, "Word-pair files")->required();
}

Status EvalSimilarityCommand::Run() {
  Embeddings embeddings;
  SG_RETURN_IF_ERROR(LoadVectors(flags_, &embeddings));
  nlohmann::json files = nlohmann::json::array();
  if (!flags_.json) fmt::print("{:<40} {:>17} {:>9}\n", "file", "seen / pairs", "spearman");
  for (const std::string& file : files_) {
    SimilarityReport report;
    SG_RETURN_IF_ERROR(EvaluateSimilarity(embeddings, file, flags_.Mode(), &report));
    if (flags_.json) {
      files.push_back(
          {{"file", file},
           {"pairs", report.pairs},
           {"seen", report.seen},
           {"spearman",
            std::isnan(report.spearman) ? nlohmann::json() : nlohmann::json(report.spearman)}});
      continue;
    }
    const std::string name = std::filesystem::path(file).filename().string();
    fmt::print("{:<40} {:>7} / {:<7} {:>9.4f}\n", name, report.seen, report.pairs, report.spearman);
  }
  if (flags_.json) {
    const nlohmann::json out = {{"vectors", flags_.vectors},
                                {"words", embeddings.size()},
                                {"dim", embeddings.dim()},
                                {"case", flags_.case_mode},
                                {"files", files}};
    std::cout << out.dump() << "\n";
  }
  return Status::OK();
}

QueryCommand::QueryCommand(CLI::App* parent, Kind kind) : kind_(kind) {
  app_ =
      kind == Kind::kNeighbors
          ? parent->add_subcommand(
                "neighbors",
                "Nearest words by cosine (several words: of their sum); no WORD: read "
                "queries from stdin, one per line")
          : parent->add_subcommand(
                "analogy", "a : b :: c : ? by 3CosAdd; no words: read \"a b c\" lines from stdin");
  flags_.Register(app_, /*with_restrict=*/true);
  app_->add_option("WORD", words_, kind == Kind::kNeighbors ? "Query words" : "The words a b c");
  app_->add_option("-k", k_, "Answers per query")->capture_default_str();
}

Status QueryCommand::Validate() {
  if (kind_ == Kind::kAnalogy && !words_.empty() && words_.size() != 3) {
    return Status::InvalidArgument("analogy: give three words a b c (a is to b as c is to ?)");
  }
  if (k_ < 1) return Status::InvalidArgument("-k must be at least 1");
  return Status::OK();
}

Status QueryCommand::Answer(const Embeddings& embeddings, const WordMatcher& matcher,
                            const std::vector<std::string>& words) const {
  // A subword model answers a word outside its vocabulary from its n-grams.
  std::vector<QueryTerm> rows;
  for (const std::string& w : words) {
    const uint32_t r = matcher.Find(w);
    std::vector<float> v;
    if (r != Embeddings::kNotFound) {
      rows.emplace_back(r);
    } else if (matcher.Vector(w, &v)) {
      rows.emplace_back(std::move(v));
    } else {
      return Status::NotFound(fmt::format("'{}' is not in {}{}", w, flags_.vectors,
                                          embeddings.has_subwords() ? " and has no n-grams" : ""));
    }
  }
  std::vector<QueryTerm> plus = rows, minus;
  if (kind_ == Kind::kAnalogy) {
    plus = {rows[1], rows[2]};
    minus = {rows[0]};
  }
  const std::vector<Neighbor> answers = NearestNeighbors(embeddings, matcher, plus, minus, k_);
  if (flags_.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Neighbor& n : answers)
      list.push_back({{"word", embeddings.word(n.row)}, {"cosine", n.cosine}});
    std::cout << nlohmann::json{{"query", words}, {"answers", list}}.dump() << "\n";
  } else {
    for (const Neighbor& n : answers)
      fmt::print("{:<24} {:.4f}\n", embeddings.word(n.row), n.cosine);
  }
  return Status::OK();
}

Status QueryCommand::Run() {
  Embeddings embeddings;
  SG_RETURN_IF_ERROR(LoadVectors(flags_, &embeddings));
  const WordMatcher matcher(embeddings, flags_.Mode(), flags_.restrict_vocab);
  if (!words_.empty()) return Answer(embeddings, matcher, words_);
  // Interactive: a bad query is reported and the next one read.
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream fields(line);
    std::vector<std::string> words;
    for (std::string w; fields >> w;) words.push_back(w);
    if (words.empty()) continue;
    Status s = kind_ == Kind::kAnalogy && words.size() != 3
                   ? Status::InvalidArgument("give three words a b c")
                   : Answer(embeddings, matcher, words);
    if (!s.ok()) fmt::print(stderr, "{}\n", s.message());
    if (!flags_.json) fmt::print("\n");
    std::fflush(stdout);
  }
  return Status::OK();
}

PrintWordVectorsCommand::PrintWordVectorsCommand(CLI::App* parent) {
  app_ = parent->add_subcommand(
      "print-word-vectors",
      "Print \"word v1 ... vd\" for each word read from stdin (fastText's print-word-vectors): a "
      "subword model (OUT.model) answers any word from its n-grams; a word without a vector "
      "prints zeros, as fastText's does");
  flags_.case_mode = "exact";  // as fastText's: the words as written
  flags_.Register(app_, /*with_restrict=*/false);
}

Status PrintWordVectorsCommand::Run() {
  Embeddings embeddings;
  SG_RETURN_IF_ERROR(LoadVectors(flags_, &embeddings));
  const WordMatcher matcher(embeddings, flags_.Mode(), 0);
  std::vector<float> v;
  std::string line;
  uint64_t missing = 0;
  for (std::string word; std::cin >> word;) {
    if (!matcher.Vector(word, &v)) {
      v.assign(embeddings.dim(), 0.0f);
      ++missing;
    }
    line = word;
    for (float x : v) fmt::format_to(std::back_inserter(line), " {:.5g}", x);
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  if (missing > 0 && !flags_.quiet)
    fmt::print(stderr, "print-word-vectors: {} words without a vector printed as zeros\n", missing);
  return Status::OK();
}

}  // namespace streamglove
