#include "corpus/byte_source.h"

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
  TempDir dir;
  REQUIRE(dir.Create("", "sg-test-").ok());
  const std::string a = Sample(300000), b = Sample(5000), c = "tail without newline";
  const std::string whole = a + b + c;
  WriteFile(dir.path() + "/plain.txt", whole);
  WriteFile(dir.path() + "/multi.zst", ZstdFrames({a, b, c}));
  WriteFile(dir.path() + "/multi.gz", GzipMembers({a, b, c}));
  WriteFile(dir.path() + "/zst-without-suffix", ZstdFrames({a, b, c}));
  for (const char* name : {"plain.txt", "multi.zst", "multi.gz", "zst-without-suffix"}) {
    for (size_t step : {1, 7, 4096, 1 << 20}) {
      if (step == 1 && std::string(name) != "multi.zst") continue;  // byte-at-a-time once is enough
      INFO(name << " step " << step);
      std::string got;
      REQUIRE(ReadAll(dir.path() + "/" + name, &got, step).ok());
      CHECK(got == whole);
    }
  }
}

TEST_CASE("Truncated and corrupt compressed input is an error naming file and offset", "[corpus]") {
  TempDir dir;
  REQUIRE(dir.Create("", "sg-test-").ok());
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

TEST_CASE("A name that promises compression must hold it and a missing path is NotFound", "[corpus]") {
  TempDir dir;
  REQUIRE(dir.Create("", "sg-test-").ok());
  WriteFile(dir.path() + "/liar.zst", "plain text\n");
  WriteFile(dir.path() + "/liar.gz", "plain text\n");
  std::string got;
  Status s = ReadAll(dir.path() + "/liar.zst", &got);
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK(s.message().find("not zstd data") != std::string::npos);
  CHECK(ReadAll(dir.path() + "/liar.gz", &got).code() == Status::Code::kCorruption);
  s = ReadAll(dir.path() + "/missing.txt", &got);
  CHECK(s.code() == Status::Code::kNotFound);
  CHECK(s.message().find("missing.txt") != std::string::npos);
}
