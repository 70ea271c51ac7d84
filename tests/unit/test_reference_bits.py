"""reference.bit_witness: the bits a run tracks per field, and which bits a legal call witnesses (set, and cleared to
another legal call that moves other bytes)."""
from __future__ import annotations

import pytest

from ascendc_conformance.reference import bit_witness as bits
from ascendc_conformance.format.case import Case
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.reference.transfer import Grid, Transfer
from tests.helpers.casebuild import make_case, sentinel

SPEC = load_spec()
LOADDATA = {"startIndex": 0, "repeatTimes": 2, "srcStride": 1, "sid": 0, "dstGap": 0, "ifTranspose": False,
            "addrMode": 0}


def _witnesses(case: dict) -> dict[str, tuple[int, ...]]:
    return bits.witnesses(Case.from_json(case), SPEC)


def _datacopy(dtype: str, params: dict) -> dict:
    return make_case("DataCopy", "atlas-a2", ("GM", dtype, 64), ("VECIN", dtype, 0), params,
                     {"GM": sentinel(4096, 1), "UB": sentinel(4096, 2)})


def test_the_documented_range_gives_the_bits():
    tracked = {f.name: len(f.bits) for f in bits.fields(SPEC, "DataCopy")}
    assert tracked == {"count": 32, "blockCount": 12, "blockLen": 16, "srcGap": 16, "dstGap": 16}
    loaddata = {f.name: len(f.bits) for f in bits.fields(SPEC, "LoadData2D")}
    assert "sid" not in loaddata and "addrMode" not in loaddata and loaddata["repeatTimes"] == 8   # must be 0
    assert bits.field(SPEC, "DataCopySlice", "srcSliceInfo.stride").high == 2**32 - 1


def test_a_gap_bit_is_witnessed_only_with_a_second_burst():
    params = {"blockCount": 3, "blockLen": 5, "srcGap": 6, "dstGap": 0}
    assert _witnesses(_datacopy("half", params)) == {"blockCount": (0, 1), "blockLen": (0, 2), "srcGap": (1, 2)}
    assert _witnesses(_datacopy("half", {**params, "blockCount": 1, "dstGap": 7})) == {"blockLen": (0, 2)}


def test_count_bits_below_the_route_unit_move_nothing_else():
    """count * sizeof(T) rounds down to 32 B: bit b of count matters only where 2**b * sizeof(T) >= 32."""
    assert _witnesses(_datacopy("int8_t", {"count": 0b1111111})) == {"count": (5, 6)}
    assert _witnesses(_datacopy("int64_t", {"count": 0b1111111})) == {"count": (2, 3, 4, 5, 6)}


def test_a_disabled_field_witnesses_nothing():
    """LoadData2D dstGap is ignored on atlas-training (D24, default reading): its bits have no effect there."""
    def case(product: str) -> dict:
        return make_case("LoadData2D", product, ("A1", "half", 0), ("A2", "half", 0), {**LOADDATA, "dstGap": 3},
                         {"L1": sentinel(2048, 4), "L0A": sentinel(4096, 5)})
    assert _witnesses(case("atlas-a2"))["dstGap"] == (0, 1)
    assert "dstGap" not in _witnesses(case("atlas-training"))


def test_a_slice_bit_is_cleared_with_its_slices_kept():
    """Clearing a bit of a slice's stride moves its endIndex along (the slice count stays); clearing a bit of
    startIndex moves the slice; a bit whose clearing would put endIndex past shapeValue witnesses nothing."""
    case = make_case("DataCopySlice", "atlas-a2", ("GM", "float", 64), ("VECIN", "float", 64),
                     {"dimValue": 2,
                      "dstSliceInfo": [{"startIndex": 0, "endIndex": 47, "stride": 0, "burstLen": 3, "shapeValue": 48},
                                       {"startIndex": 0, "endIndex": 1, "stride": 0, "burstLen": 1, "shapeValue": 2}],
                      "srcSliceInfo": [{"startIndex": 16, "endIndex": 70, "stride": 7, "burstLen": 3, "shapeValue": 87},
                                       {"startIndex": 0, "endIndex": 2, "stride": 1, "burstLen": 1, "shapeValue": 3}]},
                     {"GM": sentinel(1200, 6), "UB": sentinel(512, 7)})
    found = _witnesses(case)
    assert found["srcSliceInfo.stride"] == (0, 1, 2)
    assert found["srcSliceInfo.startIndex"] == (4,)
    assert found["srcSliceInfo.shapeValue"] == (0, 1, 2, 4)          # 87 - 64 = 23 < endIndex 70: illegal
    assert "dstSliceInfo.shapeValue" not in found                    # 48 - 16 < 47; the outer shape moves nothing


@pytest.mark.parametrize("same", [True, False])
def test_two_grids_of_one_mapping_move_the_same(same: bool):
    one = Transfer(grid=Grid((2, 8), 0, (8, 1), 0, (8, 1)))
    merged = Transfer(grid=Grid((1, 16), 0, (99, 1), 0, (99, 1)))
    other = Transfer(grid=Grid((2, 8), 0, (9, 1), 0, (8, 1)))
    assert bits.same_moves(one, merged if same else other) is same
