// streamglove-scan: the floor an ingest is measured against. Reads a corpus
// through the same reader and parallel pipeline as ingest, doing only
//   --mode read      decompress and cut into chunks,
//   --mode tokenize  ... and tokenize,
//   --mode lookup    ... and look every token up in --vocab,
// and prints the wall time and throughput; or
//   --mode print     writes the tokens to stdout, a line per document (one
//                    thread, in order), so that peers (fastText, gensim)
//                    train on exactly the tokens ingest counts.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "corpus/chunk_pipeline.h"
#include "corpus/chunk_tokenizer.h"
#include "streamglove/vocabulary.h"
#include "vocab/vocab_index.h"

namespace {

using namespace streamglove;

class ScanWorker final : public TokenSink {
 public:
  ScanWorker(const CorpusOptions& corpus, const std::vector<InputFile>* inputs,
             const VocabIndex* vocab)
      : tokenizer_(corpus, inputs), vocab_(vocab) {}
  // With `print`, the chunk's tokens are written to stdout.
  Status Scan(const Chunk& chunk, bool tokenize, bool print) {
    print_ = print;
    if (!tokenize) return Status::OK();
    SG_RETURN_IF_ERROR(tokenizer_.Tokenize(chunk, this));
    if (print_ && std::fwrite(text_.data(), 1, text_.size(), stdout) != text_.size()) {
      return Status::IOError("stdout: write failed");
    }
    text_.clear();
    return Status::OK();
  }
  void OnToken(std::string_view token) override {
    ++tokens;
    if (vocab_ != nullptr && vocab_->Lookup(token) != VocabIndex::kUnknown) ++known;
    if (print_) {
      if (!text_.empty() && text_.back() != '\n') text_ += ' ';
      text_ += token;
    }
  }
  void OnDocumentEnd() override {
    if (print_ && !text_.empty() && text_.back() != '\n') text_ += '\n';
  }
  uint64_t tokens = 0, known = 0;

 private:
  bool print_ = false;
  std::string text_;
  ChunkTokenizer tokenizer_;
  const VocabIndex* vocab_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Measure the read / tokenize / lookup floor of a corpus", "streamglove-scan"};
  std::vector<std::string> paths;
  std::string mode = "lookup", vocab_path;
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  app.add_option("INPUT", paths, "Corpus files or directories")->required();
  app.add_option("--mode", mode, "read, tokenize, lookup or print")
      ->check(CLI::IsMember({"read", "tokenize", "lookup", "print"}));
  app.add_option("--vocab", vocab_path, "Vocabulary file (lookup mode)");
  app.add_option("--threads", threads, "Worker threads");
  std::string tokenizer = "whitespace";
  app.add_option("--tokenizer", tokenizer, "whitespace, words or icu")
      ->check(CLI::IsMember({"whitespace", "words", "icu"}));
  bool lowercase = false;
  app.add_flag("--lowercase", lowercase, "Lowercase the tokens, as ingest --lowercase");
  CLI11_PARSE(app, argc, argv);
  const bool print = mode == "print";
  if (print) threads = 1;  // chunks in order

  const auto start = std::chrono::steady_clock::now();
  CorpusOptions corpus;
  corpus.lowercase = lowercase;
  for (TokenizerKind kind :
       {TokenizerKind::kWhitespace, TokenizerKind::kWords, TokenizerKind::kIcu}) {
    if (tokenizer == TokenizerKindName(kind)) corpus.tokenizer = kind;
  }
  std::vector<InputFile> inputs;
  std::vector<VocabEntry> entries;
  Status s = ExpandInputs(paths, InputFormat::kAuto, &inputs);
  if (s.ok() && mode == "lookup") {
    s = vocab_path.empty() ? Status::InvalidArgument("--mode lookup needs --vocab")
                           : ReadVocabFile(vocab_path, &entries);
  }
  if (!s.ok()) {
    fmt::print(stderr, "streamglove-scan: error: {}\n", s.message());
    return 1;
  }
  const std::unique_ptr<VocabIndex> vocab =
      mode == "lookup" ? std::make_unique<VocabIndex>(entries) : nullptr;
  ChunkReader reader(inputs, corpus);
  std::vector<std::unique_ptr<ScanWorker>> workers;
  std::vector<ScanWorker*> ptrs;
  for (int i = 0; i < threads; ++i) {
    workers.push_back(std::make_unique<ScanWorker>(corpus, &reader.inputs(), vocab.get()));
    ptrs.push_back(workers.back().get());
  }
  const bool tokenize = mode != "read";
  s = ForEachChunk<ScanWorker>(
      &reader, ptrs, 2 * threads + 2, nullptr,
      [&](ScanWorker* w, const Chunk& chunk) { return w->Scan(chunk, tokenize, print); });
  if (!s.ok()) {
    fmt::print(stderr, "streamglove-scan: error: {}\n", s.message());
    return 1;
  }
  uint64_t tokens = 0, known = 0;
  for (const auto& w : workers) {
    tokens += w->tokens;
    known += w->known;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      print ? stderr : stdout,
      "{}: {:.2f} s, {:.1f} MB/s read, {} tokens ({:.1f} M/s), {} in vocabulary, {} threads\n",
      mode, seconds, reader.bytes_consumed() / seconds / 1e6, tokens, tokens / seconds / 1e6, known,
      threads);
  return 0;
}
