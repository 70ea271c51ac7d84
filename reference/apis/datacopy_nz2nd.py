"""DataCopy with Nz2NdParamsFull (003; semantics.md 3.4): NZ matrices in UB to ND rows in GM.

dst[m*dstNdMatrixStride + r*dstDStride + c] = src[m*256*srcNdMatrixStride + (c/16)*16*srcNStride + 16r + c%16]
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from ascendc_conformance.reference.api_contract import Relation
from ascendc_conformance.reference.bit_witness import scalar_flips
from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.misreading import Misreading, Twin, regrid, said, scalar_read_as, with_params
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


# --- DataCopyNz2Nd's own bug classes (reference.hypotheses): strides read in another unit or sense -----------------
# The plan's grid axes: (matrix, row, column block, column in block).

def _packed_blocks(call: Call) -> Twin | None:
    """The column blocks of a source matrix taken as packed: srcNStride read as nValue (the usual NZ layout)."""
    p = call.params
    return None if p["srcNStride"] == p["nValue"] else Twin(with_params(call, {**p, "srcNStride": p["nValue"]}))


def _restrided(label: str, operand: str, axis: int, stride: Callable[[Call], int]) -> Callable[[Call], Twin | None]:
    """One axis of the plan's grid walked with another stride (in elements)."""
    def twin(call: Call) -> Twin | None:
        base = plan(call)
        if base.grid is None:
            return None
        strides = list(getattr(base.grid, f"{operand}_strides"))
        strides[axis] = stride(call)
        return Twin(call, label=label, transfer=regrid(base, **{f"{operand}_strides": tuple(strides)}))
    return twin



MISREADINGS: tuple[Misreading, ...] = (
    Misreading("srcNStride-as-nValue", "column blocks of a source matrix taken as packed (srcNStride read as nValue)",
               _packed_blocks, said("srcNStride", "nValue")),
    Misreading("srcNStride-in-elements", "srcNStride counted in elements, not in 16-element units",
               _restrided("srcNStride in elements", "src", 2, lambda call: call.params["srcNStride"]),
               said("srcNStride")),
    Misreading("srcNdMatrixStride-in-512-bytes", "srcNdMatrixStride counted in 512-B units, not in 256 elements",
               _restrided("srcNdMatrixStride in 512 B", "src", 0,
                          lambda call: call.params["srcNdMatrixStride"] * 512 // call.src_dtype.size),
               lambda call: f"srcNdMatrixStride {call.params['srcNdMatrixStride']}, {call.src_dtype.name}"),
    Misreading("dstDStride-as-gap", "dstDStride taken as a gap after each row, not the distance between row starts",
               _restrided("dstDStride as a gap", "dst", 1,
                          lambda call: call.params["dValue"] + call.params["dstDStride"]),
               said("dstDStride", "dValue")),
)


read_as = scalar_read_as   # plain parameters: a field is read on its own
