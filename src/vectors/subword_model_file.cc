#include "vectors/subword_model_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "util/coding.h"
#include "util/crc32.h"
#include "util/file.h"
#include "util/quoted.h"

namespace streamglove {

namespace {

// Appends bytes to the file and to the running checksum.
class ChecksummedWriter {
 public:
  explicit ChecksummedWriter(AtomicFileWriter* out) : out_(out) {}
  Status Append(std::string_view bytes) {
    crc_ = ExtendCrc32(crc_, bytes.data(), bytes.size());
    return out_->Append(bytes);
  }
  Status AppendFloats(const float* v, size_t n) {
    return Append(std::string_view(reinterpret_cast<const char*>(v), n * sizeof(float)));
  }
  uint32_t crc() const { return crc_; }

 private:
  AtomicFileWriter* const out_;
  uint32_t crc_ = 0;
};

// The buckets some word of the first `count` of `vocab` uses, ascending
// (marked in a bitmap, a bit a bucket: the memory plan does not hold a list
// of every word's n-grams twice).
std::vector<uint32_t> UsedBuckets(const std::vector<VocabEntry>& vocab, uint32_t count,
                                  const SubwordOptions& o) {
  std::vector<bool> used(o.buckets);
  std::vector<uint32_t> word;
  for (uint32_t i = 0; i < count; ++i) {
    word.clear();
    AppendNgramBuckets(vocab[i].word, o.min_n, o.max_n, o.buckets, &word);
    for (uint32_t b : word) used[b] = true;
  }
  std::vector<uint32_t> buckets;
  for (uint32_t b = 0; b < o.buckets; ++b) {
    if (used[b]) buckets.push_back(b);
  }
  return buckets;
}

}  // namespace

Status WriteSubwordModel(const std::string& path, const std::vector<VocabEntry>& vocab,
                         const ParameterRows& rows, VectorsKind kind, float context_weight,
                         const NgramRows& ngrams) {
  const std::vector<uint32_t> used = UsedBuckets(vocab, rows.count, ngrams.options);
  AtomicFileWriter file;
  SG_RETURN_IF_ERROR(file.Open(path));
  ChecksummedWriter out(&file);
  std::string header(kSubwordModelMagic, sizeof(kSubwordModelMagic));
  for (uint32_t v : {rows.dim, ngrams.options.min_n, ngrams.options.max_n, ngrams.options.buckets})
    PutFixed32(&header, v);
  PutFixed64(&header, rows.count);
  PutFixed64(&header, used.size());
  SG_RETURN_IF_ERROR(out.Append(header));
  std::vector<float> v(rows.dim);
  std::string length;
  for (uint32_t i = 0; i < rows.count; ++i) {
    length.clear();
    PutFixed32(&length, static_cast<uint32_t>(vocab[i].word.size()));
    SG_RETURN_IF_ERROR(out.Append(length));
    SG_RETURN_IF_ERROR(out.Append(vocab[i].word));
    KindVector(rows, i, kind, context_weight, v.data());
    SG_RETURN_IF_ERROR(out.AppendFloats(v.data(), rows.dim));
  }
  std::string bucket;
  for (uint32_t b : used) {
    bucket.clear();
    PutFixed32(&bucket, b);
    SG_RETURN_IF_ERROR(out.Append(bucket));
    SG_RETURN_IF_ERROR(out.AppendFloats(ngrams.rows + size_t{b} * ngrams.stride, rows.dim));
  }
  std::string trailer;
  PutFixed64(&trailer, out.crc());  // CRC-32 (zlib's), in 8 bytes, as a checkpoint's
  SG_RETURN_IF_ERROR(file.Append(trailer));
  return file.Commit();
}

bool IsSubwordModel(std::string_view data) {
  return data.size() >= sizeof(kSubwordModelMagic) &&
         std::memcmp(data.data(), kSubwordModelMagic, sizeof(kSubwordModelMagic)) == 0;
}

namespace {

// Reads a model file front to back, each shortfall an error at its offset.
class ModelReader {
 public:
  ModelReader(const std::string& path, std::string_view data) : path_(path), data_(data) {}
  size_t at() const { return at_; }
  Status Need(size_t n, const char* what) {
    if (data_.size() - at_ >= n) return Status::OK();
    return Status::Corruption(
        fmt::format("{}: byte {}: truncated model file ({})", path_, data_.size(), what));
  }
  uint32_t U32() { return DecodeFixed32(Bytes(4)); }
  uint64_t U64() { return DecodeFixed64(Bytes(8)); }
  std::string_view Take(size_t n) {
    const std::string_view s = data_.substr(at_, n);
    at_ += n;
    return s;
  }
  // n floats; false (a Corruption in *s) when one is not finite.
  Status Floats(size_t n, float* out, const std::string& of) {
    SG_RETURN_IF_ERROR(Need(n * sizeof(float), of.c_str()));
    std::memcpy(out, data_.data() + at_, n * sizeof(float));
    for (size_t k = 0; k < n; ++k) {
      if (!std::isfinite(out[k])) {
        return Status::Corruption(fmt::format("{}: byte {}: value {} of {} is not finite", path_,
                                              at_ + k * sizeof(float), k + 1, of));
      }
    }
    at_ += n * sizeof(float);
    return Status::OK();
  }

 private:
  const unsigned char* Bytes(size_t n) {
    const auto* p = reinterpret_cast<const unsigned char*>(data_.data() + at_);
    at_ += n;
    return p;
  }
  const std::string& path_;
  const std::string_view data_;
  size_t at_ = 0;
};

}  // namespace

Status ParseSubwordModel(const std::string& path, std::string_view data, SubwordModel* model) {
  *model = SubwordModel();
  constexpr size_t kHeaderBytes = sizeof(kSubwordModelMagic) + 4 * 4 + 2 * 8;
  if (!IsSubwordModel(data)) {
    return Status::Corruption(fmt::format("{}: byte 0: not a streamglove model file", path));
  }
  if (data.size() < kHeaderBytes + 8) {
    return Status::Corruption(
        fmt::format("{}: byte {}: truncated model file (its header)", path, data.size()));
  }
  // The checksum first: nothing of a damaged file is read.
  const size_t body = data.size() - 8;
  const uint64_t stored = DecodeFixed64(reinterpret_cast<const unsigned char*>(data.data() + body));
  if (ExtendCrc32(0, data.data(), body) != stored) {
    return Status::Corruption(fmt::format(
        "{}: byte {}: checksum mismatch: the model file is damaged or truncated", path, body));
  }
  ModelReader in(path, data.substr(0, body));
  in.Take(sizeof(kSubwordModelMagic));
  model->dim = in.U32();
  model->options.chosen = model->options.enabled = true;
  model->options.min_n = in.U32();
  model->options.max_n = in.U32();
  model->options.buckets = in.U32();
  const uint64_t words = in.U64(), rows = in.U64();
  const uint32_t dim = model->dim;
  if (dim == 0 || dim > (1u << 20) || model->options.buckets == 0 ||
      !ValidateSubwordOptions(model->options).ok() || rows > model->options.buckets ||
      words > body || rows > body) {
    return Status::Corruption(fmt::format("{}: byte {}: a header out of range", path, 8));
  }
  model->words.reserve(words);
  model->vectors.resize(words * dim);
  for (uint64_t i = 0; i < words; ++i) {
    model->word_offsets.push_back(in.at());
    SG_RETURN_IF_ERROR(in.Need(4, "a word's length"));
    const uint32_t length = in.U32();
    SG_RETURN_IF_ERROR(in.Need(length, "a word"));
    model->words.emplace_back(in.Take(length));
    SG_RETURN_IF_ERROR(
        in.Floats(dim, model->vectors.data() + i * dim, Quoted(model->words.back())));
  }
  model->buckets.resize(rows);
  model->ngram_rows.resize(rows * dim);
  for (uint64_t r = 0; r < rows; ++r) {
    SG_RETURN_IF_ERROR(in.Need(4, "a bucket"));
    const size_t offset = in.at();
    model->buckets[r] = in.U32();
    if (model->buckets[r] >= model->options.buckets ||
        (r > 0 && model->buckets[r] <= model->buckets[r - 1])) {
      return Status::Corruption(fmt::format("{}: byte {}: bucket {} out of order or range", path,
                                            offset, model->buckets[r]));
    }
    SG_RETURN_IF_ERROR(in.Floats(dim, model->ngram_rows.data() + r * dim,
                                 fmt::format("bucket {}", model->buckets[r])));
  }
  if (in.at() != body) {
    return Status::Corruption(
        fmt::format("{}: byte {}: data after the rows the header announces", path, in.at()));
  }
  return Status::OK();
}

}  // namespace streamglove
