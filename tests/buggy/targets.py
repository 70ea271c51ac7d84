"""Buggy targets: each the reference with one small, realistic mutation, to prove the suite catches it.

Every class has ``hello()`` (a validating target, all products and APIs) and ``execute(case) -> result v1``.
``execute`` asks the reference (``reference.expect``) for the right answer and lets the bug change it only
on cases where the bug really changes the outcome: a legal case whose parameters exercise the bug (and
whose buggy transfer still fits the case's regions), or, for the validation bugs, an illegal / a legal
case. Everywhere else the answer is the reference's, so a random legal case either shows the bug or
passes. ``VERDICT`` is the verdict the bug must earn on a case where it shows, ``DIFF_CLASS`` the diff
class (conformance.diff) a memory bug must show.
"""
from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

import reference
from conformance.case import Case, Region, decode_memory, encode_memory
from reference.apis import MODULES
from reference.call import Call, resolve
from reference.transfer import Transfer, apply, byte_addresses
from spec.loader import load_spec

Result = dict[str, Any]


def _call(case: dict) -> Call:
    return resolve(Case.from_json(case), load_spec())


def _ok(memory: dict[str, Region]) -> Result:
    return {"status": "ok", "memory": encode_memory(memory)}


def _with_params(case: dict, **changes: Any) -> Result | None:
    """The reference's answer for the case with some params changed, when that answer is "ok"."""
    changed = copy.deepcopy(case)
    changed["params"].update(changes)
    result = reference.expect(changed)
    return result if result["status"] == "ok" else None


def _fits(call: Call, transfer: Transfer) -> bool:
    """The transfer's destination bytes lie inside the case's destination region."""
    if transfer.dst_elements.size == 0:
        return True
    region = call.case.memory[call.dst_memory]
    addresses = byte_addresses(call, "dst", transfer.dst_elements)
    return region.address <= int(addresses.min()) and int(addresses.max()) < region.end


class BuggyTarget:
    """The reference; subclasses override `bug`, which sees only cases the reference answers "ok"."""

    VERDICT = "fail"
    DIFF_CLASS: str | None = None

    def hello(self) -> dict:
        return {"name": f"buggy-{type(self).__name__}", "validates": True}

    def execute(self, case: dict) -> Result:
        expected = reference.expect(case)
        changed = self.bug(case, expected)
        result = changed if changed is not None else expected
        return {key: value for key, value in result.items() if key in ("status", "memory", "rules", "message")}

    def bug(self, case: dict, expected: Result) -> Result | None:
        """The buggy answer, or None where the bug does not change the outcome."""
        if expected["status"] != "ok":
            return None
        return self.legal_bug(case, expected)

    def legal_bug(self, case: dict, expected: Result) -> Result | None:
        raise NotImplementedError


def _multi_burst(case: dict) -> dict | None:
    """The params of a DataCopyParams / mixed-form DataCopy case with blockCount > 1."""
    params = case["params"]
    if case["api"] != "DataCopy" or "blockCount" not in params or params["blockCount"] < 2:
        return None
    return params


class DataCopyDstGapInElements(BuggyTarget):
    """DataCopy dstGap counted in elements of the dst dtype instead of route units (32 B; 64 B in C2).

    Shows on DataCopyParams cases with blockCount > 1 and dstGap > 0 (end-to-start routes): bursts 1… land
    inside the gap. Verdict: fail, with wrote-outside-expected-area (and the expected bursts unwritten).
    """

    DIFF_CLASS = "wrote-outside-expected-area"

    def legal_bug(self, case, expected):
        params = _multi_burst(case)
        if params is None or params["dstGap"] == 0:
            return None
        call = _call(case)
        if call.api.units_for(case["dst"]["position"]).dst_gap.start_to_start:
            return None
        transfer = MODULES["DataCopy"].plan(call)
        count = params["blockCount"]
        per_burst = transfer.dst_elements.size // count
        pitch = per_burst + params["dstGap"]
        dst = (np.arange(count, dtype=np.int64)[:, None] * pitch + np.arange(per_burst)).ravel()
        buggy = Transfer(transfer.src_elements, dst)
        return _ok(apply(call, buggy)) if _fits(call, buggy) else None


class DataCopyDstGapIgnored(BuggyTarget):
    """DataCopy dstGap ignored: destination bursts written back to back.

    Shows on DataCopyParams cases with blockCount > 1 and dstGap > 0. Verdict: fail
    (wrote-outside-expected-area where the gap should stay untouched).
    """

    DIFF_CLASS = "wrote-outside-expected-area"

    def legal_bug(self, case, expected):
        params = _multi_burst(case)
        if params is None or params["dstGap"] == 0:
            return None
        return _with_params(case, dstGap=0)


class DataCopySrcGapIgnored(BuggyTarget):
    """DataCopy srcGap ignored: source bursts read back to back.

    Shows on DataCopyParams cases with blockCount > 1 and srcGap > 0. Verdict: fail (wrong-value: bursts
    1… hold the wrong source bytes).
    """

    DIFF_CLASS = "wrong-value"

    def legal_bug(self, case, expected):
        params = _multi_burst(case)
        if params is None or params["srcGap"] == 0:
            return None
        return _with_params(case, srcGap=0)


class DataCopyBlockCountOffByOne(BuggyTarget):
    """DataCopy moves blockCount - 1 bursts (a loop bound off by one).

    Shows on DataCopyParams cases with blockCount > 1. Verdict: fail (left-expected-bytes-unwritten: the
    last burst is never written).
    """

    DIFF_CLASS = "left-expected-bytes-unwritten"

    def legal_bug(self, case, expected):
        params = _multi_burst(case)
        if params is None:
            return None
        return _with_params(case, blockCount=params["blockCount"] - 1)


class LoadDataTransposeMissing(BuggyTarget):
    """LoadData2D ignores ifTranspose: fractals copied verbatim instead of transposed.

    Shows on ifTranspose = true cases (A1 -> A2 / B1 -> B2, 16-bit dtypes). Verdict: fail (permuted: the
    right elements in the wrong places).
    """

    DIFF_CLASS = "permuted"

    def legal_bug(self, case, expected):
        if case["api"] != "LoadData2D" or not case["params"]["ifTranspose"]:
            return None
        return _with_params(case, ifTranspose=False)


class LoadDataDstGapOnTraining(BuggyTarget):
    """LoadData2D applies dstGap on atlas-training, where it is disabled (destination fractals contiguous, D24).

    Shows on atlas-training cases with repeatTimes > 1 and dstGap > 0. Those cases depend on the disputed
    rule LoadData2D-dstGap-training-D24, so the verdict is disputed with matches_default false (the diff
    shows wrote-outside-expected-area).
    """

    VERDICT = "disputed"
    DIFF_CLASS = "wrote-outside-expected-area"

    def legal_bug(self, case, expected):
        params = case["params"]
        if case["api"] != "LoadData2D" or params["repeatTimes"] < 2 or params["dstGap"] == 0:
            return None
        call = _call(case)
        if call.product.id != "atlas-training":
            return None
        transfer = MODULES["LoadData2D"].plan(call)
        fractal = call.api.constant("fractal_bytes") // call.dst_dtype.size
        slots = np.arange(params["repeatTimes"], dtype=np.int64) * (params["dstGap"] + 1)
        buggy = Transfer(transfer.src_elements, (slots[:, None] * fractal + np.arange(fractal)).ravel())
        return _ok(apply(call, buggy)) if _fits(call, buggy) else None


class Nz2NdSrcNStrideIgnored(BuggyTarget):
    """DataCopyNz2Nd ignores srcNStride: the 16-column blocks of a source matrix are taken as packed
    (nValue rows apart).

    Shows on cases with dValue > 16 and srcNStride != nValue. Verdict: fail (wrong-value).
    """

    DIFF_CLASS = "wrong-value"

    def legal_bug(self, case, expected):
        params = case["params"]
        if (case["api"] != "DataCopyNz2Nd" or params["ndNum"] == 0 or params["dValue"] <= 16
                or params["srcNStride"] == params["nValue"]):
            return None
        return _with_params(case, srcNStride=params["nValue"])


class SliceStrideIgnored(BuggyTarget):
    """DataCopySlice ignores the dimension-0 stride: the slices of a row are taken as packed.

    Shows on cases with more than one slice per row and a non-zero dimension-0 stride on either side.
    Verdict: fail (wrong-value on a strided source, wrote-outside-expected-area on a strided destination).
    """

    DIFF_CLASS = "wrong-value"

    def legal_bug(self, case, expected):
        params = case["params"]
        if case["api"] != "DataCopySlice":
            return None
        infos = {key: copy.deepcopy(params[key]) for key in ("srcSliceInfo", "dstSliceInfo")}
        size = load_spec().dtypes[case["src"]["dtype"]].size
        strided = False
        for entries in infos.values():
            first = entries[0]
            length = first["burstLen"] * 32 // size
            count = (first["endIndex"] - first["startIndex"] + 1 + first["stride"]) // (length + first["stride"])
            if first["stride"] == 0 or count < 2:
                continue
            strided = True
            first["endIndex"] = first["startIndex"] + count * length - 1
            first["stride"] = 0
        return _with_params(case, **infos) if strided else None


class CountRoundedUp(BuggyTarget):
    """DataCopy count form rounds count * sizeof(T) up to the route unit instead of down.

    Shows on count-form cases whose bytes are not a multiple of the route unit. Verdict: fail
    (wrote-outside-expected-area: the rounded-up tail).
    """

    DIFF_CLASS = "wrote-outside-expected-area"

    def legal_bug(self, case, expected):
        params = case["params"]
        if case["api"] != "DataCopy" or "count" not in params:
            return None
        spec = load_spec()
        unit = spec.apis["DataCopy"].units_for(case["dst"]["position"]).count_round_bytes
        size = spec.dtypes[case["src"]["dtype"]].size
        moved = params["count"] * size
        if moved % unit == 0:
            return None
        return _with_params(case, count=math.ceil(moved / unit) * unit // size)


class HalfToFloatRaw(BuggyTarget):
    """DataCopy C1 -> C2 half -> float copies the half bytes raw instead of converting them.

    Each burst's source bytes land unconverted at the burst's destination start (half of the burst's
    destination bytes; the rest is left alone). Every half -> float case depends on the disputed rule
    DataCopy-half-float-unit-D13, so the verdict is disputed with matches_default false (the diff shows
    wrong-value).
    """

    VERDICT = "disputed"
    DIFF_CLASS = "wrong-value"

    def legal_bug(self, case, expected):
        if case["api"] != "DataCopy" or (case["src"]["dtype"], case["dst"]["dtype"]) != ("half", "float"):
            return None
        call = _call(case)
        transfer = MODULES["DataCopy"].plan(call)
        if transfer.dst_elements.size == 0:
            return None
        count = call.params["blockCount"]
        raw = byte_addresses(call, "src", transfer.src_elements).reshape(count, -1)
        starts = byte_addresses(call, "dst", transfer.dst_elements).reshape(count, -1)[:, :1]
        src_region, dst_region = call.case.memory[call.src_memory], call.case.memory[call.dst_memory]
        image = np.frombuffer(dst_region.data, dtype=np.uint8).copy()
        values = np.frombuffer(src_region.data, dtype=np.uint8)[raw - src_region.address]
        image[starts + np.arange(raw.shape[1]) - dst_region.address] = values
        memory = dict(call.case.memory)
        memory[call.dst_memory] = Region(dst_region.address, image.tobytes())
        return _ok(memory)


class StrayWrite(BuggyTarget):
    """Writes one byte too many: the byte right after the last byte the call writes is clobbered
    (one byte past the last burst / row / fractal), on every API.

    Shows on any legal case that writes something and has a byte after its last written one in the
    destination region. Verdict: fail (wrote-outside-expected-area).
    """

    DIFF_CLASS = "wrote-outside-expected-area"

    def legal_bug(self, case, expected):
        call = _call(case)
        transfer = MODULES[call.api.name].plan(call)
        if transfer.dst_elements.size == 0:
            return None
        stray = int(byte_addresses(call, "dst", transfer.dst_elements).max()) + 1
        memory = decode_memory("expected.memory", expected["memory"])
        region = memory[call.dst_memory]
        if stray >= region.end:
            return None
        image = bytearray(region.data)
        image[stray - region.address] ^= 0xFF
        memory[call.dst_memory] = Region(region.address, bytes(image))
        return _ok(memory)


class AcceptsEverything(BuggyTarget):
    """Never rejects: an illegal (or unspecified) case is answered ok with the memory unchanged; legal
    cases are right. Verdict on an illegal case: missed-reject.
    """

    VERDICT = "missed-reject"

    def bug(self, case, expected):
        if expected["status"] in ("rejected", "unspecified"):
            return {"status": "ok", "memory": case["memory"]}
        return None


class RejectsMultiBurst(BuggyTarget):
    """Rejects every DataCopyParams call with blockCount > 1 (a validator with the wrong maximum).

    Shows on legal DataCopy cases with blockCount > 1. Verdict: false-reject.
    """

    VERDICT = "false-reject"

    def legal_bug(self, case, expected):
        params = _multi_burst(case)
        if params is None:
            return None
        return {"status": "rejected", "rules": ["buggy-blockCount-max-1"],
                "message": f"blockCount = {params['blockCount']} > 1 is not supported"}


class WritesNothing(BuggyTarget):
    """Validates correctly but never moves a byte: legal cases come back with the memory unchanged.

    Shows on every legal case that changes memory. Verdict: fail (left-expected-bytes-unwritten).
    """

    DIFF_CLASS = "left-expected-bytes-unwritten"

    def legal_bug(self, case, expected):
        if expected["memory"] == case["memory"]:
            return None
        return {"status": "ok", "memory": case["memory"]}


CATALOGUE: tuple[type[BuggyTarget], ...] = (
    DataCopyDstGapInElements, DataCopyDstGapIgnored, DataCopySrcGapIgnored, DataCopyBlockCountOffByOne,
    LoadDataTransposeMissing, LoadDataDstGapOnTraining, Nz2NdSrcNStrideIgnored, SliceStrideIgnored,
    CountRoundedUp, HalfToFloatRaw, StrayWrite, AcceptsEverything, RejectsMultiBurst, WritesNothing,
)
