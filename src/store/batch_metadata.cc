// A batch's metadata changes as store records (store_impl.h).
#include <algorithm>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "store/store_impl.h"
#include "store/store_records.h"
#include "util/hash.h"

namespace streamglove {

uint64_t MetadataDigest(const BatchMetadata& metadata) {
  std::string bytes;
  if (metadata.progress != nullptr) EncodeProgress(*metadata.progress, &bytes);
  bytes += '\0';
  for (const InputRecord& record : metadata.finished) {
    bytes += InputKey(record.fingerprint);
    EncodeInputRecord(record, &bytes);
  }
  bytes += '\0';
  for (const std::string& fingerprint : metadata.replaced) bytes += fingerprint + '\0';
  const std::string_view counts(reinterpret_cast<const char*>(metadata.word_counts.data()),
                                metadata.word_counts.size() * sizeof(uint64_t));
  const uint64_t halves[2] = {HashBytes(bytes), HashBytes(counts)};
  return HashBytes(std::string_view(reinterpret_cast<const char*>(halves), sizeof(halves)));
}

Status StoreImpl::WriteMetadataRecords(const BatchMetadata& metadata, const RecordPut& put,
                                       const RecordErase& erase) const {
  // Metadata in key order, as an SST file requires: "M/input/..." <
  // "M/progress" < 'V' ids (big-endian, so in id order). An empty value
  // deletes the key (a superseded input record).
  std::vector<std::pair<std::string, std::string>> inputs;
  inputs.reserve(metadata.finished.size() + metadata.replaced.size());
  for (const InputRecord& record : metadata.finished) {
    std::string value;
    EncodeInputRecord(record, &value);
    inputs.emplace_back(InputKey(record.fingerprint), std::move(value));
  }
  for (const std::string& fingerprint : metadata.replaced)
    inputs.emplace_back(InputKey(fingerprint), std::string());
  std::sort(inputs.begin(), inputs.end());
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].first == inputs[i - 1].first) {
      return Status::InvalidArgument(fmt::format(
          "{}: input {} finished or replaced twice in one batch", dir_, inputs[i].first));
    }
  }
  if (metadata.word_counts.size() > vocab_.size()) {
    return Status::InvalidArgument(fmt::format("{}: word counts of {} ids for a vocabulary of {}",
                                               dir_, metadata.word_counts.size(), vocab_.size()));
  }
  for (const auto& [key, value] : inputs)
    SG_RETURN_IF_ERROR(value.empty() ? erase(key) : put(key, value));
  if (metadata.progress != nullptr) {
    std::string value;
    EncodeProgress(*metadata.progress, &value);
    SG_RETURN_IF_ERROR(put(kProgressKey, value));
  } else {
    SG_RETURN_IF_ERROR(erase(kProgressKey));
  }
  // A fixed vocabulary keeps the counts it was made with (BatchMetadata).
  if (config_.fixed_vocabulary) return Status::OK();
  std::string value;
  for (uint32_t id = 0; id < metadata.word_counts.size(); ++id) {
    if (metadata.word_counts[id] == 0) continue;
    value.clear();
    EncodeVocabValue(VocabEntry{vocab_[id].word, vocab_[id].count + metadata.word_counts[id]},
                     &value);
    SG_RETURN_IF_ERROR(put(VocabKey(id), value));
  }
  return Status::OK();
}

}  // namespace streamglove
