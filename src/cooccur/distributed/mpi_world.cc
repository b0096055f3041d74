#include "cooccur/distributed/mpi_world.h"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

namespace streamglove {

namespace {

// Point-to-point tags: the stream exchange uses 1 + its step.
constexpr int kGatherTag = 32000;
// Texts (plans, vocabulary shares) move in pieces of at most this many
// bytes, so every MPI count fits an int.
constexpr uint64_t kMessageBytes = uint64_t{1} << 30;

Status StatusWithCode(int code, std::string message) {
  switch (static_cast<Status::Code>(code)) {
    case Status::Code::kOk:
      return Status::OK();
    case Status::Code::kNotFound:
      return Status::NotFound(std::move(message));
    case Status::Code::kCorruption:
      return Status::Corruption(std::move(message));
    case Status::Code::kInvalidArgument:
      return Status::InvalidArgument(std::move(message));
    case Status::Code::kBusy:
      return Status::Busy(std::move(message));
    case Status::Code::kInterrupted:
      return Status::Interrupted(std::move(message));
    case Status::Code::kIOError:
      break;
  }
  return Status::IOError(std::move(message));
}

}  // namespace

Status MpiWorld::Init(std::unique_ptr<MpiWorld>* world) {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    return Status::IOError("MPI_Init_thread failed");
  }
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    return Status::IOError(
        "this MPI library does not allow threads beside the one that calls it "
        "(MPI_THREAD_FUNNELED), which the ingest's workers need");
  }
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  world->reset(new MpiWorld(rank, size));
  return Status::OK();
}

MpiWorld::~MpiWorld() { MPI_Finalize(); }

Status MpiWorld::Agree(const Status& s) {
  // The lowest failing rank (size_ if none), then its status from it.
  const int mine = s.ok() ? size_ : rank_;
  int first = size_;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size_) return Status::OK();
  std::string text;
  if (rank_ == first) text = fmt::format("{}\n{}", static_cast<int>(s.code()), s.message());
  uint64_t length = text.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, first, MPI_COMM_WORLD);
  text.resize(length);
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, first, MPI_COMM_WORLD);
  const size_t newline = text.find('\n');
  return StatusWithCode(std::atoi(text.substr(0, newline).c_str()), text.substr(newline + 1));
}

void MpiWorld::Broadcast(std::string* text) {
  uint64_t length = text->size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  text->resize(length);
  for (uint64_t at = 0; at < length; at += kMessageBytes) {
    MPI_Bcast(text->data() + at, static_cast<int>(std::min(kMessageBytes, length - at)), MPI_CHAR,
              0, MPI_COMM_WORLD);
  }
}

void MpiWorld::Gather(const std::string& text, std::vector<std::string>* all) {
  all->clear();
  const uint64_t length = text.size();
  std::vector<uint64_t> lengths(rank_ == 0 ? size_ : 0);
  MPI_Gather(&length, 1, MPI_UINT64_T, lengths.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  // Point to point, in pieces: a vocabulary share may pass an int count.
  if (rank_ != 0) {
    for (uint64_t at = 0; at < length; at += kMessageBytes) {
      MPI_Send(text.data() + at, static_cast<int>(std::min(kMessageBytes, length - at)), MPI_CHAR,
               0, kGatherTag, MPI_COMM_WORLD);
    }
    return;
  }
  all->resize(size_);
  (*all)[0] = text;
  for (int r = 1; r < size_; ++r) {
    std::string& share = (*all)[r];
    share.resize(lengths[r]);
    for (uint64_t at = 0; at < lengths[r]; at += kMessageBytes) {
      MPI_Recv(share.data() + at, static_cast<int>(std::min(kMessageBytes, lengths[r] - at)),
               MPI_CHAR, r, kGatherTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
}

uint64_t MpiWorld::Sum(uint64_t value) {
  uint64_t sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

double MpiWorld::Max(double value) {
  double max = 0;
  MPI_Allreduce(&value, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return max;
}

}  // namespace streamglove
