// The MPI transport of app/distributed.h (OpenMPI from Debian). MPI starts
// only when a launcher started this process (mpirun, srun): a plain
// `mlprof` never initialises MPI. Only the main thread calls MPI.
#include "cli/mpi.h"

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>

namespace mlprof::cli {
namespace {

// Messages go in pieces of at most 1 GiB (MPI counts are ints).
constexpr uint64_t kPiece = uint64_t{1} << 30;

class MpiComm : public app::Comm {
 public:
  MpiComm() {
    MPI_Comm_rank(MPI_COMM_WORLD, &process_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiComm() override { MPI_Finalize(); }
  int process() const override { return process_; }
  int size() const override { return size_; }

  std::vector<std::string> AllGather(std::string bytes) override {
    std::vector<std::string> all = Gather(std::move(bytes));
    // Process 0 sends every piece to every process.
    uint64_t n = all.size();
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    all.resize(n);
    for (std::string& s : all) {
      uint64_t len = s.size();
      MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
      s.resize(len);
      for (uint64_t at = 0; at < len; at += kPiece)
        MPI_Bcast(s.data() + at, static_cast<int>(std::min(kPiece, len - at)), MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    return all;
  }

  std::vector<std::string> Gather(std::string bytes) override {
    if (process_ != 0) {
      uint64_t len = bytes.size();
      MPI_Send(&len, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
      for (uint64_t at = 0; at < len; at += kPiece)
        MPI_Send(bytes.data() + at, static_cast<int>(std::min(kPiece, len - at)), MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      return {};
    }
    std::vector<std::string> all(static_cast<size_t>(size_));
    all[0] = std::move(bytes);
    for (int p = 1; p < size_; ++p) {
      uint64_t len = 0;
      MPI_Recv(&len, 1, MPI_UINT64_T, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      std::string& s = all[static_cast<size_t>(p)];
      s.resize(len);
      for (uint64_t at = 0; at < len; at += kPiece)
        MPI_Recv(s.data() + at, static_cast<int>(std::min(kPiece, len - at)), MPI_BYTE, p, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
    return all;
  }

 private:
  int process_ = 0, size_ = 1;
};

bool LaunchedByMpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace

std::unique_ptr<app::Comm> StartMpi(int* argc, char*** argv) {
  if (!LaunchedByMpi()) return nullptr;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  return std::make_unique<MpiComm>();
}

}  // namespace mlprof::cli
