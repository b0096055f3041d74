// ExchangeStreams: every rank sends one byte stream to every rank (itself
// included) and receives one from each, with two chunks of memory.
//
// The streams move in size() steps of a pairwise schedule: at step s rank r
// sends its stream for rank (r + s) mod n and receives the stream of rank
// (r - s) mod n, so in every step each rank has one partner to send to and
// one to hear from, and a stream is produced and consumed in one pass, in
// order (a sorted stream stays sorted). Step 0 hands a rank's own stream to
// its consumer without MPI. Chunks go out with MPI_Isend while the rank
// keeps receiving, so two ranks sending to each other never wait on each
// other; a zero-byte message ends a stream.
//
// Errors: a producer or consumer error does not break the schedule (the
// partner would wait forever): the failing side ends its stream early or
// discards what it receives, the steps run to the end, and the first error
// is returned; the caller then agrees on it (MpiWorld::Agree).
#ifndef STREAMGLOVE_COOCCUR_DISTRIBUTED_STREAM_EXCHANGE_H_
#define STREAMGLOVE_COOCCUR_DISTRIBUTED_STREAM_EXCHANGE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cooccur/distributed/mpi_world.h"
#include "streamglove/status.h"
#include "util/file.h"

namespace streamglove {

// Where a producer writes its stream for one rank.
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  // Appends bytes to the stream (buffered; sent in chunks).
  virtual Status Write(std::string_view bytes) = 0;
};

// Writes the whole stream for rank `to` into `sink`.
using StreamProducer = std::function<Status(int to, StreamSink* sink)>;
// Takes the next bytes of the stream from rank `from`, in order; called
// with an empty view once at its end.
using StreamConsumer = std::function<Status(int from, std::string_view bytes)>;

struct ExchangeStats {
  uint64_t bytes_sent = 0;  // to other ranks (a rank's own stream is not counted)
};

// Collective. `chunk_bytes`: the size of a message (the exchange holds two
// outgoing chunks and one incoming message).
Status ExchangeStreams(MpiWorld* world, size_t chunk_bytes, const StreamProducer& produce,
                       const StreamConsumer& consume, ExchangeStats* stats);

// Writes the bytes of the file at `path` into `sink`.
Status SendFile(const std::string& path, StreamSink* sink);

// A consumer that writes the stream from each rank r to its own file,
// paths[r] (created at the stream's first bytes; a rank that sends nothing
// leaves no file).
class StreamFiles {
 public:
  explicit StreamFiles(std::vector<std::string> paths);
  Status Consume(int from, std::string_view bytes);
  // The files written, complete once the exchange has returned.
  std::vector<std::string> written() const;

 private:
  const std::vector<std::string> paths_;
  std::vector<std::unique_ptr<WritableFile>> files_;  // open from the first bytes to the end
  std::vector<bool> written_;                         // a file was made for the rank
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_DISTRIBUTED_STREAM_EXCHANGE_H_
