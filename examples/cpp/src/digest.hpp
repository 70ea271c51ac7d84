// The wire extension region-digest (docs/target-protocol.md "Wire extensions"): an answer's region as the SHA-256
// of its bytes, from OpenSSL's libcrypto. Built only where CMake finds OpenSSL (EXAMPLE_REGION_DIGEST): without it
// the target does not announce region-digest and answers bytes, as the protocol lets any target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace example {

#ifdef EXAMPLE_REGION_DIGEST
inline constexpr bool kRegionDigest = true;
#else
inline constexpr bool kRegionDigest = false;
#endif

// The SHA-256 of `bytes` in lowercase hex (64 digits). Only where kRegionDigest; throws std::runtime_error if
// libcrypto fails.
std::string sha256_hex(const std::vector<std::uint8_t>& bytes);

}  // namespace example
