#include "store/pair_totals.h"

#include <fmt/format.h>
#include <rocksdb/sst_file_reader.h>

#include "store/rocks_message.h"
#include "util/coding.h"

namespace streamglove {

namespace {

// The property's name and value: varint(pairs), varint(units' low and high
// 64 bits), then the first and last keys, length-prefixed. On disk in every
// committed batch file: never change it.
constexpr char kTotalsProperty[] = "streamglove.batch-totals";

std::string EncodeFileTotals(const BatchFileTotals& t) {
  std::string out;
  PutVarint64(&out, t.pairs);
  PutVarint64(&out, static_cast<uint64_t>(t.units));
  PutVarint64(&out, static_cast<uint64_t>(t.units >> 64));
  PutLengthPrefixed(&out, t.first_key);
  PutLengthPrefixed(&out, t.last_key);
  return out;
}

bool DecodeFileTotals(std::string_view value, BatchFileTotals* t) {
  const char* p = value.data();
  const char* limit = p + value.size();
  uint64_t low = 0, high = 0;
  std::string_view first, last;
  if (!GetVarint64(&p, limit, &t->pairs) || !GetVarint64(&p, limit, &low) ||
      !GetVarint64(&p, limit, &high) || !GetLengthPrefixed(&p, limit, &first) ||
      !GetLengthPrefixed(&p, limit, &last) || p != limit) {
    return false;
  }
  t->units = __uint128_t{high} << 64 | low;
  t->first_key.assign(first);
  t->last_key.assign(last);
  return true;
}

class BatchTotalsCollector final : public rocksdb::TablePropertiesCollector {
 public:
  explicit BatchTotalsCollector(const BatchFileTotals* totals) : totals_(totals) {}
  rocksdb::Status AddUserKey(const rocksdb::Slice&, const rocksdb::Slice&, rocksdb::EntryType,
                             rocksdb::SequenceNumber, uint64_t) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status Finish(rocksdb::UserCollectedProperties* properties) override {
    properties->emplace(kTotalsProperty, EncodeFileTotals(*totals_));
    return rocksdb::Status::OK();
  }
  rocksdb::UserCollectedProperties GetReadableProperties() const override {
    return {{kTotalsProperty, fmt::format("{} pairs", totals_->pairs)}};
  }
  const char* Name() const override { return "streamglove.BatchTotalsCollector"; }

 private:
  const BatchFileTotals* const totals_;
};

class BatchTotalsCollectorFactory final : public rocksdb::TablePropertiesCollectorFactory {
 public:
  explicit BatchTotalsCollectorFactory(const BatchFileTotals* totals) : totals_(totals) {}
  rocksdb::TablePropertiesCollector* CreateTablePropertiesCollector(
      rocksdb::TablePropertiesCollectorFactory::Context) override {
    return new BatchTotalsCollector(totals_);
  }
  const char* Name() const override { return "streamglove.BatchTotalsCollectorFactory"; }

 private:
  const BatchFileTotals* const totals_;
};

}  // namespace

std::shared_ptr<rocksdb::TablePropertiesCollectorFactory> NewBatchTotalsCollectorFactory(
    const BatchFileTotals* totals) {
  return std::make_shared<BatchTotalsCollectorFactory>(totals);
}

Status ReadBatchFileTotals(const rocksdb::Options& options, const std::string& path,
                           BatchFileTotals* totals, bool* present) {
  *totals = BatchFileTotals();
  *present = false;
  rocksdb::SstFileReader reader(options);
  const rocksdb::Status s = reader.Open(path);
  if (!s.ok()) return Status::IOError(fmt::format("{}: {}", path, RocksMessage(s)));
  const auto& properties = reader.GetTableProperties()->user_collected_properties;
  const auto it = properties.find(kTotalsProperty);
  // The checksums vouch for the bytes: a value that does not decode is
  // another build's, and its totals are as unknown as a missing one's.
  *present = it != properties.end() && DecodeFileTotals(it->second, totals);
  if (!*present) *totals = BatchFileTotals();
  return Status::OK();
}

}  // namespace streamglove
