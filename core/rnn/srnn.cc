#include "rnn/srnn.h"

namespace twin {

SrnnCell::SrnnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("srnn", cfg, input_dim, kOptions) {
  w_ = &add_param(store, scope, "W", I(), H(), weight_init(cfg));
  u_ = &add_param(store, scope, "U", H(), H(), weight_init(cfg));
  if (parse_has_bias(cfg)) b_ = &add_param(store, scope, "b", 1, H(), bias_init(cfg));
}

}  // namespace twin
