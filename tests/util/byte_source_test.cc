#include "util/byte_source.h"

#include <catch2/catch.hpp>

#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

Status ReadAll(const std::string& path, std::string* out, size_t step = 1000) {
  std::unique_ptr<ByteSource> source;
  SG_RETURN_IF_ERROR(OpenByteSource(path, &source));
  out->clear();
  std::string buf(step, '\0');
  for (;;) {
    size_t got = 0;
    SG_RETURN_IF_ERROR(source->Read(buf.data(), buf.size(), &got));
    if (got == 0) return Status::OK();
    out->append(buf.data(), got);
  }
}

std::string Sample(size_t n) {
  std::mt19937_64 rng(42);
  return RandomText(&rng, n);
}

}  // namespace

TEST_CASE("Plain and multi-frame zstd and multi-member gzip read back exactly", "[corpus]") {
  TestDir dir("sg-test-");
  const std::string a = Sample(300000), b = Sample(5000), c = "tail without newline";
  const std::string whole = a + b + c;
  WriteFile(dir.path() + "/plain.txt", whole);
  WriteFile(dir.path() + "/multi.zst", ZstdFrames({a, b, c}));
  WriteFile(dir.path() + "/multi.gz", GzipMembers({a, b, c}));
  WriteFile(dir.path() + "/zst-without-suffix", ZstdFrames({a, b, c}));
  WriteFile(dir.path() + "/multi.xz", XzStreams({a, b, c}));
  WriteFile(dir.path() + "/single.xz", XzStreams({whole}));
  WriteFile(dir.path() + "/multi.bz2", Bzip2Streams({a, b, c}));
  WriteFile(dir.path() + "/single.bz2", Bzip2Streams({whole}));
  WriteFile(dir.path() + "/bz2-without-suffix", Bzip2Streams({a, b, c}));
  for (const char* name : {"plain.txt", "multi.zst", "multi.gz", "zst-without-suffix", "multi.xz",
                           "single.xz", "multi.bz2", "single.bz2", "bz2-without-suffix"}) {
    for (size_t step : {1, 7, 4096, 1 << 20}) {
      const std::string n = name;
      if (step == 1 && n != "multi.zst" && n != "multi.xz" && n != "multi.bz2")
        continue;  // byte-at-a-time: enough
      INFO(name << " step " << step);
      std::string got;
      REQUIRE(ReadAll(dir.path() + "/" + name, &got, step).ok());
      CHECK(got == whole);
    }
  }
}

TEST_CASE("Truncated and corrupt compressed input is an error naming file and offset", "[corpus]") {
  TestDir dir("sg-test-");
  const std::string text = Sample(200000);
  const std::string zst = ZstdFrames({text});
  const std::string gz = GzipMembers({text});
  std::string got;

  const std::string truncated_zst = dir.path() + "/truncated.zst";
  WriteFile(truncated_zst, zst.substr(0, zst.size() / 2));
  Status s = ReadAll(truncated_zst, &got);
  REQUIRE(s.code() == Status::Code::kCorruption);
  CHECK(s.message().find(truncated_zst) == 0);
  CHECK(s.message().find("truncated zstd frame") != std::string::npos);
  CHECK(s.message().find("byte " + std::to_string(zst.size() / 2)) != std::string::npos);

  std::string bad = zst;
  for (size_t i = 100; i < 200; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5A);
  WriteFile(dir.path() + "/corrupt.zst", bad);
  s = ReadAll(dir.path() + "/corrupt.zst", &got);
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK(s.message().find("corrupt zstd data") != std::string::npos);

  const std::string truncated_gz = dir.path() + "/truncated.gz";
  WriteFile(truncated_gz, gz.substr(0, gz.size() - 100));
  s = ReadAll(truncated_gz, &got);
  REQUIRE(s.code() == Status::Code::kCorruption);
  CHECK(s.message().find("truncated gzip stream") != std::string::npos);

  std::string bad_gz = gz;
  for (size_t i = 50; i < 80; ++i) bad_gz[i] = static_cast<char>(bad_gz[i] ^ 0x33);
  WriteFile(dir.path() + "/corrupt.gz", bad_gz);
  CHECK(ReadAll(dir.path() + "/corrupt.gz", &got).code() == Status::Code::kCorruption);
}

TEST_CASE("Truncated, corrupt and trailing-garbage xz and bzip2 are errors naming file and offset",
          "[corpus]") {
  TestDir dir("sg-test-");
  const std::string text = Sample(200000), more = Sample(3000);
  struct Format {
    const char* name;
    std::string bytes;   // two streams
    size_t first_bytes;  // the first stream's size
  };
  const std::string xz1 = XzStreams({text}), bz1 = Bzip2Streams({text});
  for (const Format& f : {Format{"xz", xz1 + XzStreams({more}), xz1.size()},
                          Format{"bzip2", bz1 + Bzip2Streams({more}), bz1.size()}}) {
    const std::string suffix = std::string(f.name) == "xz" ? ".xz" : ".bz2";
    INFO(f.name);
    std::string got;
    // Cut inside the second stream, and inside the first: both truncated,
    // at the file's end.
    for (size_t cut : {f.bytes.size() - 10, f.first_bytes / 2}) {
      const std::string path = dir.path() + "/truncated" + suffix;
      WriteFile(path, f.bytes.substr(0, cut));
      const Status s = ReadAll(path, &got);
      REQUIRE(s.code() == Status::Code::kCorruption);
      CHECK(s.message().find(path + ": byte ") == 0);
      CHECK(s.message().find(std::string("truncated ") + f.name + " stream") != std::string::npos);
      CHECK(s.message().find("byte " + std::to_string(cut)) != std::string::npos);
    }
    // Flipped bytes inside the first stream: corrupt, at an offset within it.
    std::string bad = f.bytes;
    for (size_t i = 200; i < 260; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5A);
    WriteFile(dir.path() + "/corrupt" + suffix, bad);
    Status s = ReadAll(dir.path() + "/corrupt" + suffix, &got);
    REQUIRE(s.code() == Status::Code::kCorruption);
    CHECK(s.message().find(std::string("corrupt ") + f.name + " data") != std::string::npos);
    // Text after a complete stream is not another stream: an error at or
    // after the first stream's end, not silently read or dropped.
    WriteFile(dir.path() + "/trailing" + suffix, f.bytes + "not compressed\n");
    s = ReadAll(dir.path() + "/trailing" + suffix, &got);
    REQUIRE(s.code() == Status::Code::kCorruption);
    CHECK(s.message().find(std::string("corrupt ") + f.name + " data") != std::string::npos);
    // An empty file named as compressed.
    WriteFile(dir.path() + "/empty" + suffix, "");
    s = ReadAll(dir.path() + "/empty" + suffix, &got);
    CHECK(s.code() == Status::Code::kCorruption);
    CHECK(s.message().find(std::string("not ") + f.name + " data") != std::string::npos);
  }
}

TEST_CASE("A name that promises compression must hold it and a missing path is NotFound",
          "[corpus]") {
  TestDir dir("sg-test-");
  WriteFile(dir.path() + "/liar.zst", "plain text\n");
  WriteFile(dir.path() + "/liar.gz", "plain text\n");
  WriteFile(dir.path() + "/liar.xz", "plain text\n");
  WriteFile(dir.path() + "/liar.bz2", GzipMembers({"gzip, not bzip2\n"}));
  std::string got;
  Status s = ReadAll(dir.path() + "/liar.zst", &got);
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK(s.message().find("not zstd data") != std::string::npos);
  CHECK(ReadAll(dir.path() + "/liar.gz", &got).code() == Status::Code::kCorruption);
  CHECK(ReadAll(dir.path() + "/liar.xz", &got).code() == Status::Code::kCorruption);
  s = ReadAll(dir.path() + "/liar.bz2", &got);
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK(s.message().find("not bzip2 data") != std::string::npos);
  s = ReadAll(dir.path() + "/missing.txt", &got);
  CHECK(s.code() == Status::Code::kNotFound);
  CHECK(s.message().find("missing.txt") != std::string::npos);
}
