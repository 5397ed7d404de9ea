// The single Catch2 main for the native test binary (all tests/cpp/*.cpp link into one executable).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
