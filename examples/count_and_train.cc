// count_and_train: a corpus to word vectors through streamglove's public API
// alone (include/streamglove/, linked as streamglove::streamglove), as a
// program of another project uses the installed library.
//
//   count_and_train WORK_DIR INPUT... [--questions FILE]
//
// Counts the inputs (text files or folders of them, compressed with zstd,
// gzip, xz or bzip2 or not) into the store WORK_DIR/store, trains GloVe
// vectors into WORK_DIR/vectors.txt, loads them back, and prints the store's
// figures, each epoch's loss, the nearest neighbours of the most frequent
// words and, given a questions-words FILE, the analogy accuracy. Run again
// with more inputs and they are added to the store (those it holds are
// skipped); after Ctrl-C during counting, the same command continues.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "streamglove/corpus_reader.h"
#include "streamglove/embeddings.h"
#include "streamglove/eval.h"
#include "streamglove/ingest.h"
#include "streamglove/interrupt.h"
#include "streamglove/options.h"
#include "streamglove/status.h"
#include "streamglove/store_info.h"
#include "streamglove/train.h"
#include "streamglove/units.h"

namespace {

using streamglove::Status;

using ull = unsigned long long;  // printf's %llu for the stats' uint64_t

// A small corpus needs little: the whole process stays within this.
constexpr size_t kMemoryBytes = size_t{256} << 20;

// Counts `paths` into the store at `store`, creating it when new.
Status Count(const std::string& store, const std::vector<std::string>& paths) {
  streamglove::CorpusOptions corpus;  // whitespace tokens, as Stanford GloVe's
  SG_RETURN_IF_ERROR(streamglove::ValidateCorpusOptions(corpus));
  std::vector<streamglove::InputFile> inputs;
  SG_RETURN_IF_ERROR(streamglove::ExpandInputs(paths, corpus.format, &inputs));

  streamglove::IngestOptions options;  // window 10, words seen 5 times trained
  options.memory_bytes = kMemoryBytes;
  options.progress = false;
  SG_RETURN_IF_ERROR(streamglove::ValidateIngestOptions(options));
  streamglove::IngestStats stats;
  const Status s = streamglove::Ingest(store, inputs, corpus, options, &stats);
  // Skipped inputs and resumptions are said even when the ingest failed.
  for (const std::string& m : stats.messages) std::printf("ingest: %s\n", m.c_str());
  SG_RETURN_IF_ERROR(s);
  std::printf("counted %llu tokens from %llu inputs (%llu already in the store) in %.2f s\n",
              ull{stats.tokens}, ull{stats.inputs_ingested}, ull{stats.inputs_skipped},
              stats.vocab_seconds + stats.count_seconds + stats.commit_seconds);

  streamglove::StoreStats store_stats;
  SG_RETURN_IF_ERROR(
      streamglove::ComputeStoreStats(store, streamglove::kStoreReadMemoryBytes, &store_stats));
  std::printf(
      "store: %llu words (%llu seen %llu times or more), %s%llu non-zero pairs, %s on disk\n",
      ull{store_stats.words}, ull{store_stats.vocab_size}, ull{store_stats.min_count},
      store_stats.nonzero_pairs_exact ? "" : "at most ", ull{store_stats.nonzero_pairs},
      streamglove::FormatBytes(static_cast<double>(store_stats.size_on_disk)).c_str());
  return Status::OK();
}

// Trains GloVe vectors from the store into `vectors`, afresh each run
// (TrainOptions::resume would continue the checkpoint beside them).
Status TrainVectors(const std::string& store, const std::string& vectors) {
  streamglove::TrainOptions options;
  options.dim = 50;  // Stanford's demo settings, fewer epochs: the corpus is small
  options.epochs = 10;
  options.x_max = 10;
  options.memory_bytes = kMemoryBytes;
  options.progress = false;
  // Called on this thread after each epoch's checkpoint.
  options.on_epoch = [](const streamglove::TrainStats&, const streamglove::EpochStats& e) {
    std::printf("epoch %2u: loss %.5f, %llu pairs in %.2f s\n", e.epoch, e.loss, ull{e.pairs},
                e.seconds);
  };
  SG_RETURN_IF_ERROR(streamglove::ValidateTrainOptions(options));
  streamglove::TrainStats stats;
  SG_RETURN_IF_ERROR(streamglove::Train(store, vectors, options, &stats));
  std::printf("trained %llu words x %u on %d threads in %.2f s\n", ull{stats.vocab_size}, stats.dim,
              stats.threads, stats.seconds);
  return Status::OK();
}

// Loads `vectors` and prints the neighbours of its first (most frequent)
// words and, when `questions` is not empty, the analogy accuracy.
Status Query(const std::string& vectors, const std::string& questions) {
  streamglove::Embeddings embeddings;
  SG_RETURN_IF_ERROR(embeddings.Load(vectors));
  // Every row a candidate; words matched as written.
  const streamglove::WordMatcher matcher(embeddings, streamglove::CaseMode::kExact, 0);
  for (uint32_t row = 0; row < 3 && row < embeddings.size(); ++row) {
    std::printf("nearest to %s:", embeddings.word(row).c_str());
    for (const streamglove::Neighbor& n :
         streamglove::NearestNeighbors(embeddings, matcher, {row}, {}, 5)) {
      std::printf(" %s %.3f", embeddings.word(n.row).c_str(), n.cosine);
    }
    std::printf("\n");
  }
  if (questions.empty()) return Status::OK();
  streamglove::AnalogyReport report;
  SG_RETURN_IF_ERROR(streamglove::EvaluateAnalogies(embeddings, questions,
                                                    streamglove::AnalogyOptions{}, &report));
  const streamglove::AnalogySection& t = report.total;
  std::printf("analogies: %llu of %llu right (%.1f%%), %llu of %llu questions had all four words\n",
              ull{t.correct}, ull{t.seen}, t.seen > 0 ? 100.0 * t.correct / t.seen : 0.0,
              ull{t.seen}, ull{t.questions});
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string questions;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--questions") {
      questions = args[i + 1];
      args.erase(args.begin() + i, args.begin() + i + 2);
      break;
    }
  }
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: count_and_train WORK_DIR INPUT... [--questions FILE]\n");
    return 2;
  }
  const std::string dir = args[0];
  const std::vector<std::string> inputs(args.begin() + 1, args.end());

  // Ctrl-C stops counting or training where nothing is lost, as an error.
  streamglove::InstallInterruptHandlers();
  Status s = Count(dir + "/store", inputs);
  if (s.ok()) s = TrainVectors(dir + "/store", dir + "/vectors.txt");
  if (s.ok()) s = Query(dir + "/vectors.txt", questions);
  if (!s.ok()) {
    std::fprintf(stderr, "count_and_train: %s\n", s.ToString().c_str());
    return s.code() == Status::Code::kInterrupted ? 128 + streamglove::InterruptSignal() : 1;
  }
  return 0;
}
