#include "cooccur/distributed/stream_exchange.h"

#include <mpi.h>

#include <algorithm>
#include <string>
#include <utility>

namespace streamglove {

namespace {

// A rank's own stream: straight to its consumer.
class LocalSink final : public StreamSink {
 public:
  LocalSink(int rank, const StreamConsumer& consume) : rank_(rank), consume_(consume) {}
  Status Write(std::string_view bytes) override {
    if (bytes.empty()) return Status::OK();  // empty means the end to a consumer
    return consume_(rank_, bytes);
  }

 private:
  const int rank_;
  const StreamConsumer& consume_;
};

// One step with a partner on each side: the stream to `to` goes out in
// chunks while the stream from `from` comes in.
//
// Invariants: at most one chunk (in_flight_) is being sent; filling_ holds
// less than a chunk between Write() calls; after the first consumer error
// the incoming messages are still received, and dropped.
class RemoteStep final : public StreamSink {
 public:
  RemoteStep(int to, int from, int tag, size_t chunk_bytes, const StreamConsumer& consume,
             ExchangeStats* stats)
      : to_(to),
        from_(from),
        tag_(tag),
        chunk_bytes_(chunk_bytes),
        consume_(consume),
        stats_(stats) {
    filling_.reserve(chunk_bytes_);
    in_flight_.reserve(chunk_bytes_);
  }

  Status Write(std::string_view bytes) override {
    while (!bytes.empty()) {
      const size_t n = std::min(bytes.size(), chunk_bytes_ - filling_.size());
      filling_.append(bytes.data(), n);
      bytes.remove_prefix(n);
      if (filling_.size() == chunk_bytes_) SendFilling();
    }
    return Status::OK();
  }

  // Ends the outgoing stream and receives until the incoming one ends.
  // Returns the first consumer error.
  Status Finish() {
    SendFilling();
    WaitSent();
    MPI_Isend(in_flight_.data(), 0, MPI_CHAR, to_, tag_, MPI_COMM_WORLD, &request_);
    sending_ = true;
    WaitSent();
    while (!received_end_) {
      MPI_Status status;
      MPI_Probe(from_, tag_, MPI_COMM_WORLD, &status);
      Receive(status);
    }
    return consumer_error_;
  }

 private:
  void SendFilling() {
    WaitSent();
    if (filling_.empty()) return;
    std::swap(filling_, in_flight_);
    filling_.clear();
    MPI_Isend(in_flight_.data(), static_cast<int>(in_flight_.size()), MPI_CHAR, to_, tag_,
              MPI_COMM_WORLD, &request_);
    sending_ = true;
    stats_->bytes_sent += in_flight_.size();
  }

  // Waits for the chunk in flight, taking incoming messages meanwhile: the
  // partner we send to may itself be waiting for us to receive.
  void WaitSent() {
    while (sending_) {
      int done = 0;
      MPI_Test(&request_, &done, MPI_STATUS_IGNORE);
      if (done) {
        sending_ = false;
        return;
      }
      int arrived = 0;
      MPI_Status status;
      if (!received_end_) MPI_Iprobe(from_, tag_, MPI_COMM_WORLD, &arrived, &status);
      if (arrived) Receive(status);
    }
  }

  void Receive(const MPI_Status& status) {
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    received_.resize(count);
    MPI_Recv(received_.data(), count, MPI_CHAR, from_, tag_, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (count == 0) received_end_ = true;
    if (consumer_error_.ok()) consumer_error_ = consume_(from_, received_);
  }

  const int to_, from_, tag_;
  const size_t chunk_bytes_;
  const StreamConsumer& consume_;
  ExchangeStats* const stats_;
  std::string filling_, in_flight_, received_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  bool sending_ = false;
  bool received_end_ = false;
  Status consumer_error_;
};

}  // namespace

Status ExchangeStreams(MpiWorld* world, size_t chunk_bytes, const StreamProducer& produce,
                       const StreamConsumer& consume, ExchangeStats* stats) {
  const int n = world->size(), me = world->rank();
  Status first;
  const auto keep = [&](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  {
    LocalSink own(me, consume);
    keep(produce(me, &own));
    keep(consume(me, {}));
  }
  for (int step = 1; step < n; ++step) {
    RemoteStep remote((me + step) % n, (me - step + n) % n, /*tag=*/1 + step, chunk_bytes, consume,
                      stats);
    // A producer that fails ends its stream early: the partner still gets its end.
    keep(first.ok() ? produce((me + step) % n, &remote) : Status::OK());
    keep(remote.Finish());
  }
  return first;
}

Status SendFile(const std::string& path, StreamSink* sink) {
  SequentialFile file;
  SG_RETURN_IF_ERROR(file.Open(path));
  std::string buffer(size_t{1} << 20, '\0');
  for (;;) {
    size_t got = 0;
    SG_RETURN_IF_ERROR(file.Read(buffer.data(), buffer.size(), &got));
    if (got == 0) return Status::OK();
    SG_RETURN_IF_ERROR(sink->Write(std::string_view(buffer.data(), got)));
  }
}

StreamFiles::StreamFiles(std::vector<std::string> paths)
    : paths_(std::move(paths)), files_(paths_.size()), written_(paths_.size(), false) {}

Status StreamFiles::Consume(int from, std::string_view bytes) {
  std::unique_ptr<WritableFile>& file = files_[from];
  if (bytes.empty()) {
    if (file == nullptr) return Status::OK();
    const Status s = file->Close(/*sync=*/false);
    file.reset();  // its buffer too: one file is open at a time
    return s;
  }
  if (file == nullptr) {
    file = std::make_unique<WritableFile>();
    // Chunks arrive whole (a MiB): a small buffer only joins the last ones.
    SG_RETURN_IF_ERROR(file->Open(paths_[from], size_t{64} << 10));
    written_[from] = true;
  }
  return file->Append(bytes);
}

std::vector<std::string> StreamFiles::written() const {
  std::vector<std::string> paths;
  for (size_t r = 0; r < paths_.size(); ++r) {
    if (written_[r]) paths.push_back(paths_[r]);
  }
  return paths;
}

}  // namespace streamglove
