"""What every target adapter shares: the Target base class and the validation of a result v1 against the case
it answers (the Hello and Answer records are in the format layer, ascendc_conformance.format.answer).

A target is anything that can execute a case v1 and give back a result v1 (the
built-in reference, a program speaking the exec protocol, a Python object).
Adapters turn every way a target can misbehave into an ``Answer`` of a fixed
kind, so the verdict layer never has to care about pipes or exceptions.
"""

from __future__ import annotations

import abc
import binascii
import math
from types import TracebackType
from typing import Any, Iterable, Iterator

from ascendc_conformance.format.answer import Answer, Hello, quoted
from ascendc_conformance.format.bounded import MAX_DEPTH, clip
from ascendc_conformance.format.case import ResultStatus, decode_base64
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
    def execute(self, case: dict[str, Any]) -> Answer:
        """Run one case v1 and return its Answer; never raises for target faults."""

    def execute_many(self, cases: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], Answer]]:
        """Each case with its Answer, in order (an exec target keeps several in flight); stop iterating to
        send no more."""
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


def region_sizes(case: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Map each memory region of a case to (address, byte length).

    The case is produced by the suite itself, so a malformed one is a bug of
    the caller and raises ValueError rather than becoming an Answer.
    """
    memory = case.get("memory")
    if not isinstance(memory, dict):
        raise ValueError('case has no "memory" object')
    sizes = {}
    for name, region in memory.items():
        try:
            sizes[name] = (region["address"], _decoded_length(region["data"]))
        except (TypeError, KeyError, binascii.Error) as exc:
            raise ValueError(f"case memory region {name!r} is malformed: {exc!r}") from exc
    return sizes


def _decoded_length(text: str) -> int:
    """The bytes a padded base64 text decodes to, from its length (the case's own text: it need not be decoded,
    which for a region of megabytes costs more than the rest of the answer's checks)."""
    if len(text) % 4:
        raise binascii.Error(f"base64 text of {len(text)} characters, not a multiple of 4")
    return len(text) // 4 * 3 - (text[-2:].count("=") if text else 0)


def validate_result(case: dict[str, Any], result: Any) -> str | None:
    """Check a target's result v1 against its case; return what is wrong, or None.

    An "id" key, if present, is ignored (the exec adapter checks it).
    """
    if not isinstance(result, dict):
        return f"answer is a {type(result).__name__}, not a JSON object"
    if "status" not in result:
        return 'answer has no "status"'
    status = result["status"]
    if not isinstance(status, str) or status not in RESULT_STATUSES:
        return f'answer has unknown status {quoted(status)} (expected one of {sorted(RESULT_STATUSES)})'
    message = result.get("message")
    if message is not None and not isinstance(message, str):
        return f'answer "message" must be a string, got {type(message).__name__}'
    for key in ("rules", "depends_on"):
        if key in result and not _is_str_list(result[key]):
            return f'answer "{key}" must be a list of rule id strings, got {quoted(result[key])}'
    if ResultStatus(status).names_rules and "rules" not in result:
        return f'answer with status "{status}" has no "rules" list'
    if status == ResultStatus.OK:
        return _memory_problem(region_sizes(case), result.get("memory"))
    return None


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _memory_problem(expected: dict[str, tuple[int, int]], memory: Any) -> str | None:
    """Say how the "memory" of an ok answer differs in shape from the case's regions."""
    if not isinstance(memory, dict):
        return f'answer with status "ok" needs "memory" as an object, got {type(memory).__name__}'
    missing = sorted(set(expected) - set(memory))
    if missing:
        return f"answer memory lacks region(s) {missing} of the case"
    extra = sorted(set(memory) - set(expected))
    if extra:
        return f"answer memory has region(s) {quoted(extra)} that the case does not have"
    for name, (address, length) in expected.items():
        region = memory[name]
        if not isinstance(region, dict):
            return f"answer memory region {name!r} is a {type(region).__name__}, not an object"
        if region.get("address") != address or isinstance(region.get("address"), bool):
            return (
                f"answer memory region {name!r} has address {quoted(region.get('address'))}, "
                f"the case has {address}"
            )
        data = region.get("data")
        if not isinstance(data, str):
            return f'answer memory region {name!r} needs "data" as a base64 string'
        try:
            decoded = decode_base64(data)
        except binascii.Error as exc:
            return f"answer memory region {name!r} data is not valid base64: {exc}"
        if len(decoded) != length:
            return (
                f"answer memory region {name!r} decodes to {len(decoded)} bytes, "
                f"the case region has {length}"
            )
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
