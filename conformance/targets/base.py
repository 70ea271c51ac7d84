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
from types import TracebackType
from typing import Any

from ascendc_conformance.format.answer import Answer, Hello
from ascendc_conformance.format.case import ResultStatus, decode_base64

#: Statuses a result v1 may carry. "unspecified" is what the reference answers
#: for behaviour the documentation leaves open; it is accepted from any target
#: (the verdict layer decides what it means) so that the reference served over
#: exec passes the same validation as everyone else.
RESULT_STATUSES: frozenset[str] = frozenset(ResultStatus)

#: How much of a traceback or stderr an Answer keeps.
TAIL_CHARS = 4000


class Target(abc.ABC):
    """A started target: hello already done, ready to execute cases.

    Use as a context manager (or call close()) so the target's resources,
    e.g. a child process, are released.
    """

    hello: Hello

    @abc.abstractmethod
    def execute(self, case: dict[str, Any]) -> Answer:
        """Run one case v1 and return its Answer; never raises for target faults."""

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
            sizes[name] = (region["address"], len(decode_base64(region["data"])))
        except (TypeError, KeyError, binascii.Error) as exc:
            raise ValueError(f"case memory region {name!r} is malformed: {exc!r}") from exc
    return sizes


def validate_result(case: dict[str, Any], result: Any) -> str | None:
    """Check a target's result v1 against its case; return what is wrong, or None.

    An "id" key, if present, is ignored (the exec adapter checks it).
    """
    if not isinstance(result, dict):
        return f"answer is a {type(result).__name__}, not a JSON object"
    if "status" not in result:
        return 'answer has no "status"'
    status = result["status"]
    if status not in RESULT_STATUSES:
        return f'answer has unknown status {status!r} (expected one of {sorted(RESULT_STATUSES)})'
    message = result.get("message")
    if message is not None and not isinstance(message, str):
        return f'answer "message" must be a string, got {type(message).__name__}'
    for key in ("rules", "depends_on"):
        if key in result and not _is_str_list(result[key]):
            return f'answer "{key}" must be a list of rule id strings, got {result[key]!r}'
    if status in ("rejected", "unspecified") and "rules" not in result:
        return f'answer with status "{status}" has no "rules" list'
    if status == "ok":
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
        return f"answer memory has region(s) {extra} that the case does not have"
    for name, (address, length) in expected.items():
        region = memory[name]
        if not isinstance(region, dict):
            return f"answer memory region {name!r} is a {type(region).__name__}, not an object"
        if region.get("address") != address or isinstance(region.get("address"), bool):
            return (
                f"answer memory region {name!r} has address {region.get('address')!r}, "
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


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    """The last ``limit`` characters of text, marked when something was cut."""
    return text if len(text) <= limit else "…" + text[-limit:]
