"""The C++ exec target of examples/cpp, built by its build.sh: it declares exactly atlas-a2's 32-byte DataCopy
routes, conforms on them under `run --profile ci --seed 7` (every other test not-supported), keeps serving
through malformed requests, reads regions given by their fill recipes, answers
regions by digest when asked, and its deliberate bug (`--bug dstgap-ignored`) is caught."""
from __future__ import annotations

import base64
import hashlib
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ascendc_conformance import reference
from ascendc_conformance.format.fill import Fill
from ascendc_conformance.spec.loader import load_spec
from tests.helpers.casebuild import expect_json, make_case, sentinel

ROOT = Path(__file__).resolve().parents[2]
PRODUCT, API = "atlas-a2", "DataCopy"
SELECTION = ["--product", PRODUCT, "--api", API, "--profile", "ci", "--seed", "7"]

# The rules whose single-fault tests reach the example's routes: it must reject each of them.
CHECKED_RULES = {"DataCopy-blockCount-min", "DataCopy-blockCount-max", "DataCopy-blockLen-min", "DataCopy-blockLen-max",
                 "DataCopy-srcGap-range", "DataCopy-dstGap-range", "DataCopy-count-range", "DataCopy-count-below-unit",
                 "DataCopy-dst-align-local", "DataCopy-src-align-local", "DataCopy-gm-align", "Memory-bounds",
                 "Memory-capacity",
                 # sent whatever routes it implements (an undocumented call must be refused), also on C1 -> C2
                 "DataCopy-route", "DataCopy-dtype", "DataCopy-form"}


def converse(binary: Path, *lines: str, args: tuple[str, ...] = ()) -> list[dict]:
    """Every answer the program writes for these request lines (all of them must be JSON)."""
    done = subprocess.run([str(binary), *args], input="".join(line + "\n" for line in lines), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def documented_32_byte_routes() -> set[tuple[str, str, str, str, str]]:
    """(product, api, src, dst, form) of every documented DataCopy path of atlas-a2 moving 32-byte DataBlocks."""
    spec = load_spec()
    api = spec.apis[API]
    return {(PRODUCT, API, path.src, path.dst, form) for path in spec.paths(PRODUCT, API)
            if api.units_for(path.dst) == api.default_units for form in path.forms}


def test_hello_declares_exactly_the_32_byte_routes(cpp_target: Path) -> None:
    [hello] = converse(cpp_target, json.dumps({"id": 1, "op": "hello", "protocol": 1}))
    assert hello["id"] == 1 and hello["status"] == "ok" and hello["validates"] is True
    assert hello["products"] == [PRODUCT] and hello["apis"] == [API]
    declared = {(e["product"], e["api"], e["src"], e["dst"], e["form"]) for e in hello["implements"]}
    assert declared == documented_32_byte_routes() and len(declared) == len(hello["implements"]) == 26
    assert hello["limits"] == {"checks_regions": True}   # it checks the case's regions, and says so


def test_it_conforms_on_what_it_implements(cpp_target: Path, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", f"exec:{cpp_target}",
                           *SELECTION, "--report", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    # it announces no extension: the gaps' bit 15 (bursts 1 MiB apart) came in one large GM region; what only
    # sparse-memory reaches (the crossings of 2^31 and 2^32 B), and its routes left out, are named as untested
    assert report["certification"]["outcome"] == "conforms on what was run"
    untested = {(entry["name"], entry["why"]) for entry in report["certification"]["untested"]}
    assert {("src-burst-start", "extension not announced"), ("dst-burst-start", "extension not announced")} <= untested
    assert {why for _, why in untested} <= {"extension not announced", "product not selected", "not exercised by this run"}
    bits = {row["field"]: row["effective"] for row in report["coverage"]["bits"]}
    assert 15 in bits["srcGap"] and 15 in bits["dstGap"]
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    tests = [r for r in records if r["record"] == "test"]
    routes = {f"{src}->{dst}" for _, _, src, dst, _ in documented_32_byte_routes()}
    for record in tests:
        if record["kind"] == "legal":   # a documented path: run where implemented, not-supported elsewhere
            assert record["verdict"] == ("pass" if record["route"] in routes else "not-supported"), record["test_id"]
        elif record["verdict"] == "skipped":   # a bound no path of the product can reach, or one whose cases
            # lie far apart in GM (the example does not announce the sparse-memory extension)
            assert record["skipped_reason"].startswith(("unreachable", "needs-extension: the cases need the "
                                                        "case-format extension(s) sparse-memory")), record["test_id"]
        else:
            assert record["verdict"] in ("pass", "not-supported"), record["test_id"]
    rejected = {r["rule"] for r in tests if r["kind"] == "illegal" and r["verdict"] == "pass" and r["cases"]}
    assert rejected == CHECKED_RULES


def test_it_keeps_serving_through_malformed_requests(cpp_target: Path) -> None:
    """Each bad request gets an error answer with its id (null when unreadable), and the next one is served;
    regions of odd lengths (base64 padding 1 and 2) come back byte-exact, in the reference's encoding."""
    legal = make_case(API, PRODUCT, ("GM", "half", 2), ("VECIN", "half", 32),
                      {"blockCount": 2, "blockLen": 1, "srcGap": 1, "dstGap": 2},
                      {"GM": sentinel(100, 1), "UB": sentinel(230, 2)})
    illegal = {**legal, "params": {**legal["params"], "blockCount": 4096}}
    bad_base64 = {**legal, "memory": {**legal["memory"], "UB": {"address": 0, "data": "AB=C"}}}
    other_product = {**legal, "product": "atlas-training"}
    requests = ["not json", "[1, 2]", json.dumps({"id": 3, "op": "launch"}),
                json.dumps({"id": 4, "op": "hello", "protocol": 2}), json.dumps({"id": 5, "op": "execute"}),
                json.dumps({"id": 6, "op": "execute", "case": bad_base64}),
                json.dumps({"id": 7, "op": "execute", "case": other_product}), "   ",
                json.dumps({"id": 8, "op": "execute", "case": legal}),
                json.dumps({"id": 9, "op": "execute", "case": illegal})]
    answers = converse(cpp_target, *requests)
    assert [a["id"] for a in answers] == [None, None, 3, 4, 5, 6, 7, 8, 9]
    assert all(a["status"] == "error" and a["message"] for a in answers[:7])
    assert "base64" in answers[5]["message"] and "atlas-a2" in answers[6]["message"]
    assert {k: v for k, v in answers[7].items() if k != "id"} == expect_json(legal)
    assert answers[8]["status"] == "rejected" and answers[8]["rules"] == ["DataCopy-blockCount-max"]


def test_it_reads_regions_given_by_their_fill_recipes(cpp_target: Path) -> None:
    """It announces region-fill: a case whose regions come as fill recipes is answered as the same case with the
    recipes' bytes (half-NaN fix included); a malformed recipe is an error naming it, and serving goes on."""
    hello, = converse(cpp_target, json.dumps({"id": 1, "op": "hello", "protocol": 1}))
    assert "region-fill" in hello["extensions"]
    recipes = {"GM": (2, Fill(77, 100, True)), "UB": (0, Fill(0, 230))}
    by_recipe = make_case(API, PRODUCT, ("GM", "half", 2), ("VECIN", "half", 32),
                          {"blockCount": 2, "blockLen": 1, "srcGap": 1, "dstGap": 2}, {})
    by_recipe["memory"] = {name: {"address": at, "fill": fill.to_json()} for name, (at, fill) in recipes.items()}
    as_bytes = make_case(API, PRODUCT, ("GM", "half", 2), ("VECIN", "half", 32), by_recipe["params"],
                         {name: (at, fill.bytes_at(at).tobytes()) for name, (at, fill) in recipes.items()})
    too_big = {**by_recipe, "memory": {**by_recipe["memory"], "UB": {"address": 0, "fill": {
        "seed": 1, "size": 2**40, "half_nan_to_inf": False}}}}
    answers = converse(cpp_target, *(json.dumps({"id": n, "op": "execute", "case": case})
                                     for n, case in enumerate((by_recipe, too_big, as_bytes), start=2)))
    assert [a["id"] for a in answers] == [2, 3, 4]
    assert {k: v for k, v in answers[0].items() if k != "id"} == expect_json(as_bytes) == \
        {k: v for k, v in answers[2].items() if k != "id"}
    assert answers[1]["status"] == "error" and "case.memory.UB.fill.size" in answers[1]["message"], answers[1]


def test_it_answers_its_regions_by_digest_when_asked(cpp_target: Path) -> None:
    """Built with OpenSSL (.ci/run installs libssl-dev), it announces region-digest: asked `"digest": "sha256"`, its
    ok answer gives each region as the SHA-256 of the bytes it answers when not asked; a rejection stays one."""
    hello, = converse(cpp_target, json.dumps({"id": 1, "op": "hello", "protocol": 1}))
    assert "region-digest" in hello["extensions"], hello["extensions"]
    legal = make_case(API, PRODUCT, ("GM", "half", 2), ("VECIN", "half", 32),
                      {"blockCount": 2, "blockLen": 1, "srcGap": 1, "dstGap": 2},
                      {"GM": (2, sentinel(100, 3)), "UB": (0, sentinel(230, 5))})
    illegal = {**legal, "params": {**legal["params"], "blockCount": 0}}
    plain, digested, rejected = converse(cpp_target, *(json.dumps({"id": n, "op": "execute", "case": case, **asked})
                                                      for n, (case, asked) in enumerate(
                                                          ((legal, {}), (legal, {"digest": "sha256"}),
                                                           (illegal, {"digest": "sha256"})), start=2)))
    assert plain["status"] == digested["status"] == "ok" and rejected["status"] == "rejected"
    assert digested["memory"] == {name: {"address": region["address"],
                                         "sha256": hashlib.sha256(base64.b64decode(region["data"])).hexdigest()}
                                  for name, region in plain["memory"].items()}


def test_its_deliberate_bug_is_caught(cpp_target: Path, tmp_path: Path) -> None:
    target = "exec:" + shlex.join([str(cpp_target), "--bug", "dstgap-ignored"])
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", target, *SELECTION,
                           "--shrink-seconds", "1", "-x", "--report", str(tmp_path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 1, done.stdout[-3000:]
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert any(r["record"] == "test" and r["verdict"] == "fail" for r in records)


@pytest.mark.parametrize("seed, size, address, fix", [(0, 5, 0, False), (1, 0, 0, False), (1, 1, 0, False),
                                                     (2**64 - 1, 77, 3, False), (123456789, 4160, 4096, True),
                                                     (4242, 999, 4097, True)])
def test_its_fill_recipe_gives_the_suites_bytes(cpp_fill: Path, seed: int, size: int, address: int, fix: bool) -> None:
    """examples/cpp/src/fill.hpp, the C++ reference of the recipe a pack gives its regions by, makes exactly the
    bytes of format.fill (the Python one), half-NaN fix and odd addresses included."""
    done = subprocess.run([str(cpp_fill), str(seed), str(size), str(address), *(["--half-nan-to-inf"] if fix else [])],
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == Fill(seed, size, fix).bytes_at(address).tobytes()
