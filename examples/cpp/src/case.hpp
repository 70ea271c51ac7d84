// A case of format 1 (docs/target-protocol.md "Case format v1"; conformance/format/schema/case-v1.schema.json), read from its
// JSON into plain structs, and the memory images written back into an answer.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace example {

// A case this program cannot read: a missing key, a wrong type, bad base64. The suite's reference answers
// such a case with {"status": "error"}, and so does this program (with the exception's message).
struct MalformedCase : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One side of the call: its TPosition (GM, VECIN, ...), its element type (half, int32_t, ...) and the
// absolute byte address of the tensor's start in the position's physical memory.
struct Operand {
    std::string position;
    std::string dtype;
    std::uint64_t address = 0;
    // True when the case's address is 2^64 or more: past the end of the 64-bit GM (the suite may place a call
    // that moves nothing, and so breaks another rule, at 2^64). JSON integers that large reach this program
    // as doubles, so only the fact is kept and `address` is 0.
    bool beyond_64_bits = false;
};

// One memory region of the case: the bytes of one physical memory (GM, UB, L1, ...) from `address` on.
// Only the case's regions exist; a call that reaches outside them breaks the rule Memory-bounds.
struct Region {
    std::uint64_t address = 0;
    std::vector<std::uint8_t> bytes;
};

struct Case {
    std::string api;
    std::string product;
    Operand src;
    Operand dst;
    // The parameters by their C++ struct field names ("count", or "blockCount", "blockLen", ...). A value
    // above INT64_MAX is read as INT64_MAX: it is out of every documented range either way.
    std::map<std::string, std::int64_t> params;
    std::map<std::string, Region> memory;   // physical memory name -> its region
};

// Read a case; throws MalformedCase naming the first key that is missing or of the wrong type.
Case parse_case(const nlohmann::json& raw);

// The "memory" object of an ok answer: every region, same address and length, data in base64; or, `digests`
// (the request asked for them: region-digest), each region's SHA-256 instead of its data.
nlohmann::json memory_json(const std::map<std::string, Region>& memory, bool digests = false);

}  // namespace example
