// TrainFixture: a store of a small Zipfian corpus, and training options
// small enough for a unit test, shared by the training tests.
#ifndef STREAMGLOVE_TESTS_TRAIN_TRAIN_FIXTURE_H_
#define STREAMGLOVE_TESTS_TRAIN_TRAIN_FIXTURE_H_

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "streamglove/corpus_reader.h"
#include "streamglove/ingest.h"
#include "streamglove/train.h"
#include "test_util.h"
#include "util/file.h"

namespace streamglove::test {

// A store of a small Zipfian corpus.
struct TrainFixture {
  TestDir dir{"sg-train-"};
  std::string store;

  TrainFixture() {
    std::mt19937_64 rng(17);
    std::string text;
    for (int i = 0; i < 60000; ++i) {
      text += fmt::format(
          "w{}", static_cast<int>(std::pow(800.0, static_cast<double>(rng() % 100000) / 1e5)));
      text += rng() % 30 == 0 ? "\n" : " ";
    }
    WriteFile(dir.path() + "/corpus.txt", text);
    store = IngestCorpus("store", IngestOptions());
  }

  // The corpus counted into a new store DIR/name with `o`'s window,
  // weighting and subsampling (min-count 2, 128 MiB); its path.
  std::string IngestCorpus(const std::string& name, IngestOptions o) const {
    std::vector<InputFile> inputs;
    REQUIRE(ExpandInputs({dir.path() + "/corpus.txt"}, InputFormat::kAuto, &inputs).ok());
    o.min_count = 2;
    o.memory_bytes = 128 << 20;
    o.progress = false;
    const std::string path = dir.path() + "/" + name;
    IngestStats stats;
    REQUIRE(Ingest(path, inputs, CorpusOptions(), o, &stats).ok());
    return path;
  }

  TrainOptions Options() const {
    TrainOptions o;
    o.dim = 16;
    o.epochs = 4;
    o.x_max = 10;
    o.threads = 1;
    o.seed = 5;
    o.memory_bytes = 64 << 20;
    o.progress = false;
    return o;
  }

  std::string Run(const std::string& name, const TrainOptions& o, TrainStats* stats) const {
    const std::string out = dir.path() + "/" + name;
    const Status s = Train(store, out, o, stats);
    INFO(s.ToString());
    REQUIRE(s.ok());
    return ReadFile(out);
  }
};

}  // namespace streamglove::test

#endif  // STREAMGLOVE_TESTS_TRAIN_TRAIN_FIXTURE_H_
