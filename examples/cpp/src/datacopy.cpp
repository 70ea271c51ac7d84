#include "datacopy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace example {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------------------
// The spec's facts for atlas-a2, copied from the YAML files named in each comment.
// ---------------------------------------------------------------------------------------------------------

// Product id and alias (spec/products.yaml: atlas-a2, aliases ["910B"]).
const std::set<std::string> kProductNames = {"atlas-a2", "910B"};

// TPosition -> physical memory on atlas-a2 (spec/products.yaml `positions.map`; semantics.md 2).
const std::map<std::string, std::string> kMemoryOf = {
    {"GM", "GM"},  {"VECIN", "UB"}, {"VECCALC", "UB"}, {"VECOUT", "UB"}, {"A1", "L1"},  {"B1", "L1"},
    {"TSCM", "L1"}, {"C1", "L1"},   {"A2", "L0A"},     {"B2", "L0B"},    {"CO1", "L0C"}, {"C2", "BT"},
    {"CO2", "GM"}, {"C2PIPE2GM", "FB"}};

// Every physical memory a case may hold a region of (spec/products.yaml `memories`).
const std::set<std::string> kMemories = {"GM", "UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};

// Capacities in bytes on atlas-a2 (spec/products.yaml `capacities`; semantics.md 2, Capacities). GM has none:
// any 64-bit address is GM. (FB's 7 KiB is disputed, D28; no route implemented here reaches FB.)
const std::map<std::string, std::uint64_t> kCapacity = {
    {"UB", 196608}, {"L1", 524288}, {"L0A", 65536}, {"L0B", 65536}, {"L0C", 131072}, {"BT", 1024}, {"FB", 7168}};

// sizeof(T) of every element type (spec/dtypes.yaml). On atlas-a2 every route implemented here takes all
// twelve (group ALL12, 000 Tables 4-6), with the same dtype on both sides.
const std::map<std::string, std::uint64_t> kSizeOf = {
    {"int8_t", 1},  {"uint8_t", 1},  {"int16_t", 2}, {"uint16_t", 2},   {"int32_t", 4}, {"uint32_t", 4},
    {"int64_t", 8}, {"uint64_t", 8}, {"half", 2},    {"bfloat16_t", 2}, {"float", 4},   {"double", 8}};

// The routes implemented: every documented DataCopy route of atlas-a2 whose units are 32-byte DataBlocks
// (spec/datacopy.yaml `paths` and `semantics.units` "datablock"), each with dtypes ALL12 and the forms count
// and params. `ascendc-conformance spec paths --product atlas-a2 --api DataCopy` lists them.
const std::vector<Route> kRoutes = {
    {"GM", "VECIN"}, {"GM", "A1"}, {"GM", "B1"}, {"GM", "C1"},                 // 000 Table 4 (GM -> UB / L1)
    {"VECIN", "VECCALC"}, {"VECCALC", "VECOUT"},                                // 000 Table 5 (UB -> UB)
    {"VECIN", "VECOUT"},                                                        // 000 Examples (D5)
    {"VECIN", "TSCM"}, {"VECCALC", "TSCM"}, {"VECOUT", "TSCM"},                 // 000 Table 5 (UB -> L1)
    {"VECOUT", "GM"}, {"A1", "GM"}, {"B1", "GM"}};                              // 000 Table 6 (UB / L1 -> GM)

// Documented DataCopy routes of atlas-a2 left out here: their units are 64 B (C2, the bias table) and 128 B
// (C2PIPE2GM, the Fixpipe buffer), and C1 -> C2 also has the mixed half -> float form (000 Tables 3, 5, 7).
// To implement them, see README.md "Implementing more".
const std::vector<Route> kRoutesLeftOut = {
    {"C1", "C2"}, {"A1", "C2PIPE2GM"}, {"B1", "C2PIPE2GM"}, {"C1", "C2PIPE2GM"}};

// What those routes document, so that a call on them that the spec does not document is still refused for its
// rule (a validating target must refuse an undocumented call whatever it implements): C1 -> C2 moves int32_t or
// float (count and params forms) and converts half -> float (the mixed form, DataCopyParams); the C2PIPE2GM
// routes move any of ALL12 (000 Tables 5, 7; D10 under the seed's reading).
const std::set<std::string> kC2Dtypes = {"int32_t", "float"};
bool is_c2(const Case& call) { return call.dst.position == "C2"; }

// One DataBlock: the unit of blockLen, srcGap, dstGap and of the count form's rounding on these routes
// (000 Table 3; Table 2 count NOTE).
constexpr std::uint64_t kBlock = 32;

// The two parameter forms and their fields (spec/datacopy.yaml `forms`; 000 Prototype, Table 3).
enum class Form { count, params };
const std::set<std::string> kCountKeys = {"count"};
const std::set<std::string> kParamsKeys = {"blockCount", "blockLen", "srcGap", "dstGap"};

// The range rules of spec/datacopy.yaml, in the spec's order: field, minimum, maximum, rule id for each bound.
// blockCount and blockLen >= 1 are disputed (D1); the seed's reading, the default, makes 0 illegal.
struct Range {
    const char* field;
    std::int64_t min;
    std::int64_t max;
    const char* below;   // the rule broken by a value < min
    const char* above;   // the rule broken by a value > max
};
const std::vector<Range> kRanges = {
    {"blockCount", 1, 4095, "DataCopy-blockCount-min", "DataCopy-blockCount-max"},   // 000 Table 3
    {"blockLen", 1, 65535, "DataCopy-blockLen-min", "DataCopy-blockLen-max"},        // 000 Table 3
    {"srcGap", 0, 65535, "DataCopy-srcGap-range", "DataCopy-srcGap-range"},          // uint16_t, 000 Table 3
    {"dstGap", 0, 65535, "DataCopy-dstGap-range", "DataCopy-dstGap-range"},          // uint16_t, 000 Table 3
    {"count", 0, 4294967295, "DataCopy-count-range", "DataCopy-count-range"}};       // uint32_t, 000 Prototype

// ---------------------------------------------------------------------------------------------------------
// Checking a call: every rule it breaks, in the spec's order.
// ---------------------------------------------------------------------------------------------------------

struct Breach {
    std::string rule;     // the spec's rule id
    std::string detail;   // what about this call breaks it
};

bool same_route(const Route& route, const Case& call) {
    return route.src == call.src.position && route.dst == call.dst.position;
}

bool among(const std::vector<Route>& routes, const Case& call) {
    for (const Route& route : routes) {
        if (same_route(route, call)) return true;
    }
    return false;
}

std::string memory_of(const std::string& position) {
    return kMemoryOf.at(position);
}

// Names must be the spec's (an unknown name is a malformed case, not an illegal call); the product and API
// must be this target's; the parameter keys pick the form: exactly {count}, or exactly the four fields of
// DataCopyParams.
Form check_names(const Case& call) {
    if (call.api != kApi) throw NotImplemented("this target implements DataCopy only, not " + call.api);
    if (!kProductNames.count(call.product)) {
        throw NotImplemented("this target implements atlas-a2 (910B) only, not " + call.product);
    }
    for (const Operand* operand : {&call.src, &call.dst}) {
        if (!kMemoryOf.count(operand->position)) throw MalformedCase("unknown TPosition " + operand->position);
        if (!kSizeOf.count(operand->dtype)) throw MalformedCase("unknown dtype " + operand->dtype);
    }
    for (const auto& [name, region] : call.memory) {
        if (!kMemories.count(name)) throw MalformedCase("case.memory." + name + ": unknown memory");
    }
    std::set<std::string> keys;
    for (const auto& [name, value] : call.params) keys.insert(name);
    if (keys == kCountKeys) return Form::count;
    if (keys == kParamsKeys) return Form::params;
    throw MalformedCase("case.params: the keys match no DataCopy form (expected {count} or "
                        "{blockCount, blockLen, srcGap, dstGap})");
}

// A call on a documented route this target leaves out: the DataCopy-dtype or DataCopy-form rule it breaks, if
// any (an undocumented call is refused for its rule alone); a documented call throws NotImplemented.
std::vector<Breach> left_out_breaches(const Case& call, Form form, const std::string& route) {
    const std::string dtypes = call.src.dtype + " -> " + call.dst.dtype;
    if (call.src.dtype != call.dst.dtype) {
        if (!is_c2(call) || call.src.dtype != "half" || call.dst.dtype != "float") {
            return {{"DataCopy-dtype", dtypes + " is not documented for " + route + " on atlas-a2"}};
        }
        if (form == Form::count) {
            return {{"DataCopy-form", "the count form is not documented for " + dtypes + " on " + route +
                                          " (only DataCopyParams: the mixed form)"}};
        }
    } else if (is_c2(call) && !kC2Dtypes.count(call.src.dtype)) {
        return {{"DataCopy-dtype", dtypes + " is not documented for " + route + " on atlas-a2"}};
    }
    throw NotImplemented(route + " (" + dtypes + ") is documented but not implemented here");
}

// Route, dtype, range, relation and alignment rules: what the parameters and operands alone decide.
std::vector<Breach> static_breaches(const Case& call, Form form) {
    std::vector<Breach> found;
    const std::string route = call.src.position + " -> " + call.dst.position;

    // DataCopy-route (000 Tables 4-7): the (src, dst) pair is a documented path of the product. A call on
    // another pair is rejected for this rule alone (the reference may name more; naming this one is enough).
    if (among(kRoutesLeftOut, call)) return left_out_breaches(call, form, route);
    if (!among(kRoutes, call)) return {{"DataCopy-route", route + " is not a documented DataCopy path on atlas-a2"}};

    // DataCopy-dtype (000 Tables 4-6): on these routes src and dst have the same dtype, any of ALL12.
    // (DataCopy-form cannot be broken here: both forms are documented on every route implemented, and the
    // mixed form needs two dtypes, which the dtype rule already refuses.)
    if (call.src.dtype != call.dst.dtype) {
        found.push_back({"DataCopy-dtype", call.src.dtype + " -> " + call.dst.dtype + " is not documented for " +
                                               route + " on atlas-a2"});
    }

    for (const Range& range : kRanges) {
        auto value = call.params.find(range.field);
        if (value == call.params.end()) continue;   // not a field of this form
        const std::string field = range.field;
        if (value->second < range.min) {
            found.push_back({range.below, field + " = " + std::to_string(value->second) + " < " +
                                              std::to_string(range.min)});
        } else if (value->second > range.max) {
            found.push_back({range.above, field + " = " + std::to_string(value->second) + " > " +
                                              std::to_string(range.max)});
        }
    }

    // DataCopy-count-below-unit (000 Table 2 count NOTE; disputed, the seed's reading): count * sizeof(T)
    // is rounded down to whole DataBlocks, and less than one block would be blockLen 0, illegal (D1).
    if (form == Form::count) {
        const std::int64_t count = call.params.at("count");
        const std::uint64_t src_size = kSizeOf.at(call.src.dtype);
        if (count >= 0 && static_cast<std::uint64_t>(count) < kBlock / src_size) {
            found.push_back({"DataCopy-count-below-unit",
                             "count " + std::to_string(count) + " x " + std::to_string(src_size) +
                                 " B < one 32-B route unit: nothing would move (blockLen 0)"});
        }
    }

    // Alignments (000 Table 2 dst, src), in the spec's order: a local dst and a local src start 32-B aligned
    // (no route here writes C2 or C2PIPE2GM, whose 64-B / 128-B rules are left out); a GM operand starts
    // aligned to sizeof(T) (D2). An address past 64 bits is left to the memory rules (memory_breaches).
    for (const auto& [rule, name, operand, global] :
         {std::tuple<const char*, const char*, const Operand*, bool>{"DataCopy-dst-align-local", "dst", &call.dst, false},
          {"DataCopy-src-align-local", "src", &call.src, false},
          {"DataCopy-gm-align", "src", &call.src, true},
          {"DataCopy-gm-align", "dst", &call.dst, true}}) {
        if ((operand->position == "GM") != global || operand->beyond_64_bits) continue;
        const std::uint64_t alignment = global ? kSizeOf.at(operand->dtype) : kBlock;
        if (operand->address % alignment != 0) {
            found.push_back({rule, std::string(name) + " address " + std::to_string(operand->address) + " in " +
                                       operand->position + " is not " + std::to_string(alignment) +
                                       "-byte aligned"});
        }
    }
    return found;
}

// ---------------------------------------------------------------------------------------------------------
// What a legal call moves (semantics.md 3.1, "32-B routes").
// ---------------------------------------------------------------------------------------------------------

// blockCount bursts of `bytes` bytes each; burst i is read `i * src_pitch` bytes after the source's start
// and written `i * dst_pitch` bytes after the destination's start:
//   dst_b[32*i*(blockLen + dstGap) + b] = src_b[32*i*(blockLen + srcGap) + b],  b < 32*blockLen.
// The gaps count from the end of one burst to the start of the next, in DataBlocks (000 Table 3).
struct Bursts {
    std::uint64_t count;
    std::uint64_t bytes;
    std::uint64_t src_pitch;
    std::uint64_t dst_pitch;

    // Bytes from an operand's start to the end of its last burst: the span its accesses cover.
    std::uint64_t span(std::uint64_t pitch) const { return (count - 1) * pitch + bytes; }
};

Bursts bursts_of(const Case& call, Form form, Bug bug) {
    if (form == Form::count) {
        // The count form is {blockCount 1, blockLen floor(count * sizeof(T) / 32), 0, 0}: the bytes are
        // rounded down to whole DataBlocks and the tail stays untouched (000 Table 2 count NOTE; D8).
        std::uint64_t bytes = static_cast<std::uint64_t>(call.params.at("count")) * kSizeOf.at(call.src.dtype);
        bytes = bytes / kBlock * kBlock;
        return Bursts{1, bytes, bytes, bytes};
    }
    std::uint64_t bytes = kBlock * static_cast<std::uint64_t>(call.params.at("blockLen"));
    std::uint64_t dst_gap = bug == Bug::dstgap_ignored ? 0 : static_cast<std::uint64_t>(call.params.at("dstGap"));
    return Bursts{static_cast<std::uint64_t>(call.params.at("blockCount")), bytes,
                  bytes + kBlock * static_cast<std::uint64_t>(call.params.at("srcGap")), bytes + kBlock * dst_gap};
}

// Whether [start, start + length) lies inside the region; written so that nothing overflows 64 bits (GM
// addresses go up to 2^64 - 1).
bool contains(const Region& region, std::uint64_t start, std::uint64_t length) {
    if (start < region.address) return false;
    std::uint64_t offset = start - region.address;
    return offset <= region.bytes.size() && length <= region.bytes.size() - offset;
}

// Memory-bounds (spec/common.yaml): every byte the call touches lies in the case's region of its memory.
// Memory-capacity (spec/common.yaml; semantics.md 2): and below the capacity of that memory on the product.
std::vector<Breach> memory_breaches(const Case& call, const Bursts& bursts) {
    std::vector<Breach> found;
    for (const auto& [name, operand, pitch] :
         {std::tuple<const char*, const Operand*, std::uint64_t>{"src", &call.src, bursts.src_pitch},
          {"dst", &call.dst, bursts.dst_pitch}}) {
        const std::string memory = memory_of(operand->position);
        if (operand->beyond_64_bits) {
            found.push_back({"Memory-bounds", std::string(name) + ": an address of 2^64 or more lies past the "
                                                                  "end of every memory"});
            continue;
        }
        const std::uint64_t start = operand->address, length = bursts.span(pitch);
        const std::string what = std::string(name) + ": " + std::to_string(length) + " bytes from " + memory +
                                 " address " + std::to_string(start);
        auto region = call.memory.find(memory);
        if (region == call.memory.end()) {
            found.push_back({"Memory-bounds", what + ": the case has no " + memory + " region"});
        } else if (!contains(region->second, start, length)) {
            found.push_back({"Memory-bounds", what + " leave the region at " +
                                                  std::to_string(region->second.address) + " of " +
                                                  std::to_string(region->second.bytes.size()) + " bytes"});
        }
        auto capacity = kCapacity.find(memory);
        if (capacity != kCapacity.end() && (start > capacity->second || length > capacity->second - start)) {
            found.push_back({"Memory-capacity", what + " exceed the " + std::to_string(capacity->second) +
                                                    "-B capacity of " + memory + " on atlas-a2"});
        }
    }
    return found;
}

json rejected(const std::vector<Breach>& breaches) {
    json rules = json::array();
    std::string message;
    for (const Breach& breach : breaches) {
        if (std::find(rules.begin(), rules.end(), breach.rule) == rules.end()) rules.push_back(breach.rule);
        message += (message.empty() ? "" : "; ") + breach.rule + ": " + breach.detail;
    }
    return {{"status", "rejected"}, {"rules", rules}, {"message", message}};
}

// Moves the bursts. Reads come from the source's image before the call, so a copy inside UB whose source and
// destination overlap reads no byte it has already written (the documents leave that case open, rule
// Memory-overlap, and the suite never sends one). No other byte of any region changes.
void copy(Case& call, const Bursts& bursts) {
    const Region& src = call.memory.at(memory_of(call.src.position));
    const std::vector<std::uint8_t> before = src.bytes;
    Region& dst = call.memory.at(memory_of(call.dst.position));
    const std::uint64_t src_offset = call.src.address - src.address;
    const std::uint64_t dst_offset = call.dst.address - dst.address;
    for (std::uint64_t i = 0; i < bursts.count; ++i) {
        std::memcpy(dst.bytes.data() + dst_offset + i * bursts.dst_pitch,
                    before.data() + src_offset + i * bursts.src_pitch, bursts.bytes);
    }
}

}  // namespace

const std::vector<Route>& implemented_routes() {
    return kRoutes;
}

json execute(Case call, Bug bug, bool digests) {
    const Form form = check_names(call);
    // First the rules the parameters decide (the reference does the same): a call breaking one of them is
    // rejected before its extent is worked out (a blockCount of 70000 has no meaningful footprint).
    std::vector<Breach> breaches = static_breaches(call, form);
    if (!breaches.empty()) return rejected(breaches);
    const Bursts bursts = bursts_of(call, form, bug);
    breaches = memory_breaches(call, bursts);
    if (!breaches.empty()) return rejected(breaches);
    copy(call, bursts);
    return {{"status", "ok"}, {"memory", memory_json(call.memory, digests)}};
}

}  // namespace example
