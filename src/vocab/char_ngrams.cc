// The character n-grams of include/streamglove/subwords.h, written after
// fastText's Dictionary::computeSubwords.

#include <fmt/format.h>

#include "streamglove/subwords.h"

namespace streamglove {

namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Calls f(ngram) for each n-gram of the wrapped word "<word>", in fastText's
// order. The views point into a buffer that lives until f returns.
template <class F>
void ForEachNgram(std::string_view word, uint32_t min_n, uint32_t max_n, F f) {
  std::string wrapped;
  wrapped.reserve(word.size() + 2);
  wrapped.push_back('<');
  wrapped.append(word);
  wrapped.push_back('>');
  const size_t size = wrapped.size();
  for (size_t i = 0; i < size; ++i) {
    if (IsContinuationByte(wrapped[i])) continue;
    size_t j = i;
    for (uint32_t n = 1; j < size && n <= max_n; ++n) {
      ++j;
      while (j < size && IsContinuationByte(wrapped[j])) ++j;
      // fastText leaves out the boundary marks as 1-grams of their own.
      if (n >= min_n && !(n == 1 && (i == 0 || j == size)))
        f(std::string_view(wrapped).substr(i, j - i));
    }
  }
}

}  // namespace

Status ValidateSubwordOptions(const SubwordOptions& o) {
  if (o.chosen && !o.enabled) return Status::OK();
  if (o.min_n < 1 || o.min_n > o.max_n || o.max_n > kMaxSubwordN) {
    return Status::InvalidArgument(
        fmt::format("--minn {} --maxn {}: n-grams need 1 <= minn <= maxn <= {} (or --no-subwords)",
                    o.min_n, o.max_n, kMaxSubwordN));
  }
  if (o.buckets >= (uint32_t{1} << 31)) {
    return Status::InvalidArgument(
        fmt::format("--buckets {}: at most {}", o.buckets, (uint32_t{1} << 31) - 1));
  }
  return Status::OK();
}

uint32_t NgramHash(std::string_view ngram) {
  uint32_t h = 2166136261u;
  for (char c : ngram) {
    h ^= static_cast<uint32_t>(static_cast<int8_t>(c));
    h *= 16777619u;
  }
  return h;
}

std::vector<std::string> CharNgrams(std::string_view word, uint32_t min_n, uint32_t max_n) {
  std::vector<std::string> ngrams;
  ForEachNgram(word, min_n, max_n, [&](std::string_view g) { ngrams.emplace_back(g); });
  return ngrams;
}

void AppendNgramBuckets(std::string_view word, uint32_t min_n, uint32_t max_n,
                        uint32_t bucket_count, std::vector<uint32_t>* buckets) {
  ForEachNgram(word, min_n, max_n,
               [&](std::string_view g) { buckets->push_back(NgramHash(g) % bucket_count); });
}

}  // namespace streamglove
