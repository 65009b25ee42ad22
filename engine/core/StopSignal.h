// SIGINT and SIGTERM as a request to stop: the first one is recorded (the app finishes what it
// writes and exits 128 + the signal), a second one ends the process at once (the default action
// restored, SA_RESETHAND). SIGXFSZ is ignored, so a write past the file-size limit fails with
// EFBIG (a "disk full" the writers report) instead of ending the process. Any thread may ask.
#pragma once

namespace tandem {

/// Installs the handlers (idempotent).
void installStopSignals();
/// The signal that asked to stop (SIGINT, SIGTERM), or 0.
int stopSignal();

} // namespace tandem
