"""How a target with a bug makes a call: the `Twin` the reference computes in its place, and the bug classes an
API declares beside its reference module (`Misreading`, ApiReference.MISREADINGS).

A twin is the call as the buggy target makes it — other parameters, addresses, units or dtypes, or a transfer
that no plan of the call gives (a raw copy, nothing at all) — and what the target checks of it: rules it leaves
unchecked, the rules a too-strict validator names refusing it, bytes past its last write that it clobbers.
reference.prediction computes what a twin leaves in the case's regions and which rules it breaks;
judge.diagnosis holds that against the target's answer. The generic bug classes (a field kept in too few bits,
read as signed, ignored, off by one; see reference.hypotheses) make their twins through the API module's
`read_as`; the API-specific ones are the module's MISREADINGS.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, Callable, Mapping

from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.transfer import Grid, Transfer

Read = Callable[[int], int]
"""How a target reads one value of a field: kept in 8 bits is `lambda value: value & 0xFF`."""
TwinKey = tuple[Any, ...]
"""What tells one twin from another (Twin.key): twins of equal key are computed once."""


@dataclass(frozen=True)
class Twin:
    """A call as a target with a hypothesised bug makes it, and what it checks of it."""

    call: Call                             # the parameters, addresses, units and dtypes the target works with
    transfer: Transfer | None = None       # what it moves, where that is not the plan of `call` (None: the plan)
    label: str = ""                        # names what besides parameters and addresses makes the twin: a units
                                           # change, a computed transfer (twins of equal key are computed once)
    unchecked: frozenset[str] = frozenset()   # rules it does not check: the call moves as if they held
    refuses: tuple[str, ...] | None = None   # a too-strict validator: refuses the call, naming these rules (or none)
    spill: int = 0                         # bytes after the call's last written byte that it clobbers

    @cached_property
    def key(self) -> TwinKey:
        """Equal for two twins the reference computes alike: the same call made the same way."""
        case = self.call.case
        return (repr(sorted(case.params.items())), case.src.address, case.dst.address, self.call.dst_dtype.name,
                self.label, self.unchecked, self.refuses, self.spill)


@dataclass(frozen=True)
class Misreading:
    """One bug class of an API's own (ApiReference.MISREADINGS), as data the reference computes: the twin a
    target with it makes of a call, as a disputed reading's `effects` say what an alternative changes. Its
    hypothesis id is `<API>:<name>`."""

    name: str                              # stable, unique in the API: "count-rounded-up"
    title: str                             # the cause's words: "count form rounded up to the route unit, not down"
    twin: Callable[[Call], Twin | None]    # the call as the target makes it; None where the bug changes nothing
    says: Callable[[Call], str]            # the values that show it on a call: "count 20 x 2 B, against the
                                           # 32-B route unit"
    breadth: float = 1.0                   # the share of calls it changes (a narrower one is named first)


def with_params(call: Call, params: Mapping[str, Any], **addresses: int) -> Call:
    """The call with other parameter values (the same keys and types: a misread value stays an int) and, by
    operand name, other start addresses: what resolving it would give, without resolving it again."""
    case = replace(call.case, params=MappingProxyType(dict(params)),
                   **{name: replace(getattr(call.case, name), address=address) for name, address in addresses.items()})
    return replace(call, case=case, derived={})


def scalar_read_as(call: Call, field: str, read: Read) -> dict[str, Any] | None:
    """`ApiReference.read_as` for plain parameters: the field read through `read` (a bool stays a bool); None
    where the call has no such field or its value reads as itself."""
    value = call.params.get(field)
    if value is None:
        return None
    seen = read(int(value))
    if seen == int(value):
        return None
    return {**call.params, field: bool(seen) if isinstance(value, bool) else seen}


def regrid(transfer: Transfer, **changes: Any) -> Transfer | None:
    """A grid transfer with some of its Grid fields changed (`src_strides=...`): a twin that walks the same
    elements otherwise; None for a transfer without a grid."""
    if transfer.grid is None:
        return None
    return Transfer(depends_on=transfer.depends_on, grid=replace(transfer.grid, **changes))


def said(*fields: str) -> Callable[[Call], str]:
    """`Misreading.says` naming the values of plain parameters: "srcStride 3, repeatTimes 2"."""
    return lambda call: ", ".join(f"{field} {call.params[field]}" for field in fields if field in call.params)


EMPTY = Transfer(grid=Grid((0,), 0, (1,), 0, (1,)))
"""A transfer that moves nothing."""
