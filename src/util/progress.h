// ProgressMeter: one self-redrawing status line on stderr for long work:
// how much is done of the total, rates and an ETA. Silent unless enabled and
// stderr is a terminal, so pipes and logs stay clean.
//
// ScopedProgressJob: work of several stages shown as one (embed counts,
// then trains): while one is open on a thread, the meters made on that
// thread draw as its stages, under one name, with the job's elapsed time and
// one ETA for the whole job. The stages' code needs no change to take part.
//
// Thread-safety: a meter's Update() and Finish() are called from one thread
// at a time (not necessarily the one that made it); a job is opened, staged
// and closed on the thread whose meters it shows, and outlives them: a meter
// only reads its job, and no stage changes while a meter draws.
#ifndef STREAMGLOVE_UTIL_PROGRESS_H_
#define STREAMGLOVE_UTIL_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace streamglove {

class ScopedProgressJob;

// How a job's line reads: "embed 1/2 counting, ingest: 40 MB / 100 MB (40%)
// ... 0:42 in, ETA 4:18 (budget 5:00)". `stage_eta` (seconds, < 0 when
// unknown) is the current meter's; the job's ETA is the deadline's while a
// stage other than the last runs, and the stage's own in the last (whose end
// is the job's). Without a deadline, a stage before the last shows its own
// ETA as the stage's.
struct ProgressJobView {
  std::string name;   // "embed"
  std::string stage;  // "1/2 counting"
  bool last_stage = false;
  double elapsed = 0;   // seconds since the job began
  double deadline = 0;  // the job's budget in seconds from its start (0: none)
};
std::string ProgressJobLine(const ProgressJobView& job, const std::string& meter_label,
                            const std::string& position, double stage_eta,
                            const std::string& rates);

class ProgressMeter {
 public:
  ProgressMeter(std::string label, bool enabled);
  ~ProgressMeter() { Finish(); }

  // bytes_total = 0 when unknown (no percentage or ETA then); pairs = 0
  // leaves the pairs rate out.
  void Update(uint64_t bytes_done, uint64_t bytes_total, uint64_t tokens, uint64_t pairs = 0);
  // For work not measured in bytes: `what` describes the position (e.g.
  // "epoch 3/15"), `fraction` in [0, 1] of this meter's work is done, and
  // `rates` follows the ETA.
  void UpdateFraction(const std::string& what, double fraction, const std::string& rates);
  // Clears the line.
  void Finish();

 private:
  using Clock = std::chrono::steady_clock;
  // Whether a redraw is due now; sets *elapsed (seconds since the start).
  bool Due(double* elapsed);
  // " (42%)" for a known fraction; *eta: the seconds left (-1: unknown).
  static std::string Fraction(double fraction, double elapsed, double* eta);
  // The line: its position ("12 MB / 100 MB (12%)"), ETA and rates, drawn
  // alone or as the current job's stage.
  void Draw(const std::string& position, double eta, const std::string& rates);
  const std::string label_;
  const ScopedProgressJob* const job_;  // the thread's open job when made, or null
  const bool enabled_;
  const Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
};

class ScopedProgressJob {
 public:
  // `deadline_seconds`: the job's wall-time budget from now (0: none).
  ScopedProgressJob(std::string name, double deadline_seconds);
  ~ScopedProgressJob();
  ScopedProgressJob(const ScopedProgressJob&) = delete;
  ScopedProgressJob& operator=(const ScopedProgressJob&) = delete;

  // The stage running from now on ("2/2 training"); `last`: no other follows.
  void SetStage(std::string stage, bool last);
  ProgressJobView View() const;
  // The innermost job open on this thread (null: none), which the meters
  // made now draw under.
  static const ScopedProgressJob* Current();

 private:
  const std::string name_;
  const double deadline_;
  const std::chrono::steady_clock::time_point start_;
  ScopedProgressJob* const outer_;  // the thread's job before this one
  std::string stage_;
  bool last_stage_ = false;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_PROGRESS_H_
