#include "train/checkpoint.h"

#include <cstring>

#include <catch2/catch.hpp>

#include "test_util.h"
#include "util/coding.h"
#include "util/crc32.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

struct CheckpointFixture {
  TestDir dir{"sg-ckpt-"};
  std::string path;
  LargeArray<float> a{48}, b{48};

  CheckpointFixture() {
    path = dir.path() + "/v.txt.checkpoint";
    for (size_t i = 0; i < a.size(); ++i) {
      a.data()[i] = static_cast<float>(i) * 0.25f - 3;
      b.data()[i] = 1.0f / static_cast<float>(i + 1);
    }
    REQUIRE(SaveCheckpoint(path, 3, 15, 7, kStamp, {&a, &b}).ok());
  }

  static constexpr CheckpointStamp kStamp{0xfeedbeefcafe1234ull, 0x1122334455667788ull};

  Status Load(uint32_t vocab = 3, uint32_t dim = 15, uint64_t hash = kStamp.options_hash,
              size_t arrays = 2, uint64_t words = kStamp.words_hash) {
    LargeArray<float> x(48), y(48);
    std::vector<LargeArray<float>*> into = {&x, &y};
    into.resize(arrays, &y);
    uint32_t epochs = 0;
    Status s = LoadCheckpoint(path, vocab, dim, CheckpointStamp{hash, words}, into, &epochs);
    if (s.ok()) {
      CHECK(epochs == 7);
      CHECK(std::memcmp(x.data(), a.data(), 48 * sizeof(float)) == 0);
      CHECK(std::memcmp(y.data(), b.data(), 48 * sizeof(float)) == 0);
    }
    return s;
  }
};

}  // namespace

TEST_CASE("A checkpoint reads back what was saved, its header little-endian",
          "[train][checkpoint]") {
  CheckpointFixture f;
  REQUIRE(f.Load().ok());
  const std::string bytes = ReadFile(f.path);
  CHECK(bytes.size() == 8 + 5 * 8 + 2 * 48 * 4 + 8);
  CHECK(bytes.substr(0, 8) == "SGCKPT03");
  CHECK(bytes.substr(8, 8) == std::string("\x03\0\0\0\0\0\0\0", 8));                 // vocab
  CHECK(bytes.substr(16, 8) == std::string("\x0f\0\0\0\0\0\0\0", 8));                // dim
  CHECK(bytes.substr(24, 8) == std::string("\x07\0\0\0\0\0\0\0", 8));                // epochs
  CHECK(bytes.substr(32, 8) == std::string("\x34\x12\xfe\xca\xef\xbe\xed\xfe", 8));  // hash
  CHECK(bytes.substr(40, 8) == std::string("\x88\x77\x66\x55\x44\x33\x22\x11", 8));  // words
}

TEST_CASE("A words hash depends on every word and their order", "[train][checkpoint]") {
  const auto hash = [](std::initializer_list<const char*> words) {
    WordsHash h;
    for (const char* w : words) h.Add(w);
    return h.value();
  };
  CHECK(hash({"the", "cat"}) == hash({"the", "cat"}));
  CHECK(hash({"the", "cat"}) != hash({"cat", "the"}));
  CHECK(hash({"ab", "c"}) != hash({"a", "bc"}));
  CHECK(hash({"the", "cat"}) != hash({"the", "cat", "sat"}));
  CHECK(hash({"the", "cat"}) != hash({"the", "cap"}));
  CHECK(hash({""}) != hash({}));
}

TEST_CASE("A checkpoint with any one byte flipped is refused as damaged", "[train][checkpoint]") {
  CheckpointFixture f;
  const std::string good = ReadFile(f.path);
  // Every byte past the magic (which is its own error): the header, both
  // arrays and the checksum.
  for (size_t at = 8; at < good.size(); ++at) {
    for (unsigned char flip : {0x01, 0x80}) {
      INFO("byte " << at << " ^ " << int{flip});
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ flip);
      WriteFile(f.path, bad);
      const Status s = f.Load();
      REQUIRE_FALSE(s.ok());
      CHECK(s.message().find(f.path) != std::string::npos);
      CHECK(s.message().find("checksum mismatch: the checkpoint is damaged") != std::string::npos);
    }
  }
  std::string no_magic = good;
  no_magic[0] = 'X';
  WriteFile(f.path, no_magic);
  CHECK(f.Load().message().find("not a streamglove checkpoint") != std::string::npos);
}

TEST_CASE("A truncated or extended checkpoint is refused and an intact one of another run says so",
          "[train][checkpoint]") {
  CheckpointFixture f;
  const std::string good = ReadFile(f.path);
  for (size_t keep : {size_t{0}, size_t{5}, size_t{39}, size_t{40}, size_t{47}, size_t{48},
                      size_t{200}, good.size() - 1}) {
    INFO("kept " << keep);
    WriteFile(f.path, good.substr(0, keep));
    const Status s = f.Load();
    REQUIRE_FALSE(s.ok());
    CHECK(s.message().find(f.path) != std::string::npos);
  }
  WriteFile(f.path, good + "x");
  CHECK_FALSE(f.Load().ok());
  WriteFile(f.path, good);
  CHECK(f.Load(4).message().find("checkpoint of 3 words x 15 dims; this run has 4 x 15") !=
        std::string::npos);
  CHECK(f.Load(3, 16).message().find("this run has 3 x 16") != std::string::npos);
  CHECK(f.Load(3, 15, 1).message().find("other hyperparameters") != std::string::npos);
  CHECK(f.Load(3, 15, f.kStamp.options_hash, 1).message().find("other hyperparameters") !=
        std::string::npos);
  CHECK(f.Load(3, 15, f.kStamp.options_hash, 2, 1).message().find("other words") !=
        std::string::npos);
  // Format 02 (no words hash) still resumes: its options hash is compared.
  std::string format02 = "SGCKPT02" + good.substr(8, 32) + good.substr(48, good.size() - 56);
  std::string crc;
  PutFixed64(&crc, ExtendCrc32(0, format02.data(), format02.size()));
  WriteFile(f.path, format02 + crc);
  CHECK(f.Load(3, 15, f.kStamp.options_hash, 2, 1).ok());
  CHECK(f.Load(3, 15, 1).message().find("other hyperparameters") != std::string::npos);
  WriteFile(f.path, good);
  // A checkpoint of the format before checksums is named as such.
  std::string old_format = good;
  old_format[7] = '1';  // "SGCKPT01"
  WriteFile(f.path, old_format);
  CHECK(f.Load().message().find("older streamglove") != std::string::npos);
}

TEST_CASE("A checkpoint's rows go where a warm start maps them, whatever run wrote it",
          "[train][checkpoint]") {
  CheckpointFixture f;  // 3 rows of RowStride(15) = 16 floats, two arrays
  LargeArray<float> x(64), y(64);
  std::fill_n(x.data(), 64, 9.0f);
  std::fill_n(y.data(), 64, 9.0f);
  // Row 0 -> 3, row 1 dropped, row 2 -> 0; row 1 and 2 of the new arrays keep theirs.
  const uint64_t words = f.kStamp.words_hash;
  REQUIRE(LoadCheckpointRows(f.path, 15, words, {3, kNotCopied, 0}, {&x, &y}, {}).ok());
  for (size_t k = 0; k < 16; ++k) {
    CHECK(x.data()[3 * 16 + k] == f.a.data()[k]);
    CHECK(x.data()[k] == f.a.data()[2 * 16 + k]);
    CHECK(y.data()[3 * 16 + k] == f.b.data()[k]);
    CHECK(x.data()[16 + k] == 9.0f);
    CHECK(y.data()[2 * 16 + k] == 9.0f);
  }
  // Another dim, row count or number of arrays (objective) is refused.
  CHECK(LoadCheckpointRows(f.path, 14, words, {0, 1, 2}, {&x, &y}, {}).code() ==
        Status::Code::kInvalidArgument);
  CHECK(LoadCheckpointRows(f.path, 15, words, {0, 1}, {&x, &y}, {}).code() ==
        Status::Code::kInvalidArgument);
  CHECK(LoadCheckpointRows(f.path, 15, words, {0, 1, 2}, {&x}, {}).code() ==
        Status::Code::kInvalidArgument);
  // Rows of other words (a checkpoint another run wrote beside the vectors)
  // are refused, naming the file, and nothing is copied.
  std::fill_n(x.data(), 64, 9.0f);
  const Status other = LoadCheckpointRows(f.path, 15, words + 1, {0, 1, 2}, {&x, &y}, {});
  CHECK(other.code() == Status::Code::kInvalidArgument);
  CHECK(other.message().find(f.path + ": its rows are other words") != std::string::npos);
  CHECK(x.data()[0] == 9.0f);
  // A damaged file copies nothing.
  std::string bytes = ReadFile(f.path);
  bytes[bytes.size() - 20] ^= 1;
  WriteFile(f.path, bytes);
  std::fill_n(x.data(), 64, 9.0f);
  CHECK(LoadCheckpointRows(f.path, 15, words, {0, 1, 2}, {&x, &y}, {}).code() ==
        Status::Code::kCorruption);
  CHECK(x.data()[0] == 9.0f);
}
