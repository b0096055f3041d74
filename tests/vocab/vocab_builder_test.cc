#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <map>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "streamglove/vocabulary.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

// The expected vocabulary file, from the reference tokenizer and std::map.
std::string ExpectedVocab(const std::vector<std::string>& texts, uint64_t min_count,
                          uint64_t max_vocab) {
  std::map<std::string, uint64_t> counts;
  for (const std::string& t : texts) {
    for (const std::string& tok : ReferenceTokens(t)) {
      if (tok != kDocEnd) ++counts[tok];
    }
  }
  std::vector<std::pair<std::string, uint64_t>> v(counts.begin(), counts.end());
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  uint64_t n = 0;
  for (const auto& [w, c] : v) {
    if (c < min_count || (max_vocab != 0 && n == max_vocab)) break;
    out += fmt::format("{} {}\n", w, c);
    ++n;
  }
  return out;
}

std::string RandomWords(std::mt19937_64* rng, size_t words, size_t distinct) {
  std::string s;
  for (size_t i = 0; i < words; ++i) {
    // Zipf-like: small ids far more often.
    const size_t id =
        static_cast<size_t>(std::pow(static_cast<double>(distinct), (*rng)() / 1.8446744e19));
    s += fmt::format("w{}", id);
    s += (*rng)() % 12 == 0 ? "\n" : " ";
  }
  return s;
}

}  // namespace

TEST_CASE("BuildVocabulary equals a brute-force count for any threads and formats and spilling",
          "[vocab]") {
  TestDir dir("sg-test-");
  std::mt19937_64 rng(5);
  const std::string t1 = RandomText(&rng, 200000);  // NULs and invalid UTF-8 included
  uint64_t bad_lines = 0;
  size_t first_bad = 0;
  const std::string t1_good = WithoutBadLines(t1, &bad_lines, &first_bad);
  REQUIRE(bad_lines > 10);
  const std::string t2 = RandomWords(&rng, 150000, 60000);
  const std::string t3 = RandomWords(&rng, 50000, 5000);
  const std::string t4 = "jsonl words and more words";
  WriteFile(dir.path() + "/1.txt", t1);
  WriteFile(dir.path() + "/2.txt.zst", ZstdFrames({t2.substr(0, 7777), t2.substr(7777)}));
  WriteFile(dir.path() + "/3.gz", GzipMembers({t3}));
  WriteFile(dir.path() + "/4.jsonl",
            "{\"text\": \"jsonl words\"}\n{\"text\": \"and more words\"}\n");
  std::vector<InputFile> inputs;
  REQUIRE(ExpandInputs({dir.path()}, InputFormat::kAuto, &inputs).ok());
  REQUIRE(inputs.size() == 4);

  struct Case {
    int threads;
    size_t spill_bytes;
    uint64_t min_count, max_vocab;
    bool expect_spills;
  };
  for (const Case& c :
       {Case{1, 0, 1, 0, false}, Case{2, 0, 1, 0, false}, Case{2, 0, 3, 100, false},
        Case{2, size_t{1} << 20, 1, 0, true}, Case{1, size_t{1} << 20, 2, 5000, true}}) {
    INFO("threads " << c.threads << " spill " << c.spill_bytes << " min " << c.min_count);
    VocabOptions options;
    options.threads = c.threads;
    options.spill_threshold_bytes = c.spill_bytes;
    options.min_count = c.min_count;
    options.max_vocab = c.max_vocab;
    options.progress = false;
    CorpusOptions corpus;
    VocabStats stats;
    const std::string out = dir.path() + "/vocab.out";
    // By default the first bad line is an error naming its first bad byte.
    const Status strict = BuildVocabulary(inputs, corpus, options, out, &stats);
    CHECK(strict.message().find(fmt::format("/1.txt: byte {}: ", first_bad)) != std::string::npos);
    CHECK(strict.message().find("--skip-bad-records") != std::string::npos);
    // Skipped, the bad lines are left out and counted.
    corpus.skip_bad_records = true;
    REQUIRE(BuildVocabulary(inputs, corpus, options, out, &stats).ok());
    CHECK(ReadFile(out) == ExpectedVocab({t1_good + "\n", t2 + "\n", t3 + "\n", t4 + "\n"},
                                         c.min_count, c.max_vocab));
    CHECK((stats.spill_runs > 0) == c.expect_spills);
    CHECK(stats.bad_records == bad_lines);
    CHECK(stats.first_bad_record.find(fmt::format("/1.txt: byte {}: ", first_bad)) !=
          std::string::npos);
  }
}

TEST_CASE("A failed vocabulary pass leaves no output file", "[vocab]") {
  TestDir dir("sg-test-");
  WriteFile(dir.path() + "/a.txt", "fine words\n");
  WriteFile(dir.path() + "/b.zst", "not zstd at all");
  std::vector<InputFile> inputs;
  REQUIRE(ExpandInputs({dir.path()}, InputFormat::kAuto, &inputs).ok());
  VocabOptions options;
  options.progress = false;
  VocabStats stats;
  const std::string out = dir.path() + "/vocab.out";
  const Status s = BuildVocabulary(inputs, CorpusOptions(), options, out, &stats);
  REQUIRE(s.code() == Status::Code::kCorruption);
  CHECK(s.message().find("b.zst: byte 0: not zstd data") != std::string::npos);
  CHECK(::access(out.c_str(), F_OK) != 0);
}

namespace {

// The pid of a process that has ended.
pid_t DeadPid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  REQUIRE(pid > 0);
  REQUIRE(::waitpid(pid, nullptr, 0) == pid);
  return pid;
}

}  // namespace

// A pass killed with -9 left its spill runs' folder and its
// unfinished output, and no later pass removed them. A pass removes a dead
// process's, never a live one's: its pid alive, or its lock held (a process
// of another pid namespace, where the pid means nothing).
TEST_CASE("A vocabulary pass removes what killed passes left, not what live ones use", "[vocab]") {
  TestDir dir("sg-test-");
  const std::string input = dir.Write("a.txt", "fine words\n");
  const std::string out = dir.path() + "/vocab.out";
  const pid_t dead = DeadPid(), alive = ::getppid();
  const auto make_folder = [&](const std::string& name) {
    const std::string path = dir.path() + "/" + name;
    REQUIRE(::mkdir(path.c_str(), 0700) == 0);
    WriteFile(path + "/run-0", "words");
    return path;
  };
  const std::vector<std::string> gone = {
      make_folder(fmt::format("streamglove-vocab-{}-aB3dE6", dead)),
      dir.Write(fmt::format("vocab.out.tmp-{}", dead), "w 1\n")};
  const std::string locked = make_folder(fmt::format("streamglove-vocab-{}-Zz9Yy8", dead));
  const int lock_fd = ::open(locked.c_str(), O_RDONLY);
  REQUIRE(::flock(lock_fd, LOCK_EX) == 0);
  const std::vector<std::string> kept = {
      locked, make_folder(fmt::format("streamglove-vocab-{}-qW4eR5", alive)),
      dir.Write(fmt::format("vocab.out.tmp-{}", alive), "w 1\n"),
      make_folder(fmt::format("streamglove-vocab-mpi-{}-tY6uI7", dead)),  // not this pass's
      dir.Write(fmt::format("other.out.tmp-{}", dead), "w 1\n")};

  std::vector<InputFile> inputs;
  REQUIRE(ExpandInputs({input}, InputFormat::kAuto, &inputs).ok());
  VocabOptions options;
  options.progress = false;
  options.temp_dir = dir.path();
  VocabStats stats;
  REQUIRE(BuildVocabulary(inputs, CorpusOptions(), options, out, &stats).ok());
  CHECK(ReadFile(out) == "fine 1\nwords 1\n");
  for (const std::string& path : gone) {
    INFO(path);
    CHECK_FALSE(PathExists(path));
  }
  for (const std::string& path : kept) {
    INFO(path);
    CHECK(PathExists(path));
  }
  ::close(lock_fd);
}
