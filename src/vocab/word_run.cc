#include "vocab/word_run.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <queue>

#include <fmt/format.h>

#include "util/coding.h"

namespace streamglove {

namespace {

constexpr size_t kReadBufferBytes = size_t{64} << 10;
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

Status WordRunReader::Open(const std::string& path) {
  path_ = path;
  file_ = std::make_unique<SequentialFile>();
  buffer_.resize(kReadBufferBytes);
  return file_->Open(path);
}

Status WordRunReader::Fill() {
  std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
  end_ -= pos_;
  pos_ = 0;
  while (!eof_ && end_ < buffer_.size()) {
    size_t got = 0;
    SG_RETURN_IF_ERROR(file_->Read(buffer_.data() + end_, buffer_.size() - end_, &got));
    if (got == 0) eof_ = true;
    end_ += got;
  }
  return Status::OK();
}

Status WordRunReader::Next(bool* done) {
  if (end_ - pos_ < kMaxRecordBytes && !eof_) SG_RETURN_IF_ERROR(Fill());
  if (pos_ == end_) {
    *done = true;
    return Status::OK();
  }
  const char* p = buffer_.data() + pos_;
  const char* limit = buffer_.data() + end_;
  uint64_t len = 0;
  if (!GetVarint64(&p, limit, &len) || len > static_cast<uint64_t>(limit - p)) {
    return Status::Corruption(fmt::format("{}: bad word run record", path_));
  }
  word_.assign(p, len);
  p += len;
  if (!GetVarint64(&p, limit, &count_)) {
    return Status::Corruption(fmt::format("{}: bad word run record", path_));
  }
  pos_ = p - buffer_.data();
  *done = false;
  return Status::OK();
}

namespace {

// Merges `runs` (at most fan-in of them) into `emit`.
Status MergeGroup(const std::vector<std::string>& runs, WordCountTable::Order order,
                  const WordEmitter& emit) {
  std::vector<WordRunReader> readers(runs.size());
  auto greater = [&](size_t a, size_t b) {  // priority_queue keeps the largest on top
    const WordRunReader& x = readers[a];
    const WordRunReader& y = readers[b];
    if (order == WordCountTable::Order::kByCountDesc && x.count() != y.count()) {
      return x.count() < y.count();
    }
    return WordLess(y.word(), x.word());
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(greater)> heap(greater);
  for (size_t i = 0; i < runs.size(); ++i) {
    SG_RETURN_IF_ERROR(readers[i].Open(runs[i]));
    bool done = false;
    SG_RETURN_IF_ERROR(readers[i].Next(&done));
    if (!done) heap.push(i);
  }
  std::string word;
  uint64_t count = 0;
  bool have = false;
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    if (have && readers[i].word() == word) {
      count += readers[i].count();
    } else {
      if (have) SG_RETURN_IF_ERROR(emit(word, count));
      word.assign(readers[i].word());
      count = readers[i].count();
      have = true;
    }
    bool done = false;
    SG_RETURN_IF_ERROR(readers[i].Next(&done));
    if (!done) heap.push(i);
  }
  if (have) SG_RETURN_IF_ERROR(emit(word, count));
  return Status::OK();
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
      SG_RETURN_IF_ERROR(MergeGroup(group, order, [&](std::string_view w, uint64_t c) {
        return writer.Add(w, c);
      }));
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
