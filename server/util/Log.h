// Logging for the server: stderr or a file, never stdout (stdout carries the
// protocol alone).
#pragma once
#include <exception>
#include <string>
#include <string_view>

namespace engram {

// Opens the log file (append); empty = stderr. Returns false when it cannot.
bool openLog(const std::string& path);
void logLine(const std::string& line);
// Closes a log file; back to no log at all (a one-shot command's state).
void closeLog();
// What the core dropped to go on serving (a count not written, a cache not
// kept, a setup not made), and why: logged when the process keeps a log (a
// server, which called openLog), silent in a one-shot command, whose
// stderr is the user's and whose answer already says what matters.
void logDropped(std::string_view what, const std::exception& e);

} // namespace engram
