"""What every target adapter shares: the Target base class and the validation of a result v1 against the case
it answers (the Hello and Answer records are in the format layer, ascendc_conformance.format.answer).

A target is anything that can execute a case and give back a result (the built-in reference, a program
speaking the exec protocol, a Python object); the last two speak case v1 and result v1 JSON, which their
adapters write and read here (`read_result`: each region decoded once, checked against the case's).
Adapters turn every way a target can misbehave into an ``Answer`` of a fixed
kind, so the verdict layer never has to care about pipes or exceptions.
"""

from __future__ import annotations

import abc
import binascii
import math
from types import MappingProxyType, TracebackType
from typing import Any, Generator, Iterable, Mapping

from ascendc_conformance.format.answer import Answer, AnswerKind, Hello, quoted
from ascendc_conformance.format.bounded import MAX_DEPTH, clip
from ascendc_conformance.format.case import DIGEST, Case, Region, Result, ResultStatus, decode_base64, digest_of
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS

#: Statuses a result v1 may carry. "unspecified" is what the reference answers
#: for behaviour the documentation leaves open; it is accepted from any target
#: (the verdict layer decides what it means) so that the reference served over
#: exec passes the same validation as everyone else.
RESULT_STATUSES: frozenset[str] = frozenset(ResultStatus)


class Target(abc.ABC):
    """A started target: hello already done, ready to execute cases.

    Use as a context manager (or call close()) so the target's resources,
    e.g. a child process, are released.
    """

    hello: Hello

    @abc.abstractmethod
    def execute(self, case: Case) -> Answer:
        """Run one case and return its Answer; never raises for target faults."""

    def execute_many(self, cases: Iterable[Case], *, digests: bool = False) -> Generator[tuple[Case, Answer], None, None]:
        """Each case with its Answer, in order (an exec target keeps several in flight); stop iterating to
        send no more. `digests`: the answers may give each region's SHA-256 instead of its bytes
        (Answer.digests), where the target speaks the wire extension region-digest (not here: bytes)."""
        for case in cases:
            yield case, self.execute(case)

    def close(self) -> None:
        """Release the target's resources; the default has none."""

    def supports(self, product: str, api: str, **route: str | None) -> bool:
        """Whether the target claimed, in its hello, to handle this product and API (and route: see
        Hello.supports)."""
        return self.hello.supports(product, api, **route)

    def handles(self, extensions: frozenset[str]) -> bool:
        """Whether the target announced, in its hello, every one of these case-format extensions."""
        return extensions <= set(self.hello.extensions)

    def __enter__(self) -> Target:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def answer_of(case: Case, raw: Any, elapsed_s: float, *, digests: bool = False) -> Answer:
    """The Answer of a target's result v1 `raw` (a dict, without "id") to `case`: a result, its regions decoded,
    or an error saying what is wrong with it. `digests`: the request asked for its regions' SHA-256 (the wire
    extension region-digest): each region is its digest (Answer.digests), answered as one or as bytes."""
    result = read_result(case, raw, digests=digests)
    if isinstance(result, str):
        return Answer(kind=AnswerKind.ERROR, message=result, elapsed_s=elapsed_s)
    return Answer(kind=AnswerKind.RESULT, result=result, elapsed_s=elapsed_s,
                  digests=digests and result.memory is not None)


def read_result(case: Case, raw: Any, *, digests: bool = False) -> Result | str:
    """A target's result v1 to `case` as a Result (each region's base64 decoded once; `digests`: each region as
    the SHA-256 of its bytes, as the target gave it or worked out here), or what is wrong with it, in one line.
    An "id" key, if present, is ignored (the exec adapter checks it)."""
    if not isinstance(raw, dict):
        return f"answer is a {type(raw).__name__}, not a JSON object"
    if "status" not in raw:
        return 'answer has no "status"'
    status = raw["status"]
    if not isinstance(status, str) or status not in RESULT_STATUSES:
        return f'answer has unknown status {quoted(status)} (expected one of {sorted(RESULT_STATUSES)})'
    message = raw.get("message")
    if message is not None and not isinstance(message, str):
        return f'answer "message" must be a string, got {type(message).__name__}'
    for key in ("rules", "depends_on"):
        if key in raw and not _is_str_list(raw[key]):
            return f'answer "{key}" must be a list of rule id strings, got {quoted(raw[key])}'
    kind = ResultStatus(status)
    if kind.names_rules and "rules" not in raw:
        return f'answer with status "{status}" has no "rules" list'
    memory: Mapping[str, Region] | None = None
    if kind is ResultStatus.OK:
        regions = _memory(case, raw.get("memory"), digests)
        if isinstance(regions, str):
            return regions
        memory = MappingProxyType(regions)
    return Result(kind, memory=memory,
                  rules=tuple(raw.get("rules", ())) if kind.names_rules else (), message=message or "",
                  depends_on=tuple(raw.get("depends_on", ())))


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _memory(case: Case, memory: Any, digests: bool) -> dict[str, Region] | str:
    """The regions of an ok answer's "memory", each decoded once (`digests`: each as its SHA-256, the 32 bytes
    of its "sha256" or of its decoded bytes' digest), or how they differ in shape from the case's."""
    if not isinstance(memory, dict):
        return f'answer with status "ok" needs "memory" as an object, got {type(memory).__name__}'
    problem = _names_problem(case, memory)
    if problem is not None:
        return problem
    regions = {}
    for name, given in case.memory.items():
        region = memory[name]
        if not isinstance(region, dict):
            return f"answer memory region {name!r} is a {type(region).__name__}, not an object"
        data = region.get("data")
        problem = _address_problem(name, given, region.get("address"))
        if problem is not None:
            return problem
        if digests and DIGEST in region and data is None:
            digest = _digest(name, region[DIGEST])
            if isinstance(digest, str):
                return digest
            regions[name] = Region(given.address, digest)
            continue
        if not isinstance(data, str):
            either = f' (or "{DIGEST}", the SHA-256 its request asked for)' if digests else ""
            return f'answer memory region {name!r} needs "data" as a base64 string{either}'
        try:
            regions[name] = Region(given.address, decode_base64(data))
        except binascii.Error as exc:
            return f"answer memory region {name!r} data is not valid base64: {exc}"
        problem = _length_problem(name, given, regions[name])
        if problem is not None:
            return problem
        if digests:
            regions[name] = Region(given.address, digest_of(regions[name].data))
    return regions


def _digest(name: str, text: Any) -> bytes | str:
    """The 32 bytes of a region's "sha256" (64 lowercase hex digits), or what is wrong with it."""
    if not isinstance(text, str) or len(text) != 64 or text.strip("0123456789abcdef"):
        return f'answer memory region {name!r} "{DIGEST}" must be 64 lowercase hex digits, got {quoted(text)}'
    return bytes.fromhex(text)


def memory_problem(case: Case, memory: Mapping[str, Region]) -> str | None:
    """How a result's memory differs in shape from the case's regions (names, addresses, sizes), or None."""
    problem = _names_problem(case, memory)
    for name, given in case.memory.items():
        problem = (problem or _address_problem(name, given, memory[name].address)
                   or _length_problem(name, given, memory[name]))
    return problem


def _names_problem(case: Case, names: Iterable[str]) -> str | None:
    missing = sorted(set(case.memory) - set(names))
    if missing:
        return f"answer memory lacks region(s) {missing} of the case"
    extra = sorted(set(names) - set(case.memory))
    if extra:
        return f"answer memory has region(s) {quoted(extra)} that the case does not have"
    return None


def _address_problem(name: str, given: Region, address: Any) -> str | None:
    if address != given.address or isinstance(address, bool):
        return f"answer memory region {name!r} has address {quoted(address)}, the case has {given.address}"
    return None


def _length_problem(name: str, given: Region, region: Region) -> str | None:
    if len(region.data) != given.size:
        return (f"answer memory region {name!r} decodes to {len(region.data)} bytes, "
                f"the case region has {given.size}")
    return None


def tail(text: str, limit: int = TARGET_TEXT_CHARS) -> str:
    """The last ``limit`` characters of text (a traceback, a stderr tail), marked when something was cut."""
    return text if len(text) <= limit else f"({len(text) - limit} characters before) …" + text[-limit:]


_JSON_SCALARS = (str, int, bool, type(None))


def json_problem(value: Any, where: str = "answer") -> str | None:
    """What in an in-process target's answer is not JSON data (what an exec target could have sent), or None:
    a value of another type, a non-string key, NaN or infinity, nesting deeper than MAX_DEPTH. Walks the
    containers without recursion; their strings are not copied."""
    pending: list[tuple[Any, str, int]] = [(value, where, 0)]
    while pending:
        item, path, level = pending.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return f"{path} is {item}, not a JSON number"
        elif isinstance(item, (dict, list)):
            if level >= MAX_DEPTH:
                return f"{where} nests deeper than {MAX_DEPTH} levels"
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        return f"{path} has the key {quoted(key)}, not a string"
                    pending.append((child, f"{path}.{clip(key, 40)}", level + 1))
            else:
                pending.extend((child, f"{path}[{index}]", level + 1) for index, child in enumerate(item))
        elif type(item) not in _JSON_SCALARS:
            return f"{path} is a {type(item).__name__}, not a JSON value"
    return None
