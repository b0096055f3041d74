// Helpers for the libFuzzer targets: the readers under test take paths, so
// each input is written to a per-process temporary file first.
#ifndef STREAMGLOVE_TESTS_FUZZ_FUZZ_INPUT_H_
#define STREAMGLOVE_TESTS_FUZZ_FUZZ_INPUT_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace streamglove::fuzz {

// Writes data to a file named for this process and `suffix` (which picks
// the reader's format, e.g. ".zst" or ".jsonl") and returns its path.
inline std::string WriteInput(const uint8_t* data, size_t size, const std::string& suffix) {
  const std::string path = "/tmp/sg-fuzz-" + std::to_string(::getpid()) + suffix;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) __builtin_trap();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) __builtin_trap();
  std::fclose(f);
  return path;
}

}  // namespace streamglove::fuzz

#endif  // STREAMGLOVE_TESTS_FUZZ_FUZZ_INPUT_H_
