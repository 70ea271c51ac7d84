"""FORMAT.md of a pack: the format, for a harness written in any language from the pack alone."""
from __future__ import annotations

from typing import Any, Mapping

from ascendc_conformance.format.fill import GOLDEN, MIX_1, MIX_2
from ascendc_conformance.format.pack import PACK_FORMAT

TEMPLATE = """\
# Certification pack, format {pack_format}

Built by ascendc-conformance {suite_version} from spec {spec_digest}: profile `{profile}`, Hypothesis seed {seed}
(Hypothesis {hypothesis}), products {products}, APIs {apis}. Rebuild: `{command}`.

This directory is data only. Everything below is what a harness needs to run the pack in any language; the
Python suite runs it with `ascendc-conformance run --pack DIR --target T`.

## Files and the pack id

- `manifest.json` — what the pack is (below) and the SHA-256 of every other file (`files`: path -> hex digest);
- `FORMAT.md` — this text;
- `tests/NNNNN.json.gz` — one file per test: gzip (RFC 1952) of one JSON object.

The **pack id** is the SHA-256 (lower-case hex) of the bytes of `manifest.json`. A certifier publishes it; a
harness checks `sha256(manifest.json)` against it, then every file against `files` (a pack with a missing,
changed or unlisted file is not the pack). The schema of every file is `pack-v1.schema.json` of the suite
(`$defs/manifest`, `$defs/test`); every number in a pack is an integer of at most 64 bits.

## manifest.json

`pack_format` ({pack_format}), `suite_version`, `spec_digest`, `built` (profile, seed, hypothesis, products and
apis — empty means all —, the reading generation follows, the build command, the fill recipe's name),
`counts` (tests and cases, per kind and per rule), `tests` (one entry per test, in run order: `id`, the test id
a run reports it under, e.g. `test_legal[atlas-a2-DataCopy-GM->VECIN-half]`; `kind`: smoke, legal, illegal or
boundary; `subject`: product, api, route, dtypes, rule, variant as they apply; `cases`; `file`) and `files`.

## A test file

`{{"pack_format": {pack_format}, "test": <id>, "kind": <kind>, "cases": [<packed case>, ...], "bits": {{...}},
"crossings": {{...}}}}`; a packed case is
`{{"case": <case>, "points": [<point>, ...], "expected": [{{"reading": {{...}}, "result": <result>}}, ...]}}`.
`bits` (API -> field -> bits) and `crossings` (API -> derived quantity -> widths w, 2^w crossed) are every bit of
a parameter the test's legal cases witness (clearing it in a case gives another legal call that moves other bytes)
and every width their derived offsets cross, under the pack's reading: what a run's results.jsonl records of
them, stored so that a run pinning the pack's id need not work them out. A harness may ignore them.

**The case** is a case of format 1 (the suite's `case-v1.schema.json`; its docs/target-protocol.md), with `id`
`<test id>#<n>` and `tags`, except that each memory region gives its **fill recipe** instead of its bytes:

    "memory": {{"GM": {{"address": 4096, "fill": {{"seed": 1234, "size": 320, "half_nan_to_inf": false}}}}}}

To send it to an implementation, replace each region by `{{"address": A, "data": base64(bytes)}}` with the
region's `size` bytes made by the recipe:

1. `seed` 0: `size` zero bytes.
2. Otherwise SplitMix64, counter-based, all arithmetic modulo 2^64: for i = 0, 1, 2, ...,
   `z = seed + (i + 1) * 0x{golden:016X}`; `z = (z ^ (z >> 30)) * 0x{mix_1:016X}`;
   `z = (z ^ (z >> 27)) * 0x{mix_2:016X}`; `z = z ^ (z >> 31)`; word i is `z`, written as 8 bytes
   little-endian. The region is the first `size` bytes of words 0, 1, 2, ... (SplitMix64 seeded with `seed`:
   with seed 1234567 its first word is 6457827717110365317).
3. If `half_nan_to_inf`: for every 16-bit word lying wholly in the region at an even absolute address (region
   address + offset even), read little-endian, whose bits 0x7C00 are all set, clear its low ten bits
   (`w = w & 0xFC00`): half-precision NaNs become infinities.

References: `conformance/format/fill.py` (Python) and `examples/cpp/src/fill.hpp` (C++17, header-only) of the
suite; they give the same bytes.

A case with `"extensions": ["detached-tensor"]` has a GM operand whose start address lies outside its region
(the suite's docs/target-protocol.md, "Case-format extensions"); an implementation that cannot take such cases
leaves them out.

**The expected result** depends on the reading of the disputed points (the suite's docs/disputed-points.md).
`points` lists the disputed points the case's outcome depends on (none: `[]`); `expected` gives the
result under every combination of their computable readings — `reading` maps a point to its alternative,
points at their default left out. The first entry, `"reading": {{}}`, is the default reading (the seed's): the one
an implementation is certified under unless it names another. A result is result format 1 with each region of
an `ok` result given by the SHA-256 of its bytes after the call:

    {{"status": "ok", "memory": {{"GM": {{"address": 4096, "sha256": "<hex>"}}, ...}}, "depends_on": [...]}}
    {{"status": "rejected", "rules": ["DataCopy-blockCount-max"], "message": "...", "depends_on": [...]}}

Under a reading other than the default a result may also be `{{"status": "unspecified", "rules": [...]}}`: the
documents leave the outcome open under that reading (no answer matches it).

## Judging a case

- expected `ok`: the implementation must perform the call and every region of the case, after it, must have
  the listed SHA-256 (same regions, same addresses, same sizes). Otherwise: `fail` (memory differs),
  `false-reject` (it refused a legal call);
- expected `rejected`: the implementation must refuse the call (a rejection naming a rule should name one of
  `rules`); performing it is `missed-reject`;
- an answer matching the result of another entry of `expected` follows that reading of the points: reported
  apart as `disputed`, never a failure, unless the certification names a reading of that point.

A harness without a target adapter of its own can judge this way and report per test; the Python runner adds the
rest (a target's hello: products, APIs and paths it implements, limits it declares; waivers; reports; the full
diff of a failure, for which the reference recomputes the expected bytes).
"""


def format_text(header: Mapping[str, Any]) -> str:
    """FORMAT.md for a pack whose manifest starts with `header` (suite version, spec digest, how it was built)."""
    built = header["built"]
    return TEMPLATE.format(pack_format=PACK_FORMAT, suite_version=header["suite_version"], spec_digest=header["spec_digest"],
                           profile=built["profile"], seed=built["seed"], hypothesis=built["hypothesis"],
                           products=", ".join(built["products"]) or "all", apis=", ".join(built["apis"]) or "all",
                           command=built["command"], golden=GOLDEN, mix_1=MIX_1, mix_2=MIX_2)
