// A scratch directory removed at the end of the test, so tests use real
// files without leaving any behind.
#pragma once
#include <string>

namespace engram::test {

class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }
    // Writes a file (creating parent directories).
    void write(const std::string& rel, const std::string& contents) const;

private:
    std::string path_;
};

} // namespace engram::test
