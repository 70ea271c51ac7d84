#include "case.hpp"

#include <cmath>
#include <limits>

#include "base64.hpp"
#include "digest.hpp"
#include "fill.hpp"

namespace example {
namespace {

using nlohmann::json;

const json& member(const json& object, const std::string& key, const std::string& where) {
    auto found = object.find(key);
    if (found == object.end()) throw MalformedCase(where + ": missing key \"" + key + "\"");
    return *found;
}

std::string text(const json& object, const std::string& key, const std::string& where) {
    const json& value = member(object, key, where);
    if (!value.is_string()) throw MalformedCase(where + "." + key + ": expected a string, got " + value.dump());
    return value.get<std::string>();
}

// An address or a region start: an integer >= 0 that fits in 64 bits (the largest memory, GM, is 2^64 B).
std::uint64_t address(const json& object, const std::string& key, const std::string& where) {
    const json& value = member(object, key, where);
    if (value.is_number_integer() && (value.is_number_unsigned() || value.get<std::int64_t>() >= 0)) {
        return value.get<std::uint64_t>();
    }
    throw MalformedCase(where + "." + key + ": expected an integer in [0, 2^64), got " + value.dump());
}

// The bytes of a region given by its fill recipe {"seed", "size", "half_nan_to_inf"} (fill.hpp), at most what a
// case line carries in base64 (48 MiB).
std::vector<std::uint8_t> filled(const json& recipe, std::uint64_t start, const std::string& where) {
    constexpr std::uint64_t kMostBytes = 48ULL << 20;
    if (!recipe.is_object()) throw MalformedCase(where + ": expected an object");
    const std::uint64_t seed = address(recipe, "seed", where);
    const std::uint64_t size = address(recipe, "size", where);
    if (size > kMostBytes) throw MalformedCase(where + ".size: at most 48 MiB, got " + std::to_string(size));
    const json& half = member(recipe, "half_nan_to_inf", where);
    if (!half.is_boolean()) throw MalformedCase(where + ".half_nan_to_inf: expected true or false, got " + half.dump());
    return ascendc_fill::region_bytes(seed, static_cast<std::size_t>(size), start, half.get<bool>());
}

// A parameter: any integer (a negative or too large one breaks a range rule, which is not a format matter).
// Integers beyond 64 bits reach this program as doubles, and those beyond int64_t are read as its largest or
// smallest value: outside every documented range either way.
std::int64_t parameter(const json& value, const std::string& where) {
    constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
    constexpr std::int64_t least = std::numeric_limits<std::int64_t>::min();
    if (value.is_number_unsigned()) {
        return value.get<std::uint64_t>() > static_cast<std::uint64_t>(most) ? most : value.get<std::int64_t>();
    }
    if (value.is_number_integer()) return value.get<std::int64_t>();
    if (value.is_number_float() && value.get<double>() == std::floor(value.get<double>())) {
        if (value.get<double>() >= 0x1p63) return most;
        if (value.get<double>() <= -0x1p63) return least;
    }
    throw MalformedCase(where + ": expected an integer, got " + value.dump());
}

Operand operand(const json& raw, const std::string& where) {
    if (!raw.is_object()) throw MalformedCase(where + ": expected an object");
    Operand result{text(raw, "position", where), text(raw, "dtype", where)};
    const json& value = member(raw, "address", where);
    if (value.is_number_float() && value.get<double>() >= 0x1p64 && value.get<double>() == std::floor(value.get<double>())) {
        result.beyond_64_bits = true;   // an integer of 2^64 or more, which the parser could only read as a double
    } else {
        result.address = address(raw, "address", where);
    }
    return result;
}

}  // namespace

Case parse_case(const json& raw) {
    const std::string where = "case";
    if (!raw.is_object()) throw MalformedCase("case: expected an object");
    const json& format = member(raw, "case_format", where);
    if (format != 1) throw MalformedCase("case.case_format: this program reads format 1, got " + format.dump());
    if (raw.contains("extensions")) {   // it announces int64 (it reads every address as a uint64_t), and no other
        for (const json& extension : raw["extensions"]) {
            if (extension != "int64") {
                throw MalformedCase("case.extensions: this program announces only the case-format extension int64, "
                                    "got " + raw["extensions"].dump());
            }
        }
    }
    Case result;
    result.api = text(raw, "api", where);
    result.product = text(raw, "product", where);
    result.src = operand(member(raw, "src", where), "case.src");
    result.dst = operand(member(raw, "dst", where), "case.dst");

    const json& params = member(raw, "params", where);
    if (!params.is_object()) throw MalformedCase("case.params: expected an object");
    for (const auto& [name, value] : params.items()) {
        result.params[name] = parameter(value, "case.params." + name);
    }

    const json& memory = member(raw, "memory", where);
    if (!memory.is_object() || memory.empty()) throw MalformedCase("case.memory: expected a non-empty object");
    for (const auto& [name, region] : memory.items()) {
        const std::string at = "case.memory." + name;
        if (!region.is_object()) throw MalformedCase(at + ": expected an object");
        const std::uint64_t start = address(region, "address", at);
        if (region.contains("fill")) {   // the wire extension region-fill: the bytes made from their recipe
            result.memory[name] = Region{start, filled(member(region, "fill", at), start, at + ".fill")};
            continue;
        }
        auto bytes = base64_decode(text(region, "data", at));
        if (!bytes) throw MalformedCase(at + ".data: not valid base64");
        result.memory[name] = Region{start, std::move(*bytes)};
    }
    return result;
}

json memory_json(const std::map<std::string, Region>& memory, bool digests) {
    json out = json::object();
    for (const auto& [name, region] : memory) {
        if constexpr (kRegionDigest) {
            if (digests) {
                out[name] = {{"address", region.address}, {"sha256", sha256_hex(region.bytes)}};
                continue;
            }
        }
        out[name] = {{"address", region.address}, {"data", base64_encode(region.bytes)}};
    }
    return out;
}

}  // namespace example
