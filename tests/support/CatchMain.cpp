// The Catch2 runner shared by every test binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
