#include "cooccur/pair_run.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <queue>

#include <fmt/format.h>

#include "cooccur/pair_accumulator.h"
#include "util/coding.h"

namespace streamglove {

namespace {

// Small, since up to config::kMergeFanIn runs are read at once.
constexpr size_t kReadBufferBytes = size_t{64} << 10;
constexpr size_t kMaxRecordBytes = 20;  // two varints

class PairRunReader final : public PairStream {
 public:
  explicit PairRunReader(std::string path) : path_(std::move(path)), buffer_(kReadBufferBytes, '\0') {}

  Status Next(PairRecord* record, bool* done) override {
    if (!opened_) {
      SG_RETURN_IF_ERROR(file_.Open(path_));
      opened_ = true;
    }
    if (end_ - pos_ < kMaxRecordBytes && !eof_) SG_RETURN_IF_ERROR(Fill());
    if (pos_ == end_) {
      *done = true;
      return Status::OK();
    }
    const char* p = buffer_.data() + pos_;
    const char* limit = buffer_.data() + end_;
    uint64_t delta = 0, value = 0;
    if (!GetVarint64(&p, limit, &delta) || !GetVarint64(&p, limit, &value)) {
      return Status::Corruption(fmt::format("{}: truncated pair run record", path_));
    }
    key_ += delta;
    *record = PairRecord{key_, value};
    pos_ = p - buffer_.data();
    *done = false;
    return Status::OK();
  }

 private:
  Status Fill() {
    std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
    while (!eof_ && end_ < buffer_.size()) {
      size_t got = 0;
      SG_RETURN_IF_ERROR(file_.Read(buffer_.data() + end_, buffer_.size() - end_, &got));
      if (got == 0) eof_ = true;
      end_ += got;
    }
    return Status::OK();
  }

  const std::string path_;
  SequentialFile file_;
  bool opened_ = false;
  std::string buffer_;
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  uint64_t key_ = 0;
};

class PairSpanStream final : public PairStream {
 public:
  explicit PairSpanStream(std::span<const PairRecord> records) : records_(records) {}
  Status Next(PairRecord* record, bool* done) override {
    *done = next_ == records_.size();
    if (!*done) *record = records_[next_++];
    return Status::OK();
  }

 private:
  std::span<const PairRecord> records_;
  size_t next_ = 0;
};

}  // namespace

namespace {

// Writes sorted records as a run, one at a time.
class PairRunWriter {
 public:
  Status Open(const std::string& path) { return file_.Open(path, kReadBufferBytes); }
  Status Add(const PairRecord& r) {
    record_.clear();
    PutVarint64(&record_, r.key - previous_);
    PutVarint64(&record_, r.value);
    previous_ = r.key;
    return file_.Append(record_);
  }
  Status Finish() { return file_.Close(/*sync=*/false); }

 private:
  WritableFile file_;
  std::string record_;
  uint64_t previous_ = 0;
};

}  // namespace

Status WritePairRun(const std::string& path, std::span<const PairRecord> records) {
  PairRunWriter writer;
  SG_RETURN_IF_ERROR(writer.Open(path));
  for (const PairRecord& r : records) SG_RETURN_IF_ERROR(writer.Add(r));
  return writer.Finish();
}

Status ReduceRuns(std::vector<std::string>* paths, size_t fan_in, BatchRuns* runs) {
  fan_in = std::max<size_t>(fan_in, 2);
  while (paths->size() > fan_in) {
    std::vector<std::string> merged;
    for (size_t start = 0; start < paths->size(); start += fan_in) {
      const size_t end = std::min(paths->size(), start + fan_in);
      if (end - start == 1) {
        merged.push_back((*paths)[start]);
        continue;
      }
      std::vector<std::unique_ptr<PairStream>> group;
      for (size_t i = start; i < end; ++i) group.push_back(NewPairRunReader((*paths)[i]));
      PairRunWriter writer;
      const std::string out = runs->NewPath(/*track=*/false);  // returned in *paths
      SG_RETURN_IF_ERROR(writer.Open(out));
      SG_RETURN_IF_ERROR(MergePairStreams(std::move(group), [&](const PairRecord& r) { return writer.Add(r); }));
      SG_RETURN_IF_ERROR(writer.Finish());
      for (size_t i = start; i < end; ++i) ::unlink((*paths)[i].c_str());
      merged.push_back(out);
    }
    paths->swap(merged);
  }
  return Status::OK();
}

std::unique_ptr<PairStream> NewPairRunReader(const std::string& path) {
  return std::make_unique<PairRunReader>(path);
}

std::unique_ptr<PairStream> NewPairSpanStream(std::span<const PairRecord> records) {
  return std::make_unique<PairSpanStream>(records);
}

Status MergePairStreams(std::vector<std::unique_ptr<PairStream>> streams,
                        const std::function<Status(const PairRecord&)>& emit) {
  std::vector<PairRecord> heads(streams.size());
  auto greater = [&](size_t a, size_t b) { return heads[a].key > heads[b].key; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(greater)> heap(greater);
  for (size_t i = 0; i < streams.size(); ++i) {
    bool done = false;
    SG_RETURN_IF_ERROR(streams[i]->Next(&heads[i], &done));
    if (!done) heap.push(i);
  }
  PairRecord current{0, 0};
  bool have = false;
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    if (have && heads[i].key == current.key) {
      current.value += heads[i].value;
    } else {
      if (have) SG_RETURN_IF_ERROR(emit(current));
      current = heads[i];
      have = true;
    }
    bool done = false;
    SG_RETURN_IF_ERROR(streams[i]->Next(&heads[i], &done));
    if (!done) heap.push(i);
  }
  if (have) SG_RETURN_IF_ERROR(emit(current));
  return Status::OK();
}

}  // namespace streamglove
