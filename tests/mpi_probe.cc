// twin_mpi_probe: core/train/dist.h's collectives on hand-made values, run by tests/test_mpi.cc under
// `mpirun -np N` (N = 2 and 3). Exit 0 and "mpi_probe: ok" on rank 0 when every check holds on every rank.
//  - allreduce_grads sums: rank r sets grad[i] = (r + 1) * (i + 1), so every rank must read
//    (i + 1) * N (N + 1) / 2, in a dense parameter and in one larger than a bucket (4M + 3 floats: the
//    bucket boundary is crossed);
//  - row-sparse gradients: rank r touches only row r of an embedding; afterwards every rank has rows 0..N-1
//    touched (the union) with gradient 1 in them and 0 elsewhere, and the last row untouched;
//  - broadcast_params: rank r's values r + 10 become rank 0's 10 everywhere;
//  - check_same: with `--differ`, rank N-1 passes other text and must fail naming the line, the others pass.
#include <cmath>
#include <cstdio>
#include <string>

#include "base/check.h"
#include "graph/init.h"
#include "graph/param.h"
#include "train/dist.h"

using namespace twin;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "mpi_probe: %sFAILED %s\n", dist::who().c_str(), what.c_str());
  ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  dist::init(&argc, &argv);
  const bool differ = argc > 1 && std::string(argv[1]) == "--differ";
  const int r = dist::rank(), n = dist::size();
  const double tri = n * (n + 1) / 2.0;
  if (differ) {
    try {
      dist::check_same("the probe text", r == n - 1 ? "same\nother line\n" : "same\nline\n");
      expect(r != n - 1, "check_same passed on the rank whose text differs");
    } catch (const Error& e) {
      const std::string m = e.what();
      expect(r == n - 1, "check_same failed on a rank whose text is rank 0's: " + m);
      expect(m.find("the probe text differs from rank 0's at line 2: rank 0 has 'line', this rank 'other line'") !=
                 std::string::npos,
             "check_same message: " + m);
    }
  } else {
    ParamStore store(1);
    Param& dense = store.add("dense", 3, 2, init::uniform(0.1));
    Param& big = store.add("big", (Index(1) << 22) + 3, 1, init::uniform(0.1));
    Param& emb = store.add("emb", n + 1, 2, init::uniform(0.1));
    for (Param* p : {&dense, &big}) {
      for (Index i = 0; i < p->grad.size(); ++i) p->grad.data()[i] = static_cast<Real>((r + 1) * ((i % 1000) + 1));
      p->mark_all();
    }
    emb.grad.setZero();
    emb.grad.row(r).setOnes();
    emb.mark_row(r);
    dist::allreduce_grads(store);
    for (Param* p : {&dense, &big}) {
      double worst = 0;
      for (Index i = 0; i < p->grad.size(); ++i)
        worst = std::max(worst, std::abs(p->grad.data()[i] - ((i % 1000) + 1) * tri));
      expect(worst == 0, p->name + ": summed gradient off by " + std::to_string(worst));
      expect(p->all_touched, p->name + ": dense flag lost");
    }
    for (int row = 0; row <= n; ++row) {
      const bool want = row < n;
      expect(emb.row_touched(row) == want, "emb row " + std::to_string(row) + " touched flag");
      expect(emb.grad.row(row).isConstant(want ? 1 : 0), "emb row " + std::to_string(row) + " gradient");
    }
    expect(!emb.all_touched, "emb became dense");
    dense.value.setConstant(static_cast<Real>(r + 10));
    dist::broadcast_params(store);
    expect(dense.value.isConstant(10), "broadcast_params: not rank 0's values");
  }
  // Every rank's verdict reaches rank 0 (a sum of failure counts).
  double bad = failures;
  dist::allreduce_sum(&bad, 1);
  if (dist::is_root()) std::printf("mpi_probe: %s (%d ranks, %s)\n", bad == 0 ? "ok" : "FAILED", n, differ ? "check_same" : "collectives");
  dist::barrier();
  dist::finalize();
  return bad == 0 ? 0 : 1;
}
