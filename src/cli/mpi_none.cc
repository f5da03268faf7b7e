// Built without MPI: one process, always.
#include "cli/mpi.h"

namespace mlprof::cli {

std::unique_ptr<app::Comm> StartMpi(int*, char***) { return nullptr; }

}  // namespace mlprof::cli
