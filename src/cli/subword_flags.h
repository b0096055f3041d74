// Flags of the commands that train (train, embed): the subwords of
// TrainOptions::subwords.
#ifndef STREAMGLOVE_CLI_SUBWORD_FLAGS_H_
#define STREAMGLOVE_CLI_SUBWORD_FLAGS_H_

#include <CLI/CLI.hpp>

#include "streamglove/subwords.h"

namespace streamglove {

// Registers --subwords/--no-subwords, --minn, --maxn and --buckets on `app`,
// filling *options (whose values are the defaults shown).
void AddSubwordFlags(CLI::App* app, SubwordOptions* options);

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_SUBWORD_FLAGS_H_
