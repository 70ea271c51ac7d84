#!/usr/bin/env bash
# Build the C++ exec target: examples/cpp/build/ascendc-cpp-target (an incremental build when it exists).
# Needs a C++17 compiler, CMake >= 3.16 and nlohmann-json 3 (Debian: g++ cmake nlohmann-json3-dev).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cmake -S "$here" -B "$here/build" -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$here/build" --parallel 2 >&2
echo "$here/build/ascendc-cpp-target"
