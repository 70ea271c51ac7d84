// ascendc-fill: write the bytes of one memory region made by the fill recipe (fill.hpp) to stdout.
//
//   ascendc-fill SEED SIZE ADDRESS [--half-nan-to-inf]
//
// What a non-Python harness of a certification pack computes for every region; tests/unit/test_fill.py checks
// that it gives the same bytes as the suite's own recipe.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "fill.hpp"

int main(int argc, char** argv) {
    if (argc < 4 || argc > 5 || (argc == 5 && std::strcmp(argv[4], "--half-nan-to-inf") != 0)) {
        std::fprintf(stderr, "usage: ascendc-fill SEED SIZE ADDRESS [--half-nan-to-inf]\n");
        return 2;
    }
    try {
        const std::uint64_t seed = std::stoull(argv[1]);
        const std::size_t size = static_cast<std::size_t>(std::stoull(argv[2]));
        const std::uint64_t address = std::stoull(argv[3]);
        const auto data = ascendc_fill::region_bytes(seed, size, address, argc == 5);
        std::fwrite(data.data(), 1, data.size(), stdout);
    } catch (const std::exception& problem) {
        std::fprintf(stderr, "ascendc-fill: %s\n", problem.what());
        return 2;
    }
    return 0;
}
