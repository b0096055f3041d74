// Embeddings::Load: format detection, a parallel text parser and a binary
// reader, each reporting the first malformed line or byte offset.

#include "streamglove/embeddings.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "util/file.h"
#include "util/quoted.h"
#include "vectors/subword_model_file.h"

namespace streamglove {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// "V d": two decimal integers and nothing else.
bool ParseHeader(std::string_view line, uint64_t* words, uint64_t* dim) {
  while (!line.empty() && IsBlank(line.back())) line.remove_suffix(1);
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return false;
  const std::string_view a = line.substr(0, space), b = line.substr(space + 1);
  auto parse = [](std::string_view s, uint64_t* v) {
    if (s.empty()) return false;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && end == s.data() + s.size();
  };
  return parse(a, words) && parse(b, dim);
}

struct Line {
  std::string_view text;
  uint64_t number;  // 1-based line number in the file
};

// One text line "word v1 ... vd": the word into *word, values into out[0, dim).
Status ParseTextLine(const std::string& path, const Line& line, uint32_t dim, std::string* word,
                     double* out) {
  std::string_view rest = line.text;
  while (!rest.empty() && IsBlank(rest.back())) rest.remove_suffix(1);
  const size_t space = rest.find(' ');
  const auto where = [&] { return fmt::format("{}: line {}", path, line.number); };
  if (space == 0 || rest.empty())
    return Status::Corruption(fmt::format("{}: no word before the values", where()));
  *word = std::string(rest.substr(0, space == std::string_view::npos ? rest.size() : space));
  rest.remove_prefix(space == std::string_view::npos ? rest.size() : space);
  uint32_t k = 0;
  for (;;) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    if (rest.empty()) break;
    if (k == dim) break;
    double v = 0;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
    const size_t len = static_cast<size_t>(end - rest.data());
    if (ec != std::errc() || (len < rest.size() && *end != ' ' && *end != '\t')) {
      const std::string_view field = rest.substr(0, rest.find_first_of(" \t"));
      return Status::Corruption(fmt::format("{}: value {} of {} is not a number: {}", where(),
                                            k + 1, Quoted(*word), Quoted(field)));
    }
    if (!std::isfinite(v)) {
      return Status::Corruption(
          fmt::format("{}: value {} of {} is not finite", where(), k + 1, Quoted(*word)));
    }
    out[k++] = v;
    rest.remove_prefix(len);
  }
  if (k != dim || !rest.empty()) {
    uint64_t n = k;
    for (; !rest.empty(); ++n) {
      const size_t next = rest.find_first_of(" \t");
      rest.remove_prefix(next == std::string_view::npos ? rest.size() : next);
      while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    }
    return Status::Corruption(fmt::format("{}: {} has {} values; the file's vectors have {}",
                                          where(), Quoted(*word), n, dim));
  }
  return Status::OK();
}

// After a word2vec header: the first vector of a text file is a line of `dim`
// fields of number characters after the word; float32 bits almost never are.
bool LooksBinary(std::string_view body, uint64_t dim) {
  const size_t space = body.find(' ');
  if (space == std::string_view::npos) return false;
  std::string_view values = body.substr(space + 1);
  values = values.substr(0, values.find('\n'));
  const bool numeric = std::all_of(values.begin(), values.end(), [](char c) {
    return c != 0 && std::strchr("0123456789+-.eEnaifNAIF \t\r", c) != nullptr;
  });
  uint64_t fields = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    fields += !IsBlank(values[i]) && (i == 0 || IsBlank(values[i - 1]));
  }
  return !numeric || fields != dim;
}

}  // namespace

uint32_t Embeddings::Find(std::string_view word) const {
  const auto it = index_.find(word);
  return it == index_.end() ? kNotFound : it->second;
}

Status Embeddings::Load(const std::string& path) {
  *this = Embeddings();
  path_ = path;
  MappedFile file;
  SG_RETURN_IF_ERROR(file.Open(path));
  const std::string_view data = file.data();
  if (data.empty()) return Status::Corruption(fmt::format("{}: byte 0: empty vectors file", path));
  if (IsSubwordModel(data)) return LoadSubwordModel(data);

  const size_t first_end = std::min(data.find('\n'), data.size());
  uint64_t header_words = 0, header_dim = 0;
  const bool has_header = ParseHeader(data.substr(0, first_end), &header_words, &header_dim);
  if (has_header && (header_dim == 0 || header_dim > (1u << 20))) {
    return Status::Corruption(
        fmt::format("{}: line 1: vector size {} in the header is out of range", path, header_dim));
  }
  std::string_view body = has_header ? data.substr(std::min(first_end + 1, data.size())) : data;
  const uint64_t body_offset = data.size() - body.size();
  std::vector<uint64_t>
      locations;  // line numbers (text) or byte offsets (binary), for duplicate errors

  if (has_header && LooksBinary(body, header_dim)) {
    format_ = VectorsFormat::kWord2VecBinary;
    dim_ = static_cast<uint32_t>(header_dim);
    const size_t row_bytes = size_t{dim_} * sizeof(float);
    if (header_words > body.size() / (row_bytes + 2)) {
      return Status::Corruption(fmt::format(
          "{}: byte {}: the header promises {} vectors of {} floats; the file is {} bytes", path, 0,
          header_words, dim_, data.size()));
    }
    single_.resize(header_words * dim_);
    words_.reserve(header_words);
    size_t at = 0;
    for (uint64_t i = 0; i < header_words; ++i) {
      while (at < body.size() && (body[at] == '\n' || body[at] == '\r')) ++at;
      const size_t space = body.find(' ', at);
      const uint64_t word_offset = body_offset + at;
      if (space == std::string_view::npos || space + 1 + row_bytes > body.size()) {
        return Status::Corruption(
            fmt::format("{}: byte {}: truncated: vector {} of {} is incomplete", path, data.size(),
                        i + 1, header_words));
      }
      if (space == at)
        return Status::Corruption(fmt::format("{}: byte {}: empty word", path, word_offset));
      words_.emplace_back(body.substr(at, space - at));
      float* row = single_.data() + i * dim_;
      std::memcpy(row, body.data() + space + 1, row_bytes);
      for (uint32_t k = 0; k < dim_; ++k) {
        if (!std::isfinite(row[k])) {
          return Status::Corruption(fmt::format("{}: byte {}: value {} of {} is not finite", path,
                                                body_offset + space + 1 + k * sizeof(float), k + 1,
                                                Quoted(words_.back())));
        }
      }
      locations.push_back(word_offset);
      at = space + 1 + row_bytes;
    }
    while (at < body.size() && std::isspace(static_cast<unsigned char>(body[at]))) ++at;
    if (at != body.size()) {
      return Status::Corruption(
          fmt::format("{}: byte {}: data after the {} vectors the header announces", path,
                      body_offset + at, header_words));
    }
    return Finish(locations, /*lines=*/false);
  }

  // Text: find the lines, then parse them in parallel.
  format_ = has_header ? VectorsFormat::kWord2VecText : VectorsFormat::kGloveText;
  std::vector<Line> lines;
  uint64_t number = has_header ? 2 : 1;
  for (size_t at = 0; at < body.size(); ++number) {
    const size_t end = std::min(body.find('\n', at), body.size());
    lines.push_back({body.substr(at, end - at), number});
    at = end + 1;
  }
  while (!lines.empty() && std::all_of(lines.back().text.begin(), lines.back().text.end(), IsBlank))
    lines.pop_back();
  if (lines.empty()) return Status::Corruption(fmt::format("{}: no vectors", path));
  if (has_header) {
    dim_ = static_cast<uint32_t>(header_dim);
    if (lines.size() != header_words) {
      return Status::Corruption(
          fmt::format("{}: line 1: the header announces {} vectors; the file has {}", path,
                      header_words, lines.size()));
    }
  } else {
    std::string_view first = lines[0].text;
    while (!first.empty() && IsBlank(first.back())) first.remove_suffix(1);
    dim_ = static_cast<uint32_t>(std::count(first.begin(), first.end(), ' '));
    if (dim_ == 0)
      return Status::Corruption(fmt::format("{}: line 1: a word without values", path));
  }
  words_.resize(lines.size());
  precise_.resize(lines.size() * dim_);
  constexpr size_t kGrain = 1024;
  std::vector<Status> errors((lines.size() + kGrain - 1) / kGrain);
  tbb::parallel_for(size_t{0}, errors.size(), [&](size_t chunk) {
    const size_t end = std::min(lines.size(), (chunk + 1) * kGrain);
    for (size_t i = chunk * kGrain; i < end && errors[chunk].ok(); ++i) {
      errors[chunk] = ParseTextLine(path, lines[i], dim_, &words_[i], precise_.data() + i * dim_);
    }
  });
  for (Status& s : errors) SG_RETURN_IF_ERROR(s);
  for (const Line& l : lines) locations.push_back(l.number);
  return Finish(locations, /*lines=*/true);
}

Status Embeddings::LoadSubwordModel(std::string_view data) {
  SubwordModel model;
  SG_RETURN_IF_ERROR(ParseSubwordModel(path_, data, &model));
  format_ = VectorsFormat::kSubwordModel;
  dim_ = model.dim;
  words_ = std::move(model.words);
  single_ = std::move(model.vectors);
  subwords_ = model.options;
  ngram_buckets_ = std::move(model.buckets);
  ngram_rows_ = std::move(model.ngram_rows);
  return Finish(model.word_offsets, /*lines=*/false);
}

bool Embeddings::WordVector(std::string_view word, std::vector<float>* out) const {
  out->assign(dim_, 0.0f);
  const uint32_t row = Find(word);
  if (row != kNotFound) {
    for (uint32_t k = 0; k < dim_; ++k) (*out)[k] = static_cast<float>(value(row, k));
    return true;
  }
  if (!has_subwords()) return false;
  std::vector<uint32_t> buckets;
  AppendNgramBuckets(word, subwords_.min_n, subwords_.max_n, subwords_.buckets, &buckets);
  if (buckets.empty()) return false;
  for (uint32_t b : buckets) {
    const auto it = std::lower_bound(ngram_buckets_.begin(), ngram_buckets_.end(), b);
    if (it == ngram_buckets_.end() || *it != b) continue;
    const float* z = ngram_rows_.data() + size_t(it - ngram_buckets_.begin()) * dim_;
    for (uint32_t k = 0; k < dim_; ++k) (*out)[k] += z[k];
  }
  for (float& x : *out) x /= static_cast<float>(buckets.size());
  return true;
}

Status Embeddings::Finish(const std::vector<uint64_t>& locations, bool lines) {
  index_.reserve(words_.size());
  for (uint32_t i = 0; i < words_.size(); ++i) {
    const auto [it, added] = index_.emplace(words_[i], i);
    if (!added) {
      return Status::Corruption(fmt::format(
          "{}: {} {}: duplicate word {} (first at {} {})", path_, lines ? "line" : "byte",
          locations[i], Quoted(words_[i]), lines ? "line" : "byte", locations[it->second]));
    }
  }
  norms_.resize(words_.size());
  unit_.resize(words_.size() * size_t{dim_});
  tbb::parallel_for(size_t{0}, words_.size(), [&](size_t i) {
    double sum = 0;
    for (uint32_t k = 0; k < dim_; ++k) sum += value(i, k) * value(i, k);
    norms_[i] = std::sqrt(sum);
    const double scale = norms_[i] > 0 ? 1 / norms_[i] : 0;
    for (uint32_t k = 0; k < dim_; ++k)
      unit_[i * dim_ + k] = static_cast<float>(value(i, k) * scale);
  });
  return Status::OK();
}

}  // namespace streamglove
