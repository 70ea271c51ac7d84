"""Per-API parameter drawing: each module has `draw_params(draw, ctx, pinned) -> (params, Extents)` and
`reachable(ctx, pinned) -> bool` (whether pinned boundary values fit the product's memories at all)."""
from __future__ import annotations

from types import ModuleType

from ascendc_conformance.strategies.apis import datacopy, datacopy_nz2nd, datacopy_slice, loaddata2d

MODULES: dict[str, ModuleType] = {
    "DataCopy": datacopy,
    "DataCopySlice": datacopy_slice,
    "LoadData2D": loaddata2d,
    "DataCopyNz2Nd": datacopy_nz2nd,
}
