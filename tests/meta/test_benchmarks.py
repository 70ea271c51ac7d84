"""The benchmarks' own pieces stay honest: the hand-built cases are legal, the largest really is the most one
legal call moves, and the naive peer computes exactly what the reference does (else its timing means nothing).
The timings themselves live in benchmarks/run.py, never here."""
from __future__ import annotations

import base64
import sys
from pathlib import Path

import pytest

from tests.helpers.casebuild import expect_json

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import cases  # noqa: E402
import naive_peer  # noqa: E402


@pytest.mark.parametrize("api", cases.APIS)
@pytest.mark.parametrize("granules", [1, 2, 5, 32])
def test_naive_peer_agrees_with_the_reference(api: str, granules: int) -> None:
    case = cases.build(api, granules * cases.granule(api), seed=granules)
    expected = expect_json(case)
    assert expected["status"] == "ok", expected
    assert cases.moved_bytes(api, case) == granules * cases.granule(api)
    assert naive_peer.expect(case) == expected


@pytest.mark.parametrize("api", cases.APIS)
def test_the_largest_case_is_legal_and_fills_a_buffer_or_a_range(api: str) -> None:
    """The largest case is legal, and one more granule would leave the bottleneck memory (guard bands
    included) or exceed the API's parameter range (which `build` then clamps)."""
    largest = cases.largest_bytes(api)
    case = cases.build(api, largest, seed=1)
    assert expect_json(case)["status"] == "ok"
    widest, granule = cases.widest(api), cases.granule(api)
    bigger = cases.build(api, largest + granule, seed=1)
    clamped = cases.moved_bytes(api, bigger) == largest
    too_big = (region_bytes(bigger) > min(widest.src_limit, widest.dst_limit)
               or expect_json(bigger)["status"] != "ok")
    assert region_bytes(case) <= max(widest.src_limit, widest.dst_limit)
    assert clamped or too_big


def region_bytes(case: dict) -> int:
    return max(len(base64.b64decode(region["data"])) for region in case["memory"].values())
