// MpiWorld: the MPI job this process is one rank of (MPI_COMM_WORLD), and
// the few collectives the distributed ingest builds on.
//
// Errors: every collective here is entered by all ranks. A phase that fails
// on some ranks ends on all of them through Agree(), which hands every rank
// the lowest failing rank's Status, so the job prints one error line (rank
// 0's) and exits non-zero everywhere, without MPI_Abort. A rank that dies
// (kill -9) makes the launcher end the job; the store is then as after a
// killed single-process ingest, and rerunning the command resumes.
//
// Thread-safety: MPI is initialised with MPI_THREAD_FUNNELED: only the
// thread that created the MpiWorld calls MPI; worker threads never do.
#ifndef STREAMGLOVE_COOCCUR_MPI_MPI_WORLD_H_
#define STREAMGLOVE_COOCCUR_MPI_MPI_WORLD_H_

#include <memory>
#include <string>
#include <vector>

#include "streamglove/status.h"

namespace streamglove {

class MpiWorld {
 public:
  // Initialises MPI; one MpiWorld per process, finalised by its destructor.
  static Status Init(std::unique_ptr<MpiWorld>* world);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Collective: OK on every rank when `s` is OK on every rank; otherwise the
  // Status of the lowest rank whose `s` failed, on every rank.
  Status Agree(const Status& s);
  // Collective: rank 0's *text on every rank.
  void Broadcast(std::string* text);
  // Collective: every rank's `text` at rank 0, in rank order; other ranks
  // get an empty vector.
  void Gather(const std::string& text, std::vector<std::string>* all);
  // Collective: the sum over ranks of `value`, on every rank.
  uint64_t Sum(uint64_t value);
  // Collective: the largest `value` of any rank, on every rank.
  double Max(double value);

 private:
  MpiWorld(int rank, int size) : rank_(rank), size_(size) {}
  const int rank_, size_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_MPI_MPI_WORLD_H_
