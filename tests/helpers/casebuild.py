"""Small helpers to build case-format-v1 dicts and to check results in tests."""
from __future__ import annotations

import base64
from typing import Any

import numpy as np

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case, Result
from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.spec.loader import load_spec

Tensor = tuple[str, str, int]  # (TPosition, dtype C++ name, absolute byte address)


def b64(data: bytes) -> str:
    """Base64 text of raw bytes."""
    return base64.b64encode(bytes(data)).decode("ascii")


def unb64(text: str) -> bytes:
    """Raw bytes of base64 text."""
    return base64.b64decode(text)


def region(address: int, data: bytes) -> dict:
    """One memory region: start address and contents."""
    return {"address": address, "data": b64(data)}


def make_case(api: str, product: str, src: Tensor, dst: Tensor, params: dict,
              memory: dict[str, bytes | tuple[int, bytes]]) -> dict:
    """Case format v1; a memory value of plain bytes is a region starting at address 0."""
    def tensor(t: Tensor) -> dict:
        return {"position": t[0], "dtype": t[1], "address": t[2]}

    return {
        "case_format": 1, "api": api, "product": product,
        "src": tensor(src), "dst": tensor(dst), "params": params,
        "memory": {name: region(*(value if isinstance(value, tuple) else (0, value)))
                   for name, value in memory.items()},
    }


def legal_case() -> dict:
    """DataCopy count form GM -> VECIN, 16 halves (one 32-B block) on atlas-a2."""
    return make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0), {"count": 16},
                     {"GM": sentinel(64, 1), "UB": sentinel(64, 2)})


def illegal_case() -> dict:
    """The same call on a route atlas-a2 does not document (VECOUT -> VECIN)."""
    return make_case("DataCopy", "atlas-a2", ("VECOUT", "half", 0), ("VECIN", "half", 32), {"count": 16},
                     {"UB": sentinel(64, 3)})


def sentinel(n: int, seed: int) -> bytes:
    """n deterministic pseudo-random bytes in [1, 255] (never 0), different per seed."""
    state = (seed * 2654435761 + 1) & 0x7FFFFFFF
    out = bytearray()
    for _ in range(n):
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        out.append((state >> 16) % 255 + 1)
    return bytes(out)


def region_bytes(result: dict, memory: str) -> bytes:
    """Contents of one region of a result."""
    return unb64(result["memory"][memory]["data"])


def carry(result: dict, memory: str) -> tuple[int, bytes]:
    """(address, bytes) of a result region, to feed the next call of a chain."""
    return result["memory"][memory]["address"], region_bytes(result, memory)


def words(data: bytes, es: int) -> np.ndarray:
    """Writable copy of data as little-endian unsigned words of es bytes (bit-exact, NaN-safe)."""
    return np.frombuffer(bytes(data), dtype=f"<u{es}").copy()


def assert_memory(result: dict, case: dict, expected: dict[str, bytes]) -> None:
    """The result is ok and holds exactly the case's regions, at the same addresses, with the
    expected contents; regions missing from ``expected`` must be unchanged."""
    assert result["status"] == "ok"
    assert set(result["memory"]) == set(case["memory"])
    for name, before in case["memory"].items():
        assert result["memory"][name]["address"] == before["address"], name
        want = expected.get(name, unb64(before["data"]))
        got = region_bytes(result, name)
        assert len(got) == len(want), name
        assert got == want, f"{name}: first difference at byte {_first_difference(got, want)}"


def _first_difference(a: bytes, b: bytes) -> int:
    return next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)


def typed_case(*args: Any, **kwargs: Any) -> Case:
    """make_case's case as the suite passes it between its layers."""
    return Case.from_json(make_case(*args, **kwargs))


def expect_json(case: dict, **options: Any) -> dict:
    """The reference's result v1 of a case v1 under the packaged spec (`options`: reference.expect's), as a
    user's target sees it: a malformed case gets an error result."""
    try:
        parsed = Case.from_json(case)
    except CaseError as error:
        return Result.error(str(error)).to_json()
    return reference.expect(parsed, load_spec(), **options).to_json()
