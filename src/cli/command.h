// A subcommand of the streamglove binary.
//
// main() parses the command line, then calls Validate() (a failure is a usage
// error: exit 2) and Run() (a failure is an error: exit 1). Each command
// registers its own flags with CLI11 in its constructor.
#ifndef STREAMGLOVE_CLI_COMMAND_H_
#define STREAMGLOVE_CLI_COMMAND_H_

#include <cctype>
#include <cstdio>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "streamglove/status.h"

namespace streamglove {

class Command {
 public:
  virtual ~Command() = default;
  // Turns flag strings into validated option structs.
  virtual Status Validate() = 0;
  virtual Status Run() = 0;
  // True when this command was named on the command line.
  bool selected() const { return app_ != nullptr && app_->parsed(); }
  // False when another process of the same job reports the errors that
  // every process of it meets alike (the ranks of an MPI job but the first):
  // main() then only exits, leaving the job's exit status to the reporter.
  bool reports_errors() const { return reports_errors_; }
  // True when Run()'s failure is a job's agreed outcome, already printed by
  // the reporting process.
  bool error_printed() const { return error_printed_; }

 protected:
  CLI::App* app_ = nullptr;
  bool reports_errors_ = true;
  bool error_printed_ = false;
};

// `message` on one line: RocksDB's messages may end in a newline or join
// several errors with one (a missing .sst file), and a failure is one line.
inline std::string OneLine(std::string_view message) {
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) {
    message.remove_suffix(1);
  }
  std::string line;
  line.reserve(message.size());
  for (char c : message) {
    if (c == '\n') {
      line += "; ";
    } else if (c != '\r') {
      line += c;
    }
  }
  return line;
}

// The one line a failed Run() prints on stderr ("streamglove: error: ...";
// an interruption: "streamglove: ...").
inline void PrintErrorLine(const Status& s) {
  if (s.code() == Status::Code::kInterrupted) {
    fmt::print(stderr, "streamglove: {}\n", OneLine(s.message()));
  } else {
    fmt::print(stderr, "streamglove: error: {}\n", OneLine(s.message()));
  }
  std::fflush(stderr);
}

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_COMMAND_H_
