// Test helper: the character n-grams of each word and their buckets, as
// include/streamglove/subwords.h computes them, one "ngram<TAB>bucket" line
// each, for char_ngrams_fasttext_test.sh to hold against fastText's.
//
//   print_char_ngrams MIN_N MAX_N BUCKETS WORD
#include <cstdio>
#include <cstdlib>
#include <string>

#include "streamglove/subwords.h"

int main(int argc, char** argv) {
  using namespace streamglove;
  if (argc != 5) {
    std::fprintf(stderr, "usage: print_char_ngrams MIN_N MAX_N BUCKETS WORD\n");
    return 2;
  }
  const auto min_n = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  const auto max_n = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  const auto buckets = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
  for (const std::string& g : CharNgrams(argv[4], min_n, max_n))
    std::printf("%s\t%u\n", g.c_str(), NgramHash(g) % buckets);
  return 0;
}
