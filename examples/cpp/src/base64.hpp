// Base64 (RFC 4648, standard alphabet, with padding): how the case format carries memory images.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace example {

// The canonical encoding of `bytes` (what the suite's Python side writes with base64.b64encode).
std::string base64_encode(const std::vector<std::uint8_t>& bytes);

// Strict decoding, as the suite's own reader does it (Python's base64.b64decode(text, validate=True)): only
// the 64 alphabet characters, a length that is a multiple of 4, and '=' padding only at the very end (at
// most two). Anything else is not a memory image: std::nullopt.
std::optional<std::vector<std::uint8_t>> base64_decode(const std::string& text);

}  // namespace example
