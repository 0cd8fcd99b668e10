// The process's one oneDNN engine and each thread's stream, for the files that include dnnl.hpp (base/gemm_dnnl.cc,
// ops/dnnl_rnn.cc; only with TW_HAVE_DNNL in a float build). Defined in base/gemm_dnnl.cc.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

namespace twin {

dnnl::engine& dnnl_cpu_engine();
// A CPU stream executes synchronously in the caller, and oneDNN does not promise that one stream object may be used
// from two threads at once (the suite's products may run inside parallel regions), so each thread keeps its own.
dnnl::stream& dnnl_thread_stream();

}  // namespace twin
