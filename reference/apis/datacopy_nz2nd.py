"""DataCopy with Nz2NdParamsFull (003; semantics.md 3.4): NZ matrices in UB to ND rows in GM.

dst[m*dstNdMatrixStride + r*dstDStride + c] = src[m*256*srcNdMatrixStride + (c/16)*16*srcNStride + 16r + c%16]
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ascendc_conformance.reference.api_contract import Relation
from ascendc_conformance.reference.bit_witness import scalar_flips
from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.transfer import Grid, Transfer
from ascendc_conformance.spec.model import Rule


def row_overlap(call: Call, rule: Rule) -> str | None:
    p = call.params
    if p["nValue"] > 1 and p["dstDStride"] < p["dValue"]:
        return f"dstDStride {p['dstDStride']} < dValue {p['dValue']}: destination rows overlap"
    return None


def vendor_divisibility(call: Call, rule: Rule) -> str | None:
    p = call.params
    unit = call.api.constant("src_matrix_stride_unit")
    if p["ndNum"] != 1 and p["nValue"] and (p["srcNdMatrixStride"] * unit) % (p["nValue"] * call.src_dtype.size):
        return f"(srcNdMatrixStride*{unit}) mod (nValue*sizeof(T)) != 0 with ndNum {p['ndNum']}"
    return None


RELATIONS: Mapping[str, Relation] = {"row_overlap": row_overlap, "vendor_divisibility": vendor_divisibility}


def plan(call: Call) -> Transfer:
    p = call.params
    block = call.api.constant("column_block")
    matrix_unit, n_unit = call.api.constant("src_matrix_stride_unit"), call.api.constant("src_n_stride_unit")
    if p["dValue"] % block == 0:   # columns split into (column block, column in block): affine in both
        grid = Grid((p["ndNum"], p["nValue"], p["dValue"] // block, block),
                    0, (matrix_unit * p["srcNdMatrixStride"], block, n_unit * p["srcNStride"], 1),
                    0, (p["dstNdMatrixStride"], p["dstDStride"], block, 1))
        return Transfer(grid=grid)
    matrix = np.arange(p["ndNum"], dtype=np.int64)[:, None, None]
    row = np.arange(p["nValue"], dtype=np.int64)[None, :, None]
    col = np.arange(p["dValue"], dtype=np.int64)[None, None, :]
    src = (matrix * call.api.constant("src_matrix_stride_unit") * p["srcNdMatrixStride"]
           + (col // block) * call.api.constant("src_n_stride_unit") * p["srcNStride"] + block * row + col % block)
    dst = matrix * p["dstNdMatrixStride"] + row * p["dstDStride"] + col
    return Transfer(src_elements=src.ravel(), dst_elements=dst.ravel())


def derived(call: Call) -> Mapping[str, int]:
    """The offset of the last destination row of the last matrix."""
    p = call.params
    if p["ndNum"] < 1 or p["nValue"] < 1:
        return {}
    rows = (p["ndNum"] - 1) * p["dstNdMatrixStride"] + (p["nValue"] - 1) * p["dstDStride"]
    return {"dst-row-offset": rows * call.dst_dtype.size}


def locate(call: Call, dst_element: int) -> str:
    """Which matrix, row and column of the ND output destination element `dst_element` is: "matrix 0, row 3, column 17"."""
    p = call.params
    transfer = plan(call)
    hits = np.flatnonzero(transfer.dst_elements == dst_element)
    if hits.size == 0:
        return f"dst element {dst_element}, which the call does not write"
    matrix, row, column = np.unravel_index(int(hits[0]), (p["ndNum"], p["nValue"], p["dValue"]))
    return f"matrix {matrix}, row {row}, column {column}"


bit_flips = scalar_flips   # plain parameters: a bit is cleared on its own
