// Data-parallel training over MPI (Open MPI from Debian; optional at build time, TW_HAVE_MPI).
//
// `mpirun -np N build/bin/<task> exp.json` runs N ranks. Each rank reads the same data and builds the same
// global batches; the task computes the loss of its own share of every batch (Shard), normalised by the
// GLOBAL batch's denominator, so the sum over ranks of the shard gradients is exactly the full batch's
// gradient. The trainer sums gradients with in-place, bucketed MPI_Allreduce before clipping and the
// optimiser step, so every rank applies the same update and the parameters stay identical (they are also
// broadcast from rank 0 at start and after --resume). Rank 0 alone writes logs, metrics, checkpoints and
// outputs, and runs the evaluations; the others wait and receive the results.
//
// Without MPI (or in a process not started by an MPI launcher) everything here is a no-op for one rank, and
// the binaries behave exactly as before. MPI_Init is only called when a launcher's environment variables are
// present, so a plain run never touches MPI.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace twin::dist {

// The part of a global batch one rank computes.
struct Shard {
  int rank = 0;
  int size = 1;
  // [begin, end) of n items split into `size` contiguous blocks in rank order, the first n % size blocks one
  // longer (as even as possible; a rank may get nothing when n < size).
  std::size_t begin(std::size_t n) const;
  std::size_t end(std::size_t n) const;
  // This rank's items of a global batch of item indices (all of them for one rank), in batch order.
  std::vector<int> items(const std::vector<int>& batch) const {
    return {batch.begin() + static_cast<long>(begin(batch.size())), batch.begin() + static_cast<long>(end(batch.size()))};
  }
};

void init(int* argc, char*** argv);   // once, first thing in main (run_main); idempotent
void finalize();                      // at normal exit (after a barrier)
int rank();
int size();
inline bool active() { return size() > 1; }
inline bool is_root() { return rank() == 0; }
inline Shard shard() { return {rank(), size()}; }
bool built_with_mpi();

// In place, every rank gets the sum. Float buffers go in buckets of at most `bucket` elements.
void allreduce_sum(float* data, std::size_t n);
void allreduce_sum(double* data, std::size_t n);
// From rank 0 to every rank, in place.
void broadcast(float* data, std::size_t n);
void broadcast(double* data, std::size_t n);
void broadcast(std::string& s);
void barrier();
// Fails on every rank whose `mine` differs from rank 0's, naming `what` and the first differing line: ranks that
// train different models or data (a stale experiment file or corpus on one node) must stop, not diverge.
void check_same(const std::string& what, const std::string& mine);
// Ends every rank of the job (MPI_Abort): a failure on one rank must never leave the others waiting.
[[noreturn]] void abort(int code);

// On rank 0: every rank's rows of `mine` stacked in rank order (same column count everywhere); elsewhere an
// empty matrix. Row-sharded task state (e.g. the LM's carried hidden state) is gathered this way for the
// checkpoint, which is then the same file a single process writes.
Mat gather_rows(const Mat& mine);
// Gradients of every parameter summed over ranks (one flat buffer, bucketed calls).
void allreduce_grads(ParamStore& store);
// Every parameter's value from rank 0.
void broadcast_params(ParamStore& store);
// "rank r/N: " when active, "" otherwise: a prefix for messages a rank prints on its own.
std::string who();

}  // namespace twin::dist
