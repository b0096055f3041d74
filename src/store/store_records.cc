#include "store/store_records.h"

#include <bit>
#include <charconv>

#include "util/coding.h"

namespace streamglove {

namespace {

// Config flag bits (on disk: never change).
constexpr uint64_t kConfigSymmetric = 1;
constexpr uint64_t kConfigDistanceWeighting = 2;
constexpr uint64_t kConfigLowercase = 4;
constexpr uint64_t kConfigLinearWeighting = 8;  // (W - d + 1) / W; without it or 2, 1
// Subsampled before windowing: the threshold t follows the other fields, as
// the varint of its IEEE 754 bits.
constexpr uint64_t kConfigSubsampled = 16;
// Version 2: the vocabulary was fixed at creation (out-of-vocabulary tokens
// dropped); without it the store grows. Version 1 stores are all fixed.
constexpr uint64_t kConfigFixedVocabulary = 32;
// Counted with a phrase list joining tokens (streamglove/phrases.h): its
// fingerprint follows the other fields, length-prefixed. A build older
// than phrases refuses such a store (an unknown flag).
constexpr uint64_t kConfigPhrases = 64;
// The store keeps "W/totals" (StoreConfig::keeps_totals; version 2 on):
// builds before it refuse the store.
constexpr uint64_t kConfigKeepsTotals = 128;
constexpr uint64_t kConfigFlags = kConfigSymmetric | kConfigDistanceWeighting | kConfigLowercase |
                                  kConfigLinearWeighting | kConfigSubsampled |
                                  kConfigFixedVocabulary | kConfigPhrases | kConfigKeepsTotals;

// Input record flag bits (version 2; on disk: never change).
constexpr uint64_t kInputEndsAtDocumentEnd = 1;

// Progress flag bits (on disk: never change).
constexpr uint64_t kProgressContinuesLine = 1;
constexpr uint64_t kProgressStartsInToken = 2;
constexpr uint64_t kProgressFlags = kProgressContinuesLine | kProgressStartsInToken;

// Totals flag bits (on disk: never change).
constexpr uint64_t kTotalsPairsExact = 1;

constexpr size_t kMagicSize = sizeof(kConfigMagic) - 1;

// A cursor over one record; every Get fails once anything has failed.
class Reader {
 public:
  explicit Reader(std::string_view data) : p_(data.data()), limit_(data.data() + data.size()) {}

  bool Varint(uint64_t* v) { return GetVarint64(&p_, limit_, v); }
  bool Varint32(uint32_t* v) {
    uint64_t w = 0;
    if (!Varint(&w) || w > UINT32_MAX) return false;
    *v = static_cast<uint32_t>(w);
    return true;
  }
  bool LengthPrefixed(std::string* s) {
    std::string_view v;
    if (!GetLengthPrefixed(&p_, limit_, &v)) return false;
    s->assign(v);
    return true;
  }
  bool Skip(size_t n) {
    if (n > Remaining()) return false;
    p_ += n;
    return true;
  }
  size_t Remaining() const { return static_cast<size_t>(limit_ - p_); }
  bool AtEnd() const { return p_ == limit_; }

 private:
  const char* p_;
  const char* limit_;
};

void PutFixed32BigEndian(std::string* dst, uint32_t v) {
  const char buf[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                       static_cast<char>(v >> 8), static_cast<char>(v)};
  dst->append(buf, sizeof(buf));
}

}  // namespace

std::string InputKey(std::string_view fingerprint) {
  std::string key(kInputKeyPrefix);
  key.append(fingerprint);
  return key;
}

std::string VocabKey(uint32_t id) {
  std::string key(1, kVocabKeyPrefix);
  PutFixed32BigEndian(&key, id);
  return key;
}

bool DecodeVocabKey(std::string_view key, uint32_t* id) {
  if (key.size() != 5 || key[0] != kVocabKeyPrefix) return false;
  const auto* u = reinterpret_cast<const unsigned char*>(key.data() + 1);
  *id = (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
  return true;
}

void EncodeConfig(const StoreConfig& config, std::string* out) {
  out->append(kConfigMagic, kMagicSize);
  PutVarint64(out, config.format_version);
  PutVarint64(out, config.window);
  PutVarint64(
      out,
      (config.symmetric ? kConfigSymmetric : 0) |
          (config.weighting == DistanceWeighting::kHarmonic ? kConfigDistanceWeighting : 0) |
          (config.weighting == DistanceWeighting::kLinear ? kConfigLinearWeighting : 0) |
          (config.lowercase ? kConfigLowercase : 0) |
          (config.subsample > 0 ? kConfigSubsampled : 0) |
          (config.fixed_vocabulary && config.format_version >= 2 ? kConfigFixedVocabulary : 0) |
          (config.phrases.empty() ? 0 : kConfigPhrases) |
          (config.keeps_totals && config.format_version >= 2 ? kConfigKeepsTotals : 0));
  PutVarint64(out, config.scale);
  PutLengthPrefixed(out, config.tokenizer);
  PutLengthPrefixed(out, config.json_field);
  if (config.subsample > 0) PutVarint64(out, std::bit_cast<uint64_t>(config.subsample));
  if (config.format_version >= 2) {
    PutVarint64(out, config.min_count);
    PutVarint64(out, config.max_vocab);
  }
  if (!config.phrases.empty()) PutLengthPrefixed(out, config.phrases);
}

bool DecodeConfigVersion(std::string_view value, uint32_t* format_version) {
  if (value.substr(0, kMagicSize) != std::string_view(kConfigMagic, kMagicSize)) return false;
  Reader r(value.substr(kMagicSize));
  return r.Varint32(format_version);
}

bool DecodeConfig(std::string_view value, StoreConfig* config) {
  Reader r(value);
  StoreConfig c;
  uint64_t flags = 0;
  if (!r.Skip(kMagicSize) || !r.Varint32(&c.format_version) || !r.Varint32(&c.window) ||
      !r.Varint(&flags) || (flags & ~kConfigFlags) != 0 || !r.Varint(&c.scale) ||
      !r.LengthPrefixed(&c.tokenizer) || !r.LengthPrefixed(&c.json_field) ||
      ((flags & kConfigDistanceWeighting) != 0 && (flags & kConfigLinearWeighting) != 0)) {
    return false;
  }
  if ((flags & kConfigSubsampled) != 0) {
    uint64_t bits = 0;
    if (!r.Varint(&bits)) return false;
    c.subsample = std::bit_cast<double>(bits);
    if (!(c.subsample > 0 && c.subsample < 1)) return false;
  }
  if (c.format_version == 1) {
    // Version 1 fixed the vocabulary at creation, already cut.
    if ((flags & (kConfigFixedVocabulary | kConfigKeepsTotals)) != 0) return false;
    flags |= kConfigFixedVocabulary;
    c.min_count = 1;
    c.max_vocab = 0;
  } else if (!r.Varint(&c.min_count) || !r.Varint(&c.max_vocab) || c.min_count == 0) {
    return false;
  }
  if ((flags & kConfigPhrases) != 0 && (!r.LengthPrefixed(&c.phrases) || c.phrases.empty()))
    return false;
  if (!r.AtEnd()) return false;
  c.fixed_vocabulary = (flags & kConfigFixedVocabulary) != 0;
  c.symmetric = (flags & kConfigSymmetric) != 0;
  c.weighting = (flags & kConfigDistanceWeighting) != 0 ? DistanceWeighting::kHarmonic
                : (flags & kConfigLinearWeighting) != 0 ? DistanceWeighting::kLinear
                                                        : DistanceWeighting::kNone;
  c.lowercase = (flags & kConfigLowercase) != 0;
  c.keeps_totals = (flags & kConfigKeepsTotals) != 0;
  *config = std::move(c);
  return true;
}

void EncodeInputRecord(const InputRecord& record, std::string* out) {
  PutLengthPrefixed(out, record.path);
  PutVarint64(out, record.bytes);
  PutVarint64(out, record.tokens);
  PutVarint64(out, record.ends_at_document_end ? kInputEndsAtDocumentEnd : 0);
}

bool DecodeInputRecord(std::string_view fingerprint, std::string_view value, InputRecord* record) {
  Reader r(value);
  InputRecord rec;
  rec.fingerprint = fingerprint;
  if (!r.LengthPrefixed(&rec.path) || !r.Varint(&rec.bytes) || !r.Varint(&rec.tokens)) {
    return false;
  }
  // Version 1 records end here: whether they may grow is unknown.
  uint64_t flags = 0;
  if (!r.AtEnd() && (!r.Varint(&flags) || (flags & ~kInputEndsAtDocumentEnd) != 0 || !r.AtEnd()))
    return false;
  rec.ends_at_document_end = (flags & kInputEndsAtDocumentEnd) != 0;
  *record = std::move(rec);
  return true;
}

void EncodeProgress(const IngestProgress& progress, std::string* out) {
  PutLengthPrefixed(out, progress.fingerprint);
  PutLengthPrefixed(out, progress.path);
  PutVarint64(out, progress.offset);
  PutVarint64(out, (progress.continues_line ? kProgressContinuesLine : 0) |
                       (progress.starts_in_token ? kProgressStartsInToken : 0));
  PutVarint64(out, progress.context.size());
  for (uint32_t id : progress.context) PutVarint64(out, id);
  PutVarint64(out, progress.tokens);
  PutLengthPrefixed(out, progress.replaces);
}

bool DecodeProgress(std::string_view value, IngestProgress* progress) {
  Reader r(value);
  IngestProgress p;
  uint64_t flags = 0, n = 0;
  if (!r.LengthPrefixed(&p.fingerprint) || !r.LengthPrefixed(&p.path) || !r.Varint(&p.offset) ||
      !r.Varint(&flags) || (flags & ~kProgressFlags) != 0 || !r.Varint(&n) ||
      n > r.Remaining()) {  // every id takes at least one byte
    return false;
  }
  p.continues_line = (flags & kProgressContinuesLine) != 0;
  p.starts_in_token = (flags & kProgressStartsInToken) != 0;
  p.context.resize(n);
  for (uint32_t& id : p.context) {
    if (!r.Varint32(&id)) return false;
  }
  if (!r.Varint(&p.tokens)) return false;
  // Version 1 records end here.
  if (!r.AtEnd() && (!r.LengthPrefixed(&p.replaces) || !r.AtEnd())) return false;
  *progress = std::move(p);
  return true;
}

std::string EncodeWordsHeld(const std::vector<std::string>& keys) {
  std::string out;
  PutVarint64(&out, keys.size());
  for (const std::string& k : keys) PutLengthPrefixed(&out, k);
  return out;
}

bool DecodeWordsHeld(std::string_view value, std::vector<std::string>* keys) {
  Reader r(value);
  uint64_t n = 0;
  if (!r.Varint(&n) || n > value.size()) return false;
  std::vector<std::string> out(n);
  for (std::string& k : out) {
    if (!r.LengthPrefixed(&k)) return false;
  }
  if (!r.AtEnd()) return false;
  *keys = std::move(out);
  return true;
}

std::string EncodeAddition(uint64_t first_id, uint64_t words) {
  std::string out;
  PutVarint64(&out, first_id);
  PutVarint64(&out, words);
  return out;
}

bool DecodeAddition(std::string_view value, uint64_t* first_id, uint64_t* words) {
  Reader r(value);
  return r.Varint(first_id) && r.Varint(words) && r.AtEnd();
}

std::string EncodeTotals(const PairTotals& totals) {
  std::string out;
  PutVarint64(&out, totals.pairs);
  PutVarint64(&out, totals.pairs_exact ? kTotalsPairsExact : 0);
  PutVarint64(&out, static_cast<uint64_t>(totals.units));
  PutVarint64(&out, static_cast<uint64_t>(totals.units >> 64));
  return out;
}

bool DecodeTotals(std::string_view value, PairTotals* totals) {
  Reader r(value);
  uint64_t flags = 0, low = 0, high = 0;
  if (!r.Varint(&totals->pairs) || !r.Varint(&flags) || (flags & ~kTotalsPairsExact) != 0 ||
      !r.Varint(&low) || !r.Varint(&high) || !r.AtEnd()) {
    return false;
  }
  totals->pairs_exact = (flags & kTotalsPairsExact) != 0;
  totals->units = __uint128_t{high} << 64 | low;
  return true;
}

void EncodeVocabValue(const VocabEntry& entry, std::string* out) {
  out->append(entry.word);
  out->push_back('\t');
  out->append(std::to_string(entry.count));
}

bool DecodeVocabValue(std::string_view value, VocabEntry* entry) {
  const size_t tab = value.rfind('\t');
  if (tab == std::string_view::npos || tab == 0) return false;
  const std::string_view number = value.substr(tab + 1);
  uint64_t count = 0;
  const auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), count);
  if (ec != std::errc() || p != number.data() + number.size() || number.empty()) return false;
  entry->word.assign(value.data(), tab);
  entry->count = count;
  return true;
}

}  // namespace streamglove
