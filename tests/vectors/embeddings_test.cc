#include "streamglove/embeddings.h"

#include <cmath>
#include <cstring>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

std::string Binary(const std::vector<std::pair<std::string, std::vector<float>>>& rows, size_t dim,
                   bool newline = true) {
  std::string out = fmt::format("{} {}\n", rows.size(), dim);
  for (const auto& [word, values] : rows) {
    out += word + " ";
    out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    if (newline) out += "\n";
  }
  return out;
}

// The message of a failed Load, which must fail.
std::string LoadError(const std::string& path) {
  Embeddings e;
  const Status s = e.Load(path);
  REQUIRE_FALSE(s.ok());
  return s.message();
}

}  // namespace

TEST_CASE("The three vectors formats load to the same words and values", "[eval]") {
  TestDir d("sg-vectors-");
  const std::string glove = d.Write("a.glove", "the 0.5 -1.25 2\nof 1e-3 0 -0\r\ncat 3 4 0 \n");
  const std::string text = d.Write("a.w2v.txt", "3 3\nthe 0.5 -1.25 2\nof 1e-3 0 -0\ncat 3 4 0");
  const std::string binary = d.Write(
      "a.w2v.bin",
      Binary({{"the", {0.5f, -1.25f, 2}}, {"of", {1e-3f, 0, -0.0f}}, {"cat", {3, 4, 0}}}, 3));
  const std::string binary_packed =
      d.Write("b.w2v.bin",
              Binary({{"the", {0.5f, -1.25f, 2}}, {"of", {1e-3f, 0, -0.0f}}, {"cat", {3, 4, 0}}}, 3,
                     false));
  for (const auto& [path, format] : std::vector<std::pair<std::string, VectorsFormat>>{
           {glove, VectorsFormat::kGloveText},
           {text, VectorsFormat::kWord2VecText},
           {binary, VectorsFormat::kWord2VecBinary},
           {binary_packed, VectorsFormat::kWord2VecBinary}}) {
    INFO(path);
    Embeddings e;
    const Status s = e.Load(path);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(e.format() == format);
    REQUIRE(e.size() == 3);
    REQUIRE(e.dim() == 3);
    CHECK(e.word(0) == "the");
    CHECK(e.Find("cat") == 2);
    CHECK(e.Find("dog") == Embeddings::kNotFound);
    CHECK(e.value(0, 1) == -1.25);
    CHECK(std::abs(e.value(1, 0) - 1e-3) < 1e-9);
    CHECK(e.norm(2) == 5.0);
    CHECK(e.unit(2)[0] == Approx(0.6f));
    CHECK(e.unit(2)[1] == Approx(0.8f));
  }
}

TEST_CASE("A GloVe file with one value per line is not mistaken for a header", "[eval]") {
  TestDir d("sg-vectors-");
  Embeddings e;
  REQUIRE(e.Load(d.Write("one.txt", "the 0.5\nof 2\n")).ok());
  CHECK(e.format() == VectorsFormat::kGloveText);
  CHECK(e.size() == 2);
  CHECK(e.dim() == 1);
}

TEST_CASE("Malformed vectors files name the file and the line or byte offset", "[eval]") {
  TestDir d("sg-vectors-");
  std::string path = d.Write("dims.txt", "the 1 2 3\nof 1 2\ncat 1 2 3\n");
  CHECK(LoadError(path) == path + ": line 2: 'of' has 2 values; the file's vectors have 3");
  path = d.Write("extra.txt", "2 2\nthe 1 2\nof 1 2 3\n");
  CHECK(LoadError(path) == path + ": line 3: 'of' has 3 values; the file's vectors have 2");
  path = d.Write("nan.txt", "the 1 2\nof nan 2\n");
  CHECK(LoadError(path) == path + ": line 2: value 1 of 'of' is not finite");
  path = d.Write("inf.txt", "the 1 2\nof 1 -inf\n");
  CHECK(LoadError(path) == path + ": line 2: value 2 of 'of' is not finite");
  path = d.Write("word.txt", "the 1 2\nof 1 x2\n");
  CHECK(LoadError(path) == path + ": line 2: value 2 of 'of' is not a number: 'x2'");
  path = d.Write("dup.txt", "the 1 2\nof 1 2\nthe 3 4\n");
  CHECK(LoadError(path) == path + ": line 3: duplicate word 'the' (first at line 1)");
  path = d.Write("count.txt", "3 2\nthe 1 2\nof 1 2\n");
  CHECK(LoadError(path) == path + ": line 1: the header announces 3 vectors; the file has 2");
  path = d.Write("empty.txt", "");
  CHECK(LoadError(path) == path + ": byte 0: empty vectors file");
  CHECK(LoadError(d.path() + "/missing.txt").find("missing.txt: No such file") !=
        std::string::npos);

  const std::string full = Binary({{"the", {1, 2}}, {"of", {3, 4}}}, 2);
  path = d.Write("truncated.bin", full.substr(0, full.size() - 3));
  CHECK(LoadError(path) ==
        fmt::format("{}: byte {}: truncated: vector 2 of 2 is incomplete", path, full.size() - 3));
  const float nan = std::nanf("");
  path = d.Write("nan.bin", Binary({{"the", {1, 2}}, {"of", {3, nan}}}, 2));
  // "2 2\n" (4) + "the " (4) + 8 + "\n" (1) + "of " (3) + first float (4)
  CHECK(LoadError(path) ==
        fmt::format("{}: byte {}: value 2 of 'of' is not finite", path, 4 + 4 + 8 + 1 + 3 + 4));
  path = d.Write("dup.bin", Binary({{"the", {1, 2}}, {"the", {3, 4}}}, 2));
  CHECK(LoadError(path) == path + ": byte 17: duplicate word 'the' (first at byte 4)");
  path = d.Write("trailing.bin", Binary({{"the", {1, 2}}}, 2) + "junk");
  CHECK(LoadError(path) == path + ": byte 17: data after the 1 vectors the header announces");
}
