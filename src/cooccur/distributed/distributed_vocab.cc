#include "cooccur/distributed/distributed_vocab.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "cooccur/cooccur_tuning.h"
#include "util/coding.h"
#include "util/config.h"
#include "util/file.h"
#include "util/hash.h"
#include "vocab/word_counts.h"
#include "vocab/word_run.h"

namespace streamglove {

namespace {

// Counts this rank's inputs into one word-ordered run per owner rank.
Status CountIntoOwnerRuns(const std::vector<InputFile>& inputs, const CorpusOptions& corpus,
                          const VocabOptions& options, const std::vector<std::string>& paths) {
  std::vector<WordRunWriter> runs(paths.size());
  for (size_t r = 0; r < paths.size(); ++r) SG_RETURN_IF_ERROR(runs[r].Open(paths[r]));
  if (!inputs.empty()) {
    VocabStats stats;
    SG_RETURN_IF_ERROR(CountWordsInOrder(
        inputs, corpus, options,
        [&](std::string_view word, uint64_t count) {
          return runs[HashBytes(word) % runs.size()].Add(word, count);
        },
        &stats));
  }
  for (WordRunWriter& run : runs) SG_RETURN_IF_ERROR(run.Finish());
  return Status::OK();
}

// The words of `kept` (length-prefixed word, varint count, as gathered)
// appended to *entries.
Status ParseKept(const std::string& kept, std::vector<VocabEntry>* entries) {
  const char* p = kept.data();
  const char* const limit = p + kept.size();
  while (p < limit) {
    std::string_view word;
    uint64_t count = 0;
    if (!GetLengthPrefixed(&p, limit, &word) || !GetVarint64(&p, limit, &count))
      return Status::Corruption("distributed vocabulary: a truncated word count from a rank");
    entries->push_back(VocabEntry{std::string(word), count});
  }
  return Status::OK();
}

}  // namespace

Status BuildDistributedVocabulary(MpiWorld* world, const std::vector<InputFile>& inputs,
                                  const CorpusOptions& corpus, const VocabOptions& options,
                                  std::vector<VocabEntry>* vocab, ExchangeStats* exchange) {
  vocab->clear();
  *exchange = ExchangeStats();
  TempDir temp;
  SG_RETURN_IF_ERROR(world->Agree(temp.Create(options.temp_dir, "streamglove-vocab-mpi-")));
  std::vector<std::string> outgoing, incoming;
  for (int r = 0; r < world->size(); ++r) {
    outgoing.push_back(fmt::format("{}/to-{}", temp.path(), r));
    incoming.push_back(fmt::format("{}/from-{}", temp.path(), r));
  }
  SG_RETURN_IF_ERROR(world->Agree(CountIntoOwnerRuns(inputs, corpus, options, outgoing)));

  StreamFiles received(incoming);
  SG_RETURN_IF_ERROR(world->Agree(ExchangeStreams(
      world, config::kExchangeChunkBytes,
      [&](int to, StreamSink* sink) { return SendFile(outgoing[to], sink); },
      [&](int from, std::string_view bytes) { return received.Consume(from, bytes); }, exchange)));

  // This rank's words, summed over the ranks, those kept by min_count.
  std::string kept;
  Status merged =
      MergeWordRuns(received.written(), WordCountTable::Order::kByWord, config::kMergeFanIn,
                    temp.path(), [&](std::string_view word, uint64_t count) -> Status {
                      if (count < options.min_count) return Status::OK();
                      PutLengthPrefixed(&kept, word);
                      PutVarint64(&kept, count);
                      return Status::OK();
                    });
  SG_RETURN_IF_ERROR(world->Agree(merged));
  std::vector<std::string> all;
  world->Gather(kept, &all);
  if (world->rank() != 0) return world->Agree(Status::OK());

  Status parsed;
  for (const std::string& share : all) {
    if (parsed.ok()) parsed = ParseKept(share, vocab);
  }
  if (parsed.ok()) {
    // vocab_file.h's order; owners hold disjoint words, so no ties of equal words.
    std::sort(vocab->begin(), vocab->end(), [](const VocabEntry& a, const VocabEntry& b) {
      return a.count != b.count ? a.count > b.count : a.word < b.word;
    });
    if (options.max_vocab != 0 && vocab->size() > options.max_vocab)
      vocab->resize(options.max_vocab);
  }
  return world->Agree(parsed);
}

}  // namespace streamglove
