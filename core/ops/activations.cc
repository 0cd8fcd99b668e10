#include "ops/activations.h"

namespace twin {

Mat sigmoid(const Mat& x) { return (Real(1) + (-x.array()).exp()).inverse().matrix(); }

// y = 1 / (1 + e^-x)     dx += dy y (1 - y)
Var sigmoid(Var x) {
  return x.g->record("sigmoid", x.g->take_eval((Real(1) + (-x.val().array()).exp()).inverse().matrix()), {x}, [x](Graph& g, NodeId self) {
    const auto y = g.value(self).array();
    g.accumulate(x.id, g.grad(self).array() * y * (Real(1) - y));
  });
}

// y = tanh x             dx += dy (1 - y^2)
Var tanh(Var x) {
  Mat y = x.g->take_eval(x.val().array().tanh().matrix());
  return x.g->record("tanh", std::move(y), {x}, [x](Graph& g, NodeId self) {
    const auto y = g.value(self).array();
    g.accumulate(x.id, g.grad(self).array() * (Real(1) - y.square()));
  });
}

// y = max(x, 0)          dx += dy [x > 0]
Var relu(Var x) {
  Mat y = x.val().cwiseMax(Real(0));
  return x.g->record("relu", std::move(y), {x}, [x](Graph& g, NodeId self) {
    g.accumulate(x.id, (g.value(x.id).array() > 0).select(g.grad(self).array(), Real(0)));
  });
}

// y = e^x                dx += dy y
Var exp(Var x) {
  Mat y = x.val().array().exp().matrix();
  return x.g->record("exp", std::move(y), {x}, [x](Graph& g, NodeId self) {
    g.accumulate(x.id, g.grad(self).array() * g.value(self).array());
  });
}

// y = ln x               dx += dy / x
Var log(Var x) {
  TW_CHECK((x.val().array() > 0).all(), "log: input ", shape_str(x), " has entries <= 0");
  Mat y = x.val().array().log().matrix();
  return x.g->record("log", std::move(y), {x}, [x](Graph& g, NodeId self) {
    g.accumulate(x.id, g.grad(self).array() / g.value(x.id).array());
  });
}

// y = max(x, 0) + ln(1 + e^-|x|)     dx += dy σ(x)
Var softplus(Var x) {
  const auto xa = x.val().array();
  Mat y = x.g->take_eval((xa.max(Real(0)) + (-xa.abs()).exp().log1p()).matrix());
  return x.g->record("softplus", std::move(y), {x}, [x](Graph& g, NodeId self) {
    g.accumulate(x.id, g.grad(self).array() * (Real(1) + (-g.value(x.id).array()).exp()).inverse());
  });
}

// y = x + 1/2 (x >= 0), σ(x) (x < 0)     dx += dy (x >= 0 ? 1 : y (1 - y))
Var minrnn_g(Var x) {
  const auto xa = x.val().array();
  Mat y = x.g->take_eval((xa >= 0).select(xa + Real(0.5), (Real(1) + (-xa).exp()).inverse()).matrix());
  return x.g->record("minrnn_g", std::move(y), {x}, [x](Graph& g, NodeId self) {
    const auto y = g.value(self).array();
    g.accumulate(x.id, g.grad(self).array() * (g.value(x.id).array() >= 0).select(Real(1), y * (Real(1) - y)));
  });
}

}  // namespace twin
