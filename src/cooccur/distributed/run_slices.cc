#include "cooccur/distributed/run_slices.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "util/coding.h"

namespace streamglove {

PairRun RunSlice(const PairRun& run, uint64_t begin, uint64_t end) {
  const auto key_above = [](uint64_t key, const PairRun::Group& g) { return key < g.key; };
  auto first = std::upper_bound(run.groups.begin(), run.groups.end(), begin, key_above);
  if (first != run.groups.begin()) --first;
  const auto last =
      std::lower_bound(first, run.groups.end(), end,
                       [](const PairRun::Group& g, uint64_t key) { return g.key < key; });
  PairRun slice{run.path, {first, last}, 0};
  if (!slice.groups.empty()) {
    slice.records =
        run.records - static_cast<uint64_t>(first - run.groups.begin()) * kPairRunGroupRecords;
  }
  return slice;
}

uint64_t SliceBytes(const PairRun& run, const PairRun& slice) {
  const PairRun::Group& last = slice.groups.back();
  const auto next =
      std::upper_bound(run.groups.begin(), run.groups.end(), last.key,
                       [](uint64_t key, const PairRun::Group& g) { return key < g.key; });
  std::error_code ec;
  const uint64_t end =
      next != run.groups.end() ? next->offset : std::filesystem::file_size(run.path, ec);
  return ec ? 0 : end - slice.groups.front().offset;
}

void EncodeSlices(const std::vector<PairRun>& slices, std::string* text) {
  PutVarint64(text, slices.size());
  for (const PairRun& slice : slices) {
    PutLengthPrefixed(text, slice.path);
    PutVarint64(text, slice.records);
    PutVarint64(text, slice.groups.size());
    for (const PairRun::Group& g : slice.groups) {
      PutVarint64(text, g.key);
      PutVarint64(text, g.offset);
    }
  }
}

Status DecodeSlices(const std::string& text, std::vector<PairRun>* slices) {
  const char* p = text.data();
  const char* const limit = p + text.size();
  uint64_t n = 0, groups = 0;
  bool ok = GetVarint64(&p, limit, &n);
  for (std::string_view path; ok && n > 0; --n) {
    PairRun slice;
    ok = GetLengthPrefixed(&p, limit, &path) && GetVarint64(&p, limit, &slice.records) &&
         GetVarint64(&p, limit, &groups);
    slice.path = path;
    for (PairRun::Group g; ok && groups > 0; --groups) {
      ok = GetVarint64(&p, limit, &g.key) && GetVarint64(&p, limit, &g.offset);
      slice.groups.push_back(g);
    }
    slices->push_back(std::move(slice));
  }
  if (!ok || p != limit)
    return Status::Corruption("distributed ingest: a malformed list of run slices from a rank");
  return Status::OK();
}

}  // namespace streamglove
