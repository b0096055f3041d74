#include "cooccur/pair_run.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "util/coding.h"
#include "util/config.h"
#include "util/record_file_reader.h"
#include "util/sorted_merge.h"

namespace streamglove {

namespace {

constexpr size_t kReadBufferBytes = config::kRunReadBufferBytes;
constexpr size_t kMaxRecordBytes = 2 * kMaxVarint64Bytes;

class PairRunReader final : public PairStream {
 public:
  PairRunReader(const PairRun& run, uint64_t begin, uint64_t end)
      : run_(run), begin_(begin), end_key_(end) {}

  Status Read(PairRecord* out, size_t max, size_t* n) override {
    *n = 0;
    if (!opened_) SG_RETURN_IF_ERROR(OpenAtGroup());
    while (*n < max && records_read_ < run_.records) {
      SG_RETURN_IF_ERROR(file_.Ensure(kMaxRecordBytes));
      const char* p = file_.data();
      const char* const limit = p + file_.available();
      if (p == limit) {
        // A run of known length cut at a record's end would otherwise read
        // as a shorter run. (A received stream's length is its file's.)
        if (run_.records == UINT64_MAX) break;
        return Status::Corruption(fmt::format("{}: the run ends after {} of its {} records",
                                              run_.path, records_read_, run_.records));
      }
      // After Ensure the first record is whole (or the file is cut); the
      // ones after it need no Ensure while a longest record still fits.
      do {
        uint64_t delta = 0, value = 0;
        if (!GetVarint64(&p, limit, &delta) || !GetVarint64(&p, limit, &value)) {
          return Status::Corruption(fmt::format("{}: truncated pair run record", run_.path));
        }
        // A group's first record holds its key whole.
        key_ = records_read_ % kPairRunGroupRecords == 0 ? delta : key_ + delta;
        ++records_read_;
        if (key_ < begin_) continue;
        if (key_ >= end_key_) {
          records_read_ = run_.records;  // the rest is past the range
          break;
        }
        out[(*n)++] = PairRecord{key_, value};
      } while (*n < max && records_read_ < run_.records &&
               static_cast<size_t>(limit - p) >= kMaxRecordBytes);
      file_.Consume(static_cast<size_t>(p - file_.data()));
    }
    return Status::OK();
  }

 private:
  // Starts at the last group whose first key is <= begin_, or the first.
  Status OpenAtGroup() {
    opened_ = true;
    SG_RETURN_IF_ERROR(file_.Open(run_.path, kReadBufferBytes));
    const auto& groups = run_.groups;
    if (groups.empty()) return Status::OK();
    auto it = std::upper_bound(groups.begin(), groups.end(), begin_,
                               [](uint64_t key, const PairRun::Group& g) { return key < g.key; });
    if (it != groups.begin()) --it;
    records_read_ = static_cast<uint64_t>(it - groups.begin()) * kPairRunGroupRecords;
    return file_.SeekTo(it->offset);
  }

  const PairRun& run_;
  const uint64_t begin_, end_key_;
  RecordFileReader file_;
  bool opened_ = false;
  uint64_t key_ = 0;
  uint64_t records_read_ = 0;  // from the start of the run
};

class PairSpanStream final : public PairStream {
 public:
  explicit PairSpanStream(std::span<const PairRecord> records) : records_(records) {}
  Status Read(PairRecord* out, size_t max, size_t* n) override {
    *n = std::min(max, records_.size() - next_);
    std::copy_n(records_.data() + next_, *n, out);
    next_ += *n;
    return Status::OK();
  }

 private:
  std::span<const PairRecord> records_;
  size_t next_ = 0;
};

}  // namespace

Status PairRunWriter::Open(const std::string& path, PairRun* run) {
  run_ = run;
  *run_ = PairRun{path, {}, 0};
  return file_.Open(path, kReadBufferBytes);
}

Status PairRunWriter::Add(const PairRecord& r) {
  const bool group_start = run_->records % kPairRunGroupRecords == 0;
  if (group_start) run_->groups.push_back(PairRun::Group{r.key, bytes_});
  char record[2 * kMaxVarint64Bytes];
  char* end = EncodeVarint64(record, group_start ? r.key : r.key - previous_);
  end = EncodeVarint64(end, r.value);
  previous_ = r.key;
  ++run_->records;
  const auto size = static_cast<size_t>(end - record);
  bytes_ += size;
  return file_.Append(std::string_view(record, size));
}

Status WritePairRun(const std::string& path, std::span<const PairRecord> records, PairRun* run) {
  PairRunWriter writer;
  SG_RETURN_IF_ERROR(writer.Open(path, run));
  for (const PairRecord& r : records) SG_RETURN_IF_ERROR(writer.Add(r));
  return writer.Finish();
}

std::string BatchRuns::NewPath() {
  MutexLock lock(&mu_);
  return fmt::format("{}/pairs-{:06d}", dir_, next_++);
}

void BatchRuns::Add(PairRun run) {
  MutexLock lock(&mu_);
  runs_.push_back(std::move(run));
}

std::vector<PairRun> BatchRuns::Take() {
  MutexLock lock(&mu_);
  return std::exchange(runs_, {});
}

Status ReduceRuns(std::vector<PairRun>* runs, size_t target, size_t fan_in, BatchRuns* names) {
  target = std::max<size_t>(target, 1);
  fan_in = std::max<size_t>(fan_in, 2);
  while (runs->size() > target) {
    const size_t size = std::min(fan_in, (runs->size() + target - 1) / target);
    const size_t groups = (runs->size() + size - 1) / size;
    std::vector<PairRun> merged(groups);
    std::vector<Status> status(groups);
    tbb::parallel_for(size_t{0}, groups, [&](size_t g) {
      const size_t start = g * size, end = std::min(runs->size(), start + size);
      if (end - start == 1) {
        merged[g] = std::move((*runs)[start]);
        return;
      }
      std::vector<std::unique_ptr<PairStream>> group;
      for (size_t i = start; i < end; ++i) group.push_back(NewPairRunReader((*runs)[i]));
      PairRunWriter writer;
      Status s = writer.Open(names->NewPath(), &merged[g]);
      if (s.ok())
        s = MergePairStreams(std::move(group), [&](const PairRecord& r) { return writer.Add(r); });
      if (s.ok()) s = writer.Finish();
      if (s.ok()) {
        for (size_t i = start; i < end; ++i) ::unlink((*runs)[i].path.c_str());
      }
      status[g] = std::move(s);
    });
    for (const Status& s : status) SG_RETURN_IF_ERROR(s);
    runs->swap(merged);
  }
  return Status::OK();
}

std::unique_ptr<PairStream> NewPairRunReader(const PairRun& run, uint64_t begin, uint64_t end) {
  return std::make_unique<PairRunReader>(run, begin, end);
}

std::unique_ptr<PairStream> NewPairSpanStream(std::span<const PairRecord> records) {
  return std::make_unique<PairSpanStream>(records);
}

Status MergePairStreams(std::vector<std::unique_ptr<PairStream>> streams,
                        const std::function<Status(const PairRecord&)>& emit) {
  // Each stream is read a batch at a time into a buffer of its own (4 KiB:
  // all of them stay in the cache).
  constexpr size_t kBatch = 256;
  struct Source {
    PairRecord batch[kBatch];
    size_t next = 0, size = 0;
  };
  std::vector<Source> sources(streams.size());
  const auto next = [&](size_t i, PairRecord* r, bool* done) {
    Source& s = sources[i];
    if (s.next == s.size) {
      s.next = 0;
      SG_RETURN_IF_ERROR(streams[i]->Read(s.batch, kBatch, &s.size));
    }
    *done = s.size == 0;
    if (!*done) *r = s.batch[s.next++];
    return Status::OK();
  };
  PairRecord current{0, 0};
  bool have = false;
  Status emitted;
  SG_RETURN_IF_ERROR(MergeSorted<PairRecord>(
      streams.size(), next, [](const PairRecord& a, const PairRecord& b) { return a.key < b.key; },
      [&](const PairRecord& r) {
        if (have && r.key == current.key) {
          current.value += r.value;
          return true;
        }
        if (have) emitted = emit(current);
        current = r;
        have = true;
        return emitted.ok();
      }));
  SG_RETURN_IF_ERROR(emitted);
  return have ? emit(current) : Status::OK();
}

}  // namespace streamglove
