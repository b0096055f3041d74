#include "util/file_lock.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

TEST_CASE("FileLock is exclusive, names its holder, and dies with it", "[util]") {
  TestDir tmp("sg-lock-");
  const std::string path = tmp.path() + "/LOCK.test";
  std::unique_ptr<FileLock> first, second;
  REQUIRE(FileLock::Acquire(path, "busy", /*pid_required=*/true, &first).ok());
  CHECK(ReadFile(path) == fmt::format("{}\n", ::getpid()));

  // Refused in the same process too: flock belongs to the open file.
  Status s = FileLock::Acquire(path, "x: in use", /*pid_required=*/true, &second);
  CHECK(s.code() == Status::Code::kBusy);
  CHECK(s.message() == fmt::format("x: in use (pid {})", ::getpid()));
  CHECK(second == nullptr);
  first.reset();
  REQUIRE(FileLock::Acquire(path, "busy", /*pid_required=*/true, &second).ok());
  second.reset();

  // A holder killed with SIGKILL leaves its lock to the next process.
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::unique_ptr<FileLock> held;
    const bool ok = FileLock::Acquire(path, "busy", true, &held).ok();
    (void)!::write(ready[1], ok ? "y" : "n", 1);
    ::pause();
    ::_exit(0);
  }
  char got = 0;
  REQUIRE(::read(ready[0], &got, 1) == 1);
  REQUIRE(got == 'y');
  s = FileLock::Acquire(path, "busy", true, &first);
  CHECK(s.message() == fmt::format("busy (pid {})", child));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  CHECK(FileLock::Acquire(path, "busy", true, &first).ok());
  ::close(ready[0]);
  ::close(ready[1]);
}
