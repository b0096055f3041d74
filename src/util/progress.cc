#include "util/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "streamglove/units.h"
#include "util/config.h"

namespace streamglove {

namespace {

// The job whose stages the meters made on this thread draw (see the header).
thread_local ScopedProgressJob* current_job = nullptr;

std::string FormatEta(double seconds) {
  const auto s = static_cast<long>(std::max(0.0, seconds));
  return fmt::format("{}:{:02d}", s / 60, s % 60);
}

}  // namespace

std::string ProgressJobLine(const ProgressJobView& job, const std::string& meter_label,
                            const std::string& position, double stage_eta,
                            const std::string& rates) {
  std::string eta;
  if (job.deadline > 0 && !job.last_stage) {
    eta = fmt::format("ETA {} (budget {})", FormatEta(job.deadline - job.elapsed),
                      FormatEta(job.deadline));
  } else if (stage_eta >= 0) {
    eta = "ETA " + FormatEta(stage_eta) + (job.last_stage ? "" : " of this stage");
  }
  return fmt::format("{} {}, {}: {}  {}  {} in{}", job.name, job.stage, meter_label, position,
                     rates, FormatEta(job.elapsed), eta.empty() ? "" : ", " + eta);
}

ScopedProgressJob::ScopedProgressJob(std::string name, double deadline_seconds)
    : name_(std::move(name)),
      deadline_(deadline_seconds),
      start_(std::chrono::steady_clock::now()),
      outer_(current_job) {
  current_job = this;
}

ScopedProgressJob::~ScopedProgressJob() { current_job = outer_; }

const ScopedProgressJob* ScopedProgressJob::Current() { return current_job; }

void ScopedProgressJob::SetStage(std::string stage, bool last) {
  stage_ = std::move(stage);
  last_stage_ = last;
}

ProgressJobView ScopedProgressJob::View() const {
  ProgressJobView v;
  v.name = name_;
  v.stage = stage_;
  v.last_stage = last_stage_;
  v.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  v.deadline = deadline_;
  return v;
}

ProgressMeter::ProgressMeter(std::string label, bool enabled)
    : label_(std::move(label)),
      job_(ScopedProgressJob::Current()),
      // A pipe or a log file gets no progress line: carriage returns would
      // leave one line per redraw in it.
      enabled_(enabled && ::isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_draw_(start_) {}

bool ProgressMeter::Due(double* elapsed) {
  if (!enabled_) return false;
  const auto now = Clock::now();
  if (std::chrono::duration<double>(now - last_draw_).count() < config::kProgressIntervalSeconds)
    return false;
  last_draw_ = now;
  *elapsed = std::chrono::duration<double>(now - start_).count();
  return true;
}

std::string ProgressMeter::Fraction(double fraction, double elapsed, double* eta) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  // Below a thousandth done, an ETA is noise.
  *eta = fraction > 0.001 ? elapsed / fraction - elapsed : -1;
  return fmt::format(" ({:.0f}%)", 100 * fraction);
}

void ProgressMeter::Draw(const std::string& position, double eta, const std::string& rates) {
  const std::string text =
      job_ != nullptr ? ProgressJobLine(job_->View(), label_, position, eta, rates)
                      : fmt::format("{}: {}{}  {}", label_, position,
                                    eta >= 0 ? "  ETA " + FormatEta(eta) : std::string(), rates);
  // Back to the line's start, then erase what a longer previous line left.
  std::fputs(fmt::format("\r{}\x1b[K", text).c_str(), stderr);
  drawn_ = true;
}

void ProgressMeter::Update(uint64_t bytes_done, uint64_t bytes_total, uint64_t tokens,
                           uint64_t pairs) {
  double elapsed = 0;
  if (!Due(&elapsed)) return;
  std::string position = FormatBytes(static_cast<double>(bytes_done));
  double eta = -1;
  if (bytes_total > 0) {
    position += fmt::format(" / {}", FormatBytes(static_cast<double>(bytes_total)));
    position += Fraction(static_cast<double>(bytes_done) / bytes_total, elapsed, &eta);
  }
  std::string rates = fmt::format("{}/s  {:.1f} M tokens/s", FormatBytes(bytes_done / elapsed),
                                  tokens / elapsed / 1e6);
  if (pairs > 0) rates += fmt::format("  {:.1f} M pairs/s", pairs / elapsed / 1e6);
  Draw(position, eta, rates);
}

void ProgressMeter::UpdateFraction(const std::string& what, double fraction,
                                   const std::string& rates) {
  double elapsed = 0;
  if (!Due(&elapsed)) return;
  double eta = -1;
  const std::string position = what + Fraction(fraction, elapsed, &eta);
  Draw(position, eta, rates);
}

void ProgressMeter::Finish() {
  if (drawn_) std::fputs("\r\x1b[K", stderr);
  drawn_ = false;
}

}  // namespace streamglove
