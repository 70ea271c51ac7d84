// The fill recipe of ascendc-conformance (conformance/format/fill.py, and FORMAT.md of every pack): the bytes of
// a case's memory region from its seed, size and address. A harness that runs a certification pack rebuilds
// every region with it. Header-only, C++17, no dependency.
//
//   seed 0: zeros;
//   else SplitMix64, counter-based: 64-bit word i = mix(seed + (i + 1) * 0x9E3779B97F4A7C15), little-endian,
//   the region being the first `size` bytes of words 0, 1, ...;
//   half_nan_to_inf: every 16-bit little-endian word at an even absolute address (address + offset) wholly
//   inside the region whose exponent bits 0x7C00 are all set gets `w &= 0xFC00` (half NaN -> infinity).
#ifndef ASCENDC_CONFORMANCE_FILL_HPP
#define ASCENDC_CONFORMANCE_FILL_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ascendc_fill {

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

inline std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// The bytes of one region: `size` bytes from `seed`, starting at absolute `address` (which only the half-NaN
// fix looks at).
inline std::vector<std::uint8_t> region_bytes(std::uint64_t seed, std::size_t size, std::uint64_t address,
                                              bool half_nan_to_inf) {
    std::vector<std::uint8_t> data(size, 0);
    if (seed != 0) {
        for (std::size_t i = 0; i < size; ++i) {
            if (i % 8 == 0) {
                // word i / 8, written little-endian byte by byte (independent of the host's byte order)
                const std::uint64_t word = mix(seed + (static_cast<std::uint64_t>(i / 8) + 1) * kGolden);
                for (std::size_t b = 0; b < 8 && i + b < size; ++b) {
                    data[i + b] = static_cast<std::uint8_t>(word >> (8 * b));
                }
            }
        }
    }
    if (half_nan_to_inf) {
        for (std::size_t i = address % 2; i + 1 < size; i += 2) {
            const std::uint16_t half = static_cast<std::uint16_t>(data[i] | (data[i + 1] << 8));
            if ((half & 0x7C00) == 0x7C00) {
                const std::uint16_t fixed = half & 0xFC00;
                data[i] = static_cast<std::uint8_t>(fixed & 0xFF);
                data[i + 1] = static_cast<std::uint8_t>(fixed >> 8);
            }
        }
    }
    return data;
}

}  // namespace ascendc_fill

#endif
