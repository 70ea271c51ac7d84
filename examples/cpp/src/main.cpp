// ascendc-cpp-target: an exec target of ascendc-conformance (docs/target-protocol.md, exec protocol 1).
//
//   ascendc-conformance run --target exec:examples/cpp/build/ascendc-cpp-target --product atlas-a2 --api DataCopy
//
// It reads one JSON request per line on stdin and writes one JSON answer per line on stdout, with the
// request's id, flushed at once. Nothing else ever goes to stdout: logs go to stderr. A request it cannot
// read gets {"status": "error", ...} and the program goes on with the next line.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "case.hpp"
#include "datacopy.hpp"
#include "digest.hpp"

namespace {

using nlohmann::json;
using example::Bug;

constexpr int kProtocol = 1;

json error(const std::string& message) {
    return {{"status", "error"}, {"message", message}};
}

// nlohmann-json reads 64-bit integers exactly; a region may come as its fill recipe (fill.hpp); built with
// OpenSSL, an answer's regions may go as their SHA-256 (digest.hpp).
json extensions() {
    json announced = json::array({"int64", "region-fill"});
    if (example::kRegionDigest) announced.push_back("region-digest");
    return announced;
}

// The hello answer: what this target is, and exactly what it implements (one `implements` entry per
// product, API, route and form; a test outside them is reported not-supported, never sent). It checks every
// rule of what it implements, so `validates` is true; it refuses accesses outside the case's memory regions,
// so it declares `limits.checks_regions` (the suite then sends it the faults of the harness rule
// Memory-bounds). It holds parameters in 64-bit integers, not in their C types: it does not declare `typed`.
json hello(Bug bug) {
    json implements = json::array();
    for (const example::Route& route : example::implemented_routes()) {
        for (const std::string& form : example::kForms) {
            implements.push_back({{"product", example::kProduct}, {"api", example::kApi}, {"src", route.src},
                                  {"dst", route.dst}, {"form", form}});
        }
    }
    std::string name = "ascendc-cpp-example";
    if (bug == Bug::dstgap_ignored) name += " (bug: dstgap-ignored)";
    return {{"status", "ok"},
            {"name", name},
            {"validates", true},
            {"products", json::array({example::kProduct})},
            {"apis", json::array({example::kApi})},
            {"implements", implements},
            {"extensions", extensions()},
            {"limits", {{"checks_regions", true}}}};
}

// The answer to one request object (without its id).
json answer(const json& request, Bug bug) {
    if (!request.is_object()) return error("request is a JSON " + std::string(request.type_name()) + ", not an object");
    const json op = request.value("op", json());
    if (op == "hello") {
        if (request.value("protocol", json()) != kProtocol) {
            return error("unsupported protocol " + request.value("protocol", json()).dump() + "; this target speaks 1");
        }
        return hello(bug);
    }
    if (op == "execute") {
        auto found = request.find("case");
        if (found == request.end() || !found->is_object()) return error("execute request needs \"case\" as an object");
        try {
            // region-digest: {"digest": "sha256"} asks for the ok answer's regions as their SHA-256
            const bool digests = example::kRegionDigest && request.value("digest", json()) == "sha256";
            return example::execute(example::parse_case(*found), bug, digests);
        } catch (const example::MalformedCase& problem) {
            return error(problem.what());
        } catch (const example::NotImplemented& problem) {
            return error(problem.what());
        }
    }
    return error("unknown op " + op.dump() + "; expected \"hello\" or \"execute\"");
}

// One line in, one line out: the answer carries the request's id (null when there is none to read).
std::string answer_line(const std::string& line, Bug bug) {
    json reply;
    json id = nullptr;
    try {
        json request = json::parse(line);
        if (request.is_object()) id = request.value("id", json());
        reply = answer(request, bug);
    } catch (const json::parse_error& problem) {
        reply = error(std::string("request is not JSON: ") + problem.what());
    } catch (const std::exception& problem) {   // a fault of this program: say so, and keep serving
        std::cerr << "ascendc-cpp-target: internal error: " << problem.what() << '\n';
        reply = error(std::string("internal error: ") + problem.what());
    }
    reply["id"] = id;
    return reply.dump(-1, ' ', false, json::error_handler_t::replace);
}

void usage() {
    std::cerr << "usage: ascendc-cpp-target [--bug dstgap-ignored]\n"
              << "  Serves DataCopy on atlas-a2 over the ascendc-conformance exec protocol (stdin/stdout).\n"
              << "  --bug dstgap-ignored  a deliberate bug (dstGap read as 0), to see the suite catch it\n";
}

}  // namespace

int main(int argc, char** argv) {
    Bug bug = Bug::none;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help") {
            usage();
            return 0;
        }
        if (arg == "--bug") {
            const std::string name = i + 1 < argc ? argv[++i] : "";
            if (name == "dstgap-ignored") {
                bug = Bug::dstgap_ignored;
                continue;
            }
            std::cerr << "ascendc-cpp-target: unknown bug '" << name << "'; known: dstgap-ignored\n";
        } else {
            std::cerr << "ascendc-cpp-target: unknown argument " << arg << "\n";
        }
        usage();
        return 2;
    }
    if (bug != Bug::none) std::cerr << "ascendc-cpp-target: deliberate bug switched on: dstgap-ignored\n";

    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;   // blank lines ask nothing
        std::cout << answer_line(line, bug) << '\n' << std::flush;
    }
    return 0;
}
