// DataCopy (count form and DataCopyParams form) on the 32-byte (DataBlock) routes of atlas-a2: which calls
// are legal, and what a legal call does to memory.
//
// Written from the suite's spec (spec/datacopy.yaml, spec/products.yaml, spec/dtypes.yaml, spec/common.yaml),
// which cites the vendor's page (seed 000) table by table; notes/semantics.md section 3.1 is the reading.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "case.hpp"

namespace example {

// What this target implements; its hello says exactly this (main.cpp).
inline const char* const kProduct = "atlas-a2";
inline const char* const kApi = "DataCopy";
inline const std::vector<std::string> kForms = {"count", "params"};

struct Route {
    std::string src;   // TPosition of the source
    std::string dst;   // TPosition of the destination
};

// The routes implemented, every dtype and both forms on each (see datacopy.cpp).
const std::vector<Route>& implemented_routes();

// A case outside what this target implements (another product or API, a route it leaves out). The suite does
// not send such cases (the hello says what is implemented); if one comes, the answer is {"status": "error"}.
struct NotImplemented : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Deliberate bugs, switched on with --bug NAME: a self-test of the template (the suite must catch them).
enum class Bug {
    none,
    dstgap_ignored,   // "dstgap-ignored": bursts are written back to back, as if dstGap were 0
};

// The answer to one case: {"status": "ok", "memory": {...}} with every region of the case (the destination's
// written), or {"status": "rejected", "rules": [...], "message": "..."} naming every rule the call breaks.
// Throws MalformedCase or NotImplemented for what becomes an error answer. `digests`: the ok answer's regions as
// their SHA-256 (region-digest).
nlohmann::json execute(Case call, Bug bug, bool digests = false);

}  // namespace example
