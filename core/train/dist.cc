#include "train/dist.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "base/check.h"

#ifdef TW_HAVE_MPI
#include <mpi.h>
#endif

namespace twin::dist {

namespace {
int g_rank = 0, g_size = 1;
bool g_mpi = false;   // MPI_Init was called (and MPI_Finalize not yet)
// Few, large calls: a step's gradients go in buckets of this many floats (16 MiB), so a big model never needs
// a second full-size buffer inside MPI and a small one makes a single call.
constexpr std::size_t kBucket = std::size_t(1) << 22;

// The environment an MPI launcher (Open MPI's mpirun, PMI/PMIx launchers such as srun) gives its processes.
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}
}  // namespace

std::size_t Shard::begin(std::size_t n) const {
  const std::size_t s = static_cast<std::size_t>(size), r = static_cast<std::size_t>(rank);
  return r * (n / s) + std::min(r, n % s);
}
std::size_t Shard::end(std::size_t n) const { return Shard{rank + 1, size}.begin(n); }

bool built_with_mpi() {
#ifdef TW_HAVE_MPI
  return true;
#else
  return false;
#endif
}

void init(int* argc, char*** argv) {
#ifdef TW_HAVE_MPI
  int done = 0;
  MPI_Initialized(&done);
  if (done || !launched_by_mpi()) return;
  MPI_Init(argc, argv);
  g_mpi = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
#else
  (void)argc;
  (void)argv;
  const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (n && std::atoi(n) > 1) {
    // Started by mpirun with several ranks, but built without MPI: every rank would train alone and they
    // would overwrite each other's run folder.
    std::fprintf(stderr, "error: started by mpirun with %s ranks, but this binary was built without MPI "
                         "(HINT: install libopenmpi-dev, re-run cmake and rebuild)\n", n);
    std::exit(2);
  }
#endif
}

void finalize() {
#ifdef TW_HAVE_MPI
  if (!g_mpi) return;
  MPI_Finalize();
  g_mpi = false;
#endif
}

int rank() { return g_rank; }
int size() { return g_size; }

std::string who() { return active() ? "rank " + std::to_string(g_rank) + "/" + std::to_string(g_size) + ": " : ""; }

void allreduce_sum(float* data, std::size_t n) {
#ifdef TW_HAVE_MPI
  if (!active()) return;
  for (std::size_t at = 0; at < n; at += kBucket)
    MPI_Allreduce(MPI_IN_PLACE, data + at, static_cast<int>(std::min(kBucket, n - at)), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
#else
  (void)data, (void)n;
#endif
}

void allreduce_sum(double* data, std::size_t n) {
#ifdef TW_HAVE_MPI
  if (!active()) return;
  for (std::size_t at = 0; at < n; at += kBucket)
    MPI_Allreduce(MPI_IN_PLACE, data + at, static_cast<int>(std::min(kBucket, n - at)), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
#else
  (void)data, (void)n;
#endif
}

void broadcast(float* data, std::size_t n) {
#ifdef TW_HAVE_MPI
  if (!active()) return;
  for (std::size_t at = 0; at < n; at += kBucket)
    MPI_Bcast(data + at, static_cast<int>(std::min(kBucket, n - at)), MPI_FLOAT, 0, MPI_COMM_WORLD);
#else
  (void)data, (void)n;
#endif
}

void broadcast(double* data, std::size_t n) {
#ifdef TW_HAVE_MPI
  if (!active()) return;
  for (std::size_t at = 0; at < n; at += kBucket)
    MPI_Bcast(data + at, static_cast<int>(std::min(kBucket, n - at)), MPI_DOUBLE, 0, MPI_COMM_WORLD);
#else
  (void)data, (void)n;
#endif
}

void broadcast(std::string& s) {
#ifdef TW_HAVE_MPI
  if (!active()) return;
  unsigned long long n = s.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  s.resize(n);
  if (n) MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
#else
  (void)s;
#endif
}

void barrier() {
#ifdef TW_HAVE_MPI
  if (active()) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void check_same(const std::string& what, const std::string& mine) {
  if (!active()) return;
  std::string root = mine;
  broadcast(root);
  if (root == mine) return;
  std::size_t line = 1, a = 0, b = 0;
  for (;;) {   // the first line where they differ
    const std::size_t ea = std::min(root.find('\n', a), root.size()), eb = std::min(mine.find('\n', b), mine.size());
    if (root.compare(a, ea - a, mine, b, eb - b) != 0 || ea == root.size() || eb == mine.size()) {
      auto cut = [](std::string s) { return s.size() > 120 ? s.substr(0, 117) + "..." : s; };
      TW_FAIL(what, " differs from rank 0's at line ", line, ": rank 0 has '", cut(root.substr(a, ea - a)),
              "', this rank '", cut(mine.substr(b, eb - b)), "' (every rank must run the same experiment on the same ",
              "data: is a file different on this node?)");
    }
    a = ea + 1, b = eb + 1, ++line;
  }
}

void abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
#ifdef TW_HAVE_MPI
  if (g_mpi) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

namespace {
// Real is float or double (the double build never runs MPI, but must compile).
void sum_reals(Real* data, std::size_t n) { allreduce_sum(data, n); }
void bcast_reals(Real* data, std::size_t n) { broadcast(data, n); }
}  // namespace

void allreduce_grads(ParamStore& store) {
  if (!active()) return;
  std::vector<Param*> ps;
  std::size_t n = 0, rows = 0;
  for (const auto& p : store.all())
    if (p->trainable) ps.push_back(p.get()), n += static_cast<std::size_t>(p->grad.size()),
                                             rows += static_cast<std::size_t>(p->value.rows()) + 1;
  // Which rows carry gradient (row-sparse embeddings): the union over ranks, so every rank's optimiser and
  // zero_grad see the rows any rank touched. Byte 0 of a param: a dense op wrote it somewhere.
  static std::vector<unsigned char> flags;   // reused: no allocation per step once grown
  flags.assign(rows, 0);
  std::size_t at = 0;
  for (Param* p : ps) {
    flags[at] = p->all_touched;
    for (std::size_t r = 0; r < p->touched.size(); ++r) flags[at + 1 + r] = p->touched[r];
    at += static_cast<std::size_t>(p->value.rows()) + 1;
  }
#ifdef TW_HAVE_MPI
  MPI_Allreduce(MPI_IN_PLACE, flags.data(), static_cast<int>(flags.size()), MPI_UNSIGNED_CHAR, MPI_MAX,
                MPI_COMM_WORLD);
#endif
  at = 0;
  for (Param* p : ps) {
    const std::size_t r = static_cast<std::size_t>(p->value.rows());
    if (flags[at]) {
      p->all_touched = true;
    } else if (std::any_of(flags.begin() + static_cast<long>(at) + 1, flags.begin() + static_cast<long>(at + 1 + r),
                           [](unsigned char c) { return c != 0; })) {
      p->touched.assign(flags.begin() + static_cast<long>(at) + 1, flags.begin() + static_cast<long>(at + 1 + r));
    }
    at += r + 1;
  }
  // The gradients: one flat buffer, summed in buckets, copied back.
  static std::vector<Real> buf;
  buf.resize(n);
  at = 0;
  for (Param* p : ps) {
    std::copy(p->grad.data(), p->grad.data() + p->grad.size(), buf.data() + at);
    at += static_cast<std::size_t>(p->grad.size());
  }
  sum_reals(buf.data(), n);
  at = 0;
  for (Param* p : ps) {
    std::copy(buf.data() + at, buf.data() + at + p->grad.size(), p->grad.data());
    at += static_cast<std::size_t>(p->grad.size());
  }
}

Mat gather_rows(const Mat& mine) {
  if (!active()) return mine;
#ifdef TW_HAVE_MPI
  const MPI_Datatype type = sizeof(Real) == sizeof(float) ? MPI_FLOAT : MPI_DOUBLE;
  long long shape[2] = {mine.rows(), mine.cols()};
  std::vector<long long> shapes(2 * static_cast<std::size_t>(g_size));
  MPI_Gather(shape, 2, MPI_LONG_LONG, shapes.data(), 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  std::vector<int> counts(static_cast<std::size_t>(g_size)), displs(counts.size());
  Index rows = 0;
  if (is_root()) {
    for (int r = 0; r < g_size; ++r) {
      const long long rr = shapes[2 * r], cc = shapes[2 * r + 1];
      TW_CHECK(rr == 0 || cc == mine.cols(), "gather_rows: rank ", r, " has ", cc, " columns, rank 0 ", mine.cols());
      counts[static_cast<std::size_t>(r)] = static_cast<int>(rr * mine.cols());
      displs[static_cast<std::size_t>(r)] = static_cast<int>(rows * mine.cols());
      rows += static_cast<Index>(rr);
    }
  }
  Mat all(is_root() ? rows : 0, mine.cols());   // row-major: each rank's block is contiguous
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), type, all.data(), counts.data(), displs.data(), type, 0,
              MPI_COMM_WORLD);
  return all;
#else
  return mine;
#endif
}

void broadcast_params(ParamStore& store) {
  if (!active()) return;
  for (const auto& p : store.all()) bcast_reals(p->value.data(), static_cast<std::size_t>(p->value.size()));
}

}  // namespace twin::dist
