#include "streamglove/interrupt.h"

#include <signal.h>

#include <atomic>
#include <csignal>

#include <fmt/format.h>

namespace streamglove {

namespace {

std::atomic<int> g_signal{0};

extern "C" void OnInterrupt(int signal) {
  g_signal.store(signal, std::memory_order_relaxed);
  std::signal(signal, SIG_DFL);  // a second one stops the process at once
}

}  // namespace

void InstallInterruptHandlers() {
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
}

bool Interrupted() { return g_signal.load(std::memory_order_relaxed) != 0; }

int InterruptSignal() { return g_signal.load(std::memory_order_relaxed); }

Status InterruptedStatus(const std::string& what) {
  return Status::Interrupted(fmt::format(
      "interrupted by {}: {}", InterruptSignal() == SIGTERM ? "SIGTERM" : "SIGINT", what));
}

struct ScopedInterruptHandlers::Saved {
  struct sigaction int_action, term_action;
};

ScopedInterruptHandlers::ScopedInterruptHandlers() : saved_(std::make_unique<Saved>()) {
  sigaction(SIGINT, nullptr, &saved_->int_action);
  sigaction(SIGTERM, nullptr, &saved_->term_action);
  g_signal.store(0, std::memory_order_relaxed);
  InstallInterruptHandlers();
}

ScopedInterruptHandlers::~ScopedInterruptHandlers() {
  sigaction(SIGINT, &saved_->int_action, nullptr);
  sigaction(SIGTERM, &saved_->term_action, nullptr);
  g_signal.store(0, std::memory_order_relaxed);
}

}  // namespace streamglove
