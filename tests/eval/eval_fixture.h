// Helpers shared by the evaluation's tests: vectors loaded or the test
// stops, and a toy set whose analogies are known.
#ifndef STREAMGLOVE_TESTS_EVAL_EVAL_FIXTURE_H_
#define STREAMGLOVE_TESTS_EVAL_EVAL_FIXTURE_H_

#include <string>

#include <catch2/catch.hpp>

#include "streamglove/embeddings.h"

namespace streamglove::test {

inline Embeddings Load(const std::string& path) {
  Embeddings e;
  const Status s = e.Load(path);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return e;
}

// Vectors whose analogies are known: a "royal" and a "female" direction, and
// distractors.
inline const char* kToyVectors =
    "man 1 0 0 0.1\n"
    "woman 1 1 0 0.1\n"
    "king 1 0 1 0.1\n"
    "queen 1 1 1 0.1\n"
    "boy 0.9 0 0 -0.2\n"
    "girl 0.9 1 0 -0.2\n"
    "prince 0.9 0 1 -0.3\n"
    "princess 0.9 1 1 -0.3\n"
    "Queen 1 1 1 0.12\n"
    "apple 0 0 0 5\n";

}  // namespace streamglove::test

#endif  // STREAMGLOVE_TESTS_EVAL_EVAL_FIXTURE_H_
