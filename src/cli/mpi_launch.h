// Whether this process is one rank of an MPI job, told from the launcher's
// environment without initialising MPI (so a build without MPI can say it
// cannot take part).
#ifndef STREAMGLOVE_CLI_MPI_LAUNCH_H_
#define STREAMGLOVE_CLI_MPI_LAUNCH_H_

#include <cstdlib>

namespace streamglove {

// True when an MPI launcher started this process: mpirun/mpiexec (Open
// MPI's OMPI_COMM_WORLD_SIZE) or a PMI/PMIx launcher such as Slurm's srun
// (PMIX_RANK, PMI_RANK).
inline bool StartedByMpiLauncher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

// This process's rank as the launcher numbers it (OMPI_COMM_WORLD_RANK,
// PMIX_RANK, PMI_RANK); 0 when none says.
inline int MpiLauncherRank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* value = std::getenv(name)) return std::atoi(value);
  }
  return 0;
}

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_MPI_LAUNCH_H_
