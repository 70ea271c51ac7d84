"""One module per API: its transfer plan and its relational checks, keyed by the spec's API name."""
from __future__ import annotations

from types import ModuleType

from ascendc_conformance.reference.apis import datacopy, datacopy_nz2nd, datacopy_slice, loaddata2d

MODULES: dict[str, ModuleType] = {
    "DataCopy": datacopy,
    "DataCopySlice": datacopy_slice,
    "LoadData2D": loaddata2d,
    "DataCopyNz2Nd": datacopy_nz2nd,
}
