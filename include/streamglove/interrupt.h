// Clean stops on SIGINT and SIGTERM.
//
// Long-running commands install the handler; their loops poll Interrupted()
// at points where stopping loses nothing (after a committed ingest batch,
// between training blocks) and return InterruptedStatus(), which main() turns
// into exit code 128 + signal. A second signal kills the process at once, as
// if no handler were installed: the stores are crash-safe either way.
//
// Thread-safety: Interrupted() may be called from any thread.
#ifndef STREAMGLOVE_INTERRUPT_H_
#define STREAMGLOVE_INTERRUPT_H_

#include <memory>

#include "streamglove/status.h"

namespace streamglove {

void InstallInterruptHandlers();
// True once SIGINT or SIGTERM has arrived.
bool Interrupted();
// The signal that arrived (0 if none).
int InterruptSignal();
// "interrupted by SIGINT: <what>" (what was kept and how to continue).
Status InterruptedStatus(const std::string& what);

// InstallInterruptHandlers for a scope, for a host with handlers of its own
// that calls the library again afterwards (the Python module): when the
// scope ends, the handlers from before it are back and the interrupt is
// forgotten. One scope at a time.
class ScopedInterruptHandlers {
 public:
  ScopedInterruptHandlers();
  ~ScopedInterruptHandlers();
  ScopedInterruptHandlers(const ScopedInterruptHandlers&) = delete;
  ScopedInterruptHandlers& operator=(const ScopedInterruptHandlers&) = delete;

 private:
  struct Saved;
  std::unique_ptr<Saved> saved_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_INTERRUPT_H_
