// SIGINT/SIGTERM -> a flag the trainer polls after each step, so an interrupted run saves a checkpoint
// and exits cleanly. A second signal while stopping restores the default action (a hard stop).
#pragma once

namespace twin {

void install_stop_signals();
bool stop_requested();
int stop_signal();          // the signal number that asked to stop, 0 if none
void clear_stop_request();  // tests

}  // namespace twin
