#include "cli/subword_flags.h"

#include <string>

namespace streamglove {

void AddSubwordFlags(CLI::App* app, SubwordOptions* options) {
  app->add_flag_function(
      "--subwords,!--no-subwords",
      [options](int64_t count) {
        options->chosen = true;
        options->enabled = count > 0;
      },
      "Character n-grams on the word side (fastText's scheme): every word's vector gains its "
      "n-grams', and OUT.model answers any word. Default: on for sgns on the CPU, off for glove");
  app->add_option("--minn", options->min_n, "Subwords: the shortest n-gram, in characters")
      ->capture_default_str();
  app->add_option("--maxn", options->max_n, "Subwords: the longest n-gram, in characters")
      ->capture_default_str();
  app->add_option("--buckets", options->buckets,
                  "Subwords: rows the n-grams are hashed into (0: 2,000,000, fastText's, or as "
                  "many as half of --memory holds)")
      ->capture_default_str();
}

}  // namespace streamglove
