#include "cli/commands.h"
#include "cli/mpi.h"

int main(int argc, char** argv) {
  auto comm = mlprof::cli::StartMpi(&argc, &argv);
  return mlprof::RunMain(argc, argv, std::move(comm));
}
