// Status: the result of an operation that can fail, as a value.
//
// Expected failures (a missing file, a corrupt zstd frame, a full disk) are
// returned as a Status carrying a code and a message that names the file and,
// where it applies, the byte offset: "shard.zst: byte 812: truncated zstd frame".
// Only main() turns a Status into an exit code.
//
// Thread-safety: a Status is a plain value; distinct objects may be used from
// distinct threads, a shared one only for reading.
#ifndef STREAMGLOVE_STATUS_H_
#define STREAMGLOVE_STATUS_H_

#include <string>
#include <utility>

namespace streamglove {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kNotFound,         // a path or key that does not exist
    kIOError,          // the operating system refused a read or write
    kCorruption,       // input or stored data that does not parse
    kInvalidArgument,  // a caller-supplied value out of range
    kBusy,             // a resource held by another process
    kInterrupted,      // stopped cleanly by SIGINT or SIGTERM
  };

  // An OK status.
  Status() = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  static Status Busy(std::string msg) { return Status(Code::kBusy, std::move(msg)); }
  static Status Interrupted(std::string msg) { return Status(Code::kInterrupted, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }

  // The message: context first ("file: byte N: what went wrong"). Empty when ok().
  const std::string& message() const { return message_; }

  // "OK", or the message; suitable as one line of an error report.
  std::string ToString() const { return ok() ? std::string("OK") : message_; }

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}

  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace streamglove

// Returns from the enclosing function when `expr` yields a non-OK Status.
#define SG_RETURN_IF_ERROR(expr)               \
  do {                                         \
    ::streamglove::Status sg_status_ = (expr); \
    if (!sg_status_.ok()) return sg_status_;   \
  } while (0)

#endif  // STREAMGLOVE_STATUS_H_
