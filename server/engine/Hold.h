// A test seam for the threads a server starts beside its requests (the
// claims' start-up sweep, the listing of the workspace, the code walk).
// Private to engine/.
#pragma once
#include <atomic>
#include <string>

namespace engram {

// Waits while the file at `hold` exists (EngineOptions::reconcileHold), or
// until `cancel` is set; returns at once for an empty path.
void waitWhileHeld(const std::string& hold, const std::atomic<bool>* cancel);

} // namespace engram
