// Helpers shared by the store's tests: a small vocabulary, stores opened,
// initialized and committed to, their pairs and records read back.
#ifndef STREAMGLOVE_TESTS_STORE_STORE_FIXTURE_H_
#define STREAMGLOVE_TESTS_STORE_STORE_FIXTURE_H_

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "store/store.h"
#include "test_util.h"

namespace streamglove::test {

inline constexpr size_t kMemory = size_t{64} << 20;

using Pairs = std::map<std::pair<uint32_t, uint32_t>, uint64_t>;

inline std::vector<VocabEntry> TestVocab() {
  return {{"the", 40}, {"of", 30}, {"naïve", 2}, {"x\ty", 1}};
}

inline std::unique_ptr<Store> OpenOrDie(const std::string& dir, bool create) {
  std::unique_ptr<Store> store;
  const Status s = Store::Open(dir, kMemory, create, &store);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return store;
}

// Words "w0", "w1", ...
inline std::vector<VocabEntry> NumberedVocab(size_t n) {
  std::vector<VocabEntry> vocab;
  for (size_t i = 0; i < n; ++i) vocab.push_back({fmt::format("w{}", i), n - i});
  return vocab;
}

inline std::unique_ptr<Store> NewInitializedStore(
    const std::string& dir, const std::vector<VocabEntry>& vocab = TestVocab()) {
  std::unique_ptr<Store> store = OpenOrDie(dir, /*create=*/true);
  REQUIRE_FALSE(store->initialized());
  REQUIRE(store->Initialize(StoreConfig(), vocab).ok());
  REQUIRE(store->initialized());
  return store;
}

// Commits `pairs` as one batch of `ranges` key ranges, each an equal share
// of the row numbers (so some may be empty).
inline Status CommitPairs(Store* store, const Pairs& pairs,
                          const IngestProgress* progress = nullptr,
                          const std::vector<InputRecord>& finished = {}, size_t ranges = 1) {
  std::unique_ptr<Store::Batch> batch;
  SG_RETURN_IF_ERROR(store->NewBatch(ranges, &batch));
  const uint64_t rows_per_range = store->vocab().size() / ranges + 1;
  for (const auto& [rc, value] : pairs) {
    SG_RETURN_IF_ERROR(batch->Add(rc.first / rows_per_range, rc.first, rc.second, value));
  }
  BatchMetadata metadata;
  metadata.progress = progress;
  metadata.finished = finished;
  return store->CommitBatch(std::move(batch), metadata);
}

inline std::unique_ptr<Store::Batch> NewEmptyBatch(Store* store) {
  std::unique_ptr<Store::Batch> batch;
  REQUIRE(store->NewBatch(1, &batch).ok());
  return batch;
}

inline Pairs ReadPairs(Store* store) {
  Pairs pairs;
  std::pair<uint32_t, uint32_t> last;
  const Status s = store->ForEachPair([&](uint32_t row, uint32_t col, uint64_t value) {
    if (!pairs.empty() && std::make_pair(row, col) <= last) {
      return Status::Corruption(fmt::format("({}, {}) out of order", row, col));
    }
    last = {row, col};
    pairs[{row, col}] = value;
    return Status::OK();
  });
  INFO(s.ToString());
  REQUIRE(s.ok());
  return pairs;
}

inline std::string Render(const IngestProgress& p) {
  return fmt::format("{} {} {} {} {} [{}] {}", p.fingerprint, p.path, p.offset, p.continues_line,
                     p.starts_in_token, fmt::join(p.context, ","), p.tokens);
}

inline std::string Render(const std::vector<InputRecord>& inputs) {
  std::string out;
  for (const InputRecord& r : inputs) {
    out += fmt::format("{} {} {} {}\n", r.fingerprint, r.path, r.bytes, r.tokens);
  }
  return out;
}

// The store's progress record is `progress` and its input records `inputs`.
inline void CheckProgressAndInputs(Store* store, const IngestProgress& progress,
                                   const std::vector<InputRecord>& inputs) {
  IngestProgress got;
  bool found = false;
  REQUIRE(store->GetProgress(&got, &found).ok());
  REQUIRE(found);
  CHECK(Render(got) == Render(progress));
  std::vector<InputRecord> listed;
  REQUIRE(store->ListInputs(&listed).ok());
  CHECK(Render(listed) == Render(inputs));
}

inline size_t FilesIn(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

// Every file of `dir` (not its folders) with its bytes, but the lock files
// and RocksDB's info log: what a refused Open() must leave as it was.
inline std::map<std::string, std::string> StoreFiles(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.rfind("LOCK", 0) == 0 || name.rfind("LOG", 0) == 0) continue;
    files[name] = ReadFile(e.path().string());
  }
  return files;
}

// The name of the MANIFEST that DIR/CURRENT names ("MANIFEST-000005").
inline std::string CurrentManifest(const std::string& dir) {
  std::string current = ReadFile(dir + "/CURRENT");
  while (!current.empty() && current.back() == '\n') current.pop_back();
  return current;
}

// Flips a byte in one of the store's table files.
inline void FlipByteInATable(const std::string& dir) {
  std::string sst;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".sst") sst = e.path().string();
  }
  REQUIRE_FALSE(sst.empty());
  std::string bytes = ReadFile(sst);
  bytes[bytes.size() / 4] ^= 0x5a;
  WriteFile(sst, bytes);
}

}  // namespace streamglove::test

#endif  // STREAMGLOVE_TESTS_STORE_STORE_FIXTURE_H_
