// Logging for the server: stderr or a file, never stdout (stdout carries the
// protocol alone).
#pragma once
#include <string>

namespace engram {

// Opens the log file (append); empty = stderr. Returns false when it cannot.
bool openLog(const std::string& path);
void logLine(const std::string& line);

} // namespace engram
