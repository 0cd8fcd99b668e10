#include "train/signals.h"

#include <atomic>
#include <csignal>

namespace twin {

namespace {
// Process-wide by nature: signals are delivered to the process, not to a Graph or a trainer.
std::atomic<int> g_signal{0};

extern "C" void on_stop_signal(int sig) {
  g_signal.store(sig);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C stops at once
}
}  // namespace

void install_stop_signals() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

bool stop_requested() { return g_signal.load() != 0; }
int stop_signal() { return g_signal.load(); }
void clear_stop_request() { g_signal.store(0); }

}  // namespace twin
