"""A case resolved against the spec: the product, API, form, dtypes and memories one call works with.

Building a `Call` is where a malformed case is refused (CaseError): unknown product, position, dtype or
memory, params that match no form of the API, or values of the wrong type. Whether the call is *legal*
is decided later, by the rules (reference.legality).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ascendc_conformance.format.case import REGION_INDEX, SPARSE_MEMORY, Case, Operand, memory_of
from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.reference.index import for_spec
from ascendc_conformance.spec.model import Api, Dtype, Field, Form, Product, Reading, Spec


@dataclass(frozen=True)
class Signature:
    """What a case's names and parameter keys decide: the same for every case that shares them."""

    api: Api
    product: Product
    form: Form
    src_dtype: Dtype
    dst_dtype: Dtype
    src_memory: str | None
    dst_memory: str | None
    sparse: bool   # some memory has several regions (case-format extension sparse-memory)


@dataclass(frozen=True)
class Call(Signature):
    """One case resolved against the spec: its signature, the case itself, the spec it was resolved in and the
    reading of the disputed points it is answered under."""

    case: Case
    spec: Spec
    reading: Reading
    # Per-call scratch space for what an API module derives from the params more than once per call (e.g.
    # the slice counts every DataCopySlice relation check asks for); never part of the call's identity.
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def params(self) -> Mapping[str, Any]:
        return self.case.params

    def operand(self, name: str) -> Operand:
        return self.case.operand(name)

    def dtype(self, name: str) -> Dtype:
        return self.src_dtype if name == "src" else self.dst_dtype

    def memory(self, name: str) -> str:
        """The physical memory operand `name` ("src" or "dst") lives in: a call past the route check (legality)
        has both."""
        memory = self.src_memory if name == "src" else self.dst_memory
        assert memory is not None, f"the {name} position of a routed call has a memory"
        return memory

    @property
    def route(self) -> tuple[str, str]:
        return (self.case.src.position, self.case.dst.position)


def resolve(case: Case, spec: Spec, reading: Reading | None = None) -> Call:
    """Resolve names and the parameter form; raise CaseError naming the first thing that is malformed.
    `reading` (default: the seed reading) is the reading the call is answered under.

    What the names and parameter keys decide (product, API, form, dtypes, memories) is the same for every
    case that shares them, so it is worked out once per spec (SpecIndex.signatures); only the values' types
    are checked per call."""
    index = for_spec(spec)
    src, dst = case.src, case.dst
    key = (case.product, case.api, src.position, src.dtype, dst.position, dst.dtype, tuple(case.params),
           tuple(case.memory), case.extensions)
    signature = index.signatures.get(key)
    if signature is None:
        signature = index.signatures[key] = _signature(case, spec)
    if signature.sparse:
        _check_apart(case)
    api = signature.api
    for name, param in signature.form.fields.items():
        if not _plainly_typed(api, param, case.params[name]):
            _check_value(spec, api, f"case.params.{name}", param, case.params[name])
    return Call(**signature.__dict__, case=case, spec=spec, reading=reading or spec.seed_reading)


def _signature(case: Case, spec: Spec) -> Signature:
    """The case's Signature; CaseError for an unknown name or parameter keys that match no form."""
    product_id = spec.resolve_product(case.product)
    if product_id is None:
        known = ", ".join(p.id for p in spec.products)
        raise CaseError(f"case.product: unknown product {case.product!r}; expected one of {known} or an alias")
    product = spec.product(product_id)
    api = spec.apis.get(case.api)
    if api is None:
        raise CaseError(f"case.api: unknown API {case.api!r}; expected one of {', '.join(spec.apis)}")
    for name, operand in (("src", case.src), ("dst", case.dst)):
        if operand.position not in spec.positions:
            raise CaseError(f"case.{name}.position: unknown TPosition {operand.position!r}; "
                            f"expected one of {', '.join(spec.positions)}")
        if operand.dtype not in spec.dtypes:
            raise CaseError(f"case.{name}.dtype: unknown dtype {operand.dtype!r}; "
                            f"expected one of {', '.join(spec.dtypes)}")
    for key in case.memory:
        _check_region_key(spec, case, key)
    mixed = case.src.dtype != case.dst.dtype
    form = _form_of(api, case.params, mixed, for_spec(spec).forms_with_keys(api.name, tuple(case.params)))
    return Signature(api, product, form, spec.dtypes[case.src.dtype], spec.dtypes[case.dst.dtype],
                     product.memory_of(case.src.position), product.memory_of(case.dst.position),
                     any(REGION_INDEX in key for key in case.memory))


def _check_region_key(spec: Spec, case: Case, key: str) -> None:
    """A region key is a memory's name, or with the sparse-memory extension `<memory>#<n>` (n >= 1)."""
    memory, _, index = key.partition(REGION_INDEX)
    if memory not in spec.memories:
        raise CaseError(f"case.memory.{key}: unknown memory; expected one of {', '.join(spec.memories)}")
    if key == memory:
        return
    if SPARSE_MEMORY not in case.extensions:
        raise CaseError(f"case.memory.{key}: a further region of {memory} needs the case-format extension "
                        f"{SPARSE_MEMORY} (case \"extensions\"); without it, key each memory's one region by its name")
    if not index.isdigit() or int(index) < 1:
        raise CaseError(f"case.memory.{key}: expected {memory}{REGION_INDEX}<n> with n = 1, 2, ...")


def _check_apart(case: Case) -> None:
    """The regions of one memory share no byte (sparse-memory extension)."""
    spans = sorted((memory_of(key), region.address, region.end, key) for key, region in case.memory.items())
    for (memory, _, end, key), (next_memory, start, _, next_key) in zip(spans, spans[1:]):
        if memory == next_memory and start < end:
            raise CaseError(f"case.memory.{next_key} overlaps case.memory.{key}: the regions of one memory must "
                            "not share a byte")


def _form_of(api: Api, params: Mapping[str, Any], mixed: bool, matches: tuple[Form, ...]) -> Form:
    """The form whose fields are exactly the params' keys (`matches`); with differing dtypes a mixed form wins."""
    if not matches:
        expected = "; ".join(f"{form.name}: {{{', '.join(form.fields)}}}" for form in api.forms.values())
        raise CaseError(f"case.params: keys {{{', '.join(params)}}} match no parameter form of {api.name} "
                        f"(expected exactly the keys of one form — {expected})")
    preferred = [form for form in matches if form.mixed_dtypes == mixed]
    return (preferred or matches)[0]


def _plainly_typed(api: Api, field: Field, value: Any) -> bool:
    """A quick yes for the common case (a plain int, a plain bool, a list of exactly-keyed structs of plain
    ints); anything else goes through _check_value, which words the problem."""
    if field.array_of is None:
        return type(value) is bool if field.ctype == "bool" else type(value) is int
    fields = api.structs[field.array_of]
    if type(value) is not list:
        return False
    for item in value:
        if type(item) is not dict or item.keys() != fields.keys():
            return False
        for name, sub in fields.items():
            if not _plainly_typed(api, sub, item[name]):
                return False
    return True


def _check_value(spec: Spec, api: Api, where: str, field: Field, value: Any) -> None:
    """Types only: a value of the right type but outside its range is a rule matter, not a format one."""
    if field.array_of is not None:
        fields = api.structs[field.array_of]
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise CaseError(f"{where}: expected a list of {field.array_of} objects, got {value!r}")
        for i, item in enumerate(value):
            if set(item) != set(fields):
                raise CaseError(f"{where}[{i}]: expected exactly the keys {{{', '.join(fields)}}}, got {{{', '.join(item)}}}")
            for name, sub in fields.items():
                _check_value(spec, api, f"{where}[{i}].{name}", sub, item[name])
        return
    if field.ctype == "bool":
        if not isinstance(value, bool):
            raise CaseError(f"{where}: expected true or false, got {value!r}")
    elif isinstance(value, bool) or not isinstance(value, int):
        raise CaseError(f"{where}: expected an integer ({field.ctype}), got {value!r}")
