// The MPI world, when mlprof runs under mpirun or srun (MLPROF_MPI builds):
// null when not launched by an MPI launcher, or built without MPI.
#pragma once

#include <memory>

#include "app/distributed.h"

namespace mlprof::cli {

std::unique_ptr<app::Comm> StartMpi(int* argc, char*** argv);

}  // namespace mlprof::cli
