#include "vocab/word_run.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "util/coding.h"
#include "util/config.h"
#include "util/sorted_merge.h"

namespace streamglove {

namespace {

constexpr size_t kReadBufferBytes = config::kRunReadBufferBytes;
// The longest record: a varint-prefixed word of at most 4 KiB (tokens are cut
// at 999 bytes; lowercasing can lengthen them) and a varint count.
constexpr size_t kMaxRecordBytes = size_t{4} << 10;

bool WordLess(std::string_view a, std::string_view b) { return a < b; }  // bytewise

}  // namespace

Status WordRunWriter::Add(std::string_view word, uint64_t count) {
  record_.clear();
  PutVarint64(&record_, word.size());
  record_.append(word);
  PutVarint64(&record_, count);
  return file_.Append(record_);
}

Status WordRunReader::Open(const std::string& path) { return file_.Open(path, kReadBufferBytes); }

Status WordRunReader::Next(bool* done) {
  SG_RETURN_IF_ERROR(file_.Ensure(kMaxRecordBytes));
  if (file_.available() == 0) {
    *done = true;
    return Status::OK();
  }
  const char* p = file_.data();
  const char* limit = p + file_.available();
  uint64_t len = 0;
  if (!GetVarint64(&p, limit, &len) || len > static_cast<uint64_t>(limit - p)) {
    return Status::Corruption(fmt::format("{}: bad word run record", file_.path()));
  }
  word_.assign(p, len);
  p += len;
  if (!GetVarint64(&p, limit, &count_)) {
    return Status::Corruption(fmt::format("{}: bad word run record", file_.path()));
  }
  file_.Consume(static_cast<size_t>(p - file_.data()));
  *done = false;
  return Status::OK();
}

namespace {

// Merges `runs` (at most fan-in of them) into `emit`.
Status MergeGroup(const std::vector<std::string>& runs, WordCountTable::Order order,
                  const WordEmitter& emit) {
  struct Item {
    std::string_view word;  // the reader's, until its next record
    uint64_t count = 0;
  };
  std::vector<WordRunReader> readers(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) SG_RETURN_IF_ERROR(readers[i].Open(runs[i]));
  const auto next = [&](size_t i, Item* item, bool* done) {
    SG_RETURN_IF_ERROR(readers[i].Next(done));
    *item = Item{readers[i].word(), readers[i].count()};
    return Status::OK();
  };
  const auto less = [&](const Item& x, const Item& y) {
    if (order == WordCountTable::Order::kByCountDesc && x.count != y.count)
      return x.count > y.count;
    return WordLess(x.word, y.word);
  };
  std::string word;
  uint64_t count = 0;
  bool have = false;
  Status emitted;
  SG_RETURN_IF_ERROR(MergeSorted<Item>(runs.size(), next, less, [&](const Item& item) {
    if (have && item.word == word) {
      count += item.count;
      return true;
    }
    if (have) emitted = emit(word, count);
    word.assign(item.word);
    count = item.count;
    have = true;
    return emitted.ok();
  }));
  SG_RETURN_IF_ERROR(emitted);
  return have ? emit(word, count) : Status::OK();
}

}  // namespace

Status MergeWordRuns(std::vector<std::string> runs, WordCountTable::Order order, size_t fan_in,
                     const std::string& temp_dir, const WordEmitter& emit) {
  fan_in = std::max<size_t>(fan_in, 2);
  int pass = 0;
  while (runs.size() > fan_in) {
    std::vector<std::string> merged;
    for (size_t start = 0; start < runs.size(); start += fan_in) {
      const std::vector<std::string> group(runs.begin() + start,
                                           runs.begin() + std::min(runs.size(), start + fan_in));
      const std::string out = fmt::format("{}/merge-{}-{}", temp_dir, pass, merged.size());
      WordRunWriter writer;
      SG_RETURN_IF_ERROR(writer.Open(out));
      SG_RETURN_IF_ERROR(MergeGroup(
          group, order, [&](std::string_view w, uint64_t c) { return writer.Add(w, c); }));
      SG_RETURN_IF_ERROR(writer.Finish());
      for (const std::string& r : group) ::unlink(r.c_str());
      merged.push_back(out);
    }
    runs.swap(merged);
    ++pass;
  }
  SG_RETURN_IF_ERROR(MergeGroup(runs, order, emit));
  for (const std::string& r : runs) ::unlink(r.c_str());
  return Status::OK();
}

}  // namespace streamglove
