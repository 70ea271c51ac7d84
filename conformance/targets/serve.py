"""Serve an in-process target over the exec protocol on stdin/stdout.

    python -m ascendc_conformance.targets.serve reference
    python -m ascendc_conformance.targets.serve python:my_pkg.target:MyTarget
    python -m ascendc_conformance.targets.serve --bytes-only reference

so that ``exec:python -m ascendc_conformance.targets.serve reference`` runs the
reference through the exec adapter (end-to-end tests, exec vs in-process
timing, or timeouts and crash isolation for a Python target).

Answers are passed through unvalidated: the exec adapter validates them. A request asking for the regions'
digests (`"digest": "sha256"`, the wire extension region-digest, sent only to a target whose hello announces
it) calls the object's ``execute(case, digest=True)``. A
malformed request (read by format.bounded: not UTF-8, not JSON, too deep, ...)
gets ``{"id": ..., "status": "error", "message": ...}`` and serving goes on. An exception inside the object's execute (or an answer that
cannot be written as JSON) is printed to stderr and ends the server with code
1, which the exec adapter reports as a "crashed" outcome, as the in-process
adapter would.
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import IO, Any

from ascendc_conformance.format import bounded
from ascendc_conformance.format.case import DIGEST, WIRE_EXTENSIONS, ResultStatus
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.targets import load_in_process
from ascendc_conformance.targets.python_target import object_hello

PROTOCOL = 1


def _reply(out: IO[str], request_id: Any, answer: Any) -> None:
    """Write one answer line; a non-dict answer is written as is, for the client to reject."""
    message = {"id": request_id, **answer} if isinstance(answer, dict) else answer
    out.write(json.dumps(message, separators=(",", ":")) + "\n")
    out.flush()


def _error(message: str) -> dict[str, Any]:
    return {"status": ResultStatus.ERROR.value, "message": message}


def _handle(obj: Any, name: str, request: Any, bytes_only: bool = False) -> Any:
    """Answer one parsed request (without its id); exceptions from execute propagate. `bytes_only`: the hello
    announces no wire extension, and a request asking for digests gets an error."""
    if not isinstance(request, dict):
        return _error(f"request is a JSON {type(request).__name__}, not an object")
    op = request.get("op")
    if op == "hello":
        if request.get("protocol") != PROTOCOL:
            return _error(f"unsupported protocol {request.get('protocol')!r}; this server speaks {PROTOCOL}")
        try:
            hello = object_hello(obj, name)
        except Exception as exc:
            return _error(f"hello() failed: {exc!r}")
        if bytes_only and "extensions" in hello:
            hello["extensions"] = [extension for extension in hello["extensions"] if extension not in WIRE_EXTENSIONS]
        return {"status": ResultStatus.OK.value, **hello}
    if op == "execute":
        case = request.get("case")
        if not isinstance(case, dict):
            return _error('execute request needs "case" as an object')
        digest = request.get("digest")
        if digest is None:
            return obj.execute(case)
        if bytes_only:
            return _error('execute request asks for "digest", but this server speaks bytes only (--bytes-only)')
        if digest != DIGEST:
            return _error(f'execute request "digest" must be {DIGEST!r}, got {digest!r}')
        return obj.execute(case, digest=True)   # an object announcing region-digest takes the keyword
    return _error(f"unknown op {op!r}; expected 'hello' or 'execute'")


def serve(spec: str, stdin: IO[str], stdout: IO[str], bytes_only: bool = False) -> int:
    """Answer requests from stdin until EOF; return the process exit code (`bytes_only`: see _handle)."""
    try:
        obj, name = load_in_process(spec)
    except ConformanceError as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return 2
    for line in bounded.lines(stdin):
        if not line.data.strip():
            continue
        try:
            request = line.json(f"request line {line.number}", bounded.MAX_LINE_BYTES)
        except bounded.InputError as error:
            _reply(stdout, None, _error(str(error)))
            continue
        request_id = request.get("id") if isinstance(request, dict) else None
        try:
            _reply(stdout, request_id, _handle(obj, name, request, bytes_only))
        except Exception:
            traceback.print_exc(file=sys.stderr)
            return 1
    return 0


USAGE = "usage: python -m ascendc_conformance.targets.serve [--bytes-only] reference|python:<module>:<attr>"


def main(argv: list[str]) -> int:
    """Command-line entry: ``serve [--bytes-only] <spec>`` (--bytes-only: announce no wire extension, so every
    region crosses as bytes); the object's prints go to stderr. A wrong command line: one line, exit 2."""
    bytes_only = argv[:1] == ["--bytes-only"]
    operands = argv[1:] if bytes_only else argv
    unknown = [word for word in operands if word.startswith("-")]
    if unknown or len(operands) != 1:
        problem = (f"unknown option {unknown[0]!r} (the one option is --bytes-only)" if unknown else
                   f"expected one target, got {len(operands)}")
        print(f"serve: {problem}; {USAGE}", file=sys.stderr)
        return 2
    protocol_out = sys.stdout
    sys.stdout = sys.stderr  # keep stray print() calls off the protocol stream
    return serve(operands[0], sys.stdin, protocol_out, bytes_only)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
