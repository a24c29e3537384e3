// The `engram` executable.
#include "cli/Cli.h"

int main(int argc, char** argv) {
    return engram::cli::run(argc, argv);
}
