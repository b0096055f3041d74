#include "util/progress.h"

#include <thread>

#include <catch2/catch.hpp>

using namespace streamglove;

TEST_CASE("A job's progress line names its stage and gives one ETA for the whole job", "[util]") {
  ProgressJobView job;
  job.name = "embed";
  job.stage = "1/2 counting";
  job.elapsed = 42;
  job.deadline = 300;
  // Counting, with a budget: the ETA is the budget's end, not the stage's.
  CHECK(ProgressJobLine(job, "ingest", "40 MB / 100 MB (40%)", 63, "9.5 MB/s") ==
        "embed 1/2 counting, ingest: 40 MB / 100 MB (40%)  9.5 MB/s  0:42 in, ETA 4:18 (budget "
        "5:00)");
  // Training, the last stage: its own ETA is the job's.
  job.stage = "2/2 training";
  job.last_stage = true;
  job.elapsed = 130;
  CHECK(ProgressJobLine(job, "train", "epoch 3/9 (30%)", 155, "1.20 M pairs/s") ==
        "embed 2/2 training, train: epoch 3/9 (30%)  1.20 M pairs/s  2:10 in, ETA 2:35");
  // No budget: before the last stage only the stage's own ETA is known.
  job.deadline = 0;
  job.stage = "1/2 counting";
  job.last_stage = false;
  CHECK(ProgressJobLine(job, "vocab", "1 MB (10%)", 65, "") ==
        "embed 1/2 counting, vocab: 1 MB (10%)    2:10 in, ETA 1:05 of this stage");
  CHECK(ProgressJobLine(job, "vocab", "1 MB", -1, "") ==
        "embed 1/2 counting, vocab: 1 MB    2:10 in");
  // A budget overrun shows no negative time.
  job.deadline = 100;
  CHECK(ProgressJobLine(job, "ingest", "x", -1, "r") ==
        "embed 1/2 counting, ingest: x  r  2:10 in, ETA 0:00 (budget 1:40)");
}

TEST_CASE("The innermost open job is the thread's, which meters made then draw under", "[util]") {
  CHECK(ScopedProgressJob::Current() == nullptr);
  ScopedProgressJob outer("outer", 0);
  outer.SetStage("1/1 a", true);
  CHECK(ScopedProgressJob::Current() == &outer);
  {
    ScopedProgressJob inner("embed", 60);
    CHECK(ScopedProgressJob::Current() == &inner);
    const ScopedProgressJob* elsewhere = &inner;  // another thread has none open
    std::thread([&] { elsewhere = ScopedProgressJob::Current(); }).join();
    CHECK(elsewhere == nullptr);
    inner.SetStage("2/2 training", true);
    const ProgressJobView v = inner.View();
    CHECK(v.name == "embed");
    CHECK(v.stage == "2/2 training");
    CHECK(v.last_stage);
    CHECK(v.deadline == 60);
    CHECK(v.elapsed >= 0);
    CHECK(v.elapsed < 60);
  }
  CHECK(ScopedProgressJob::Current() == &outer);
  CHECK(outer.View().name == "outer");
}
