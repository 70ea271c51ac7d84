"""`expect`: the reference's expected result for a case file, or for a stream of cases (JSON lines)."""
from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path
from functools import partial
from typing import Any, Callable, TextIO

from ascendc_conformance.cli.commands import add_verb_parser, write_json
from ascendc_conformance.format import bounded
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.format.errors import CaseError, ConformanceError, ReadingError
from ascendc_conformance import reference
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import Reading, Spec


def register(subparsers: Any) -> None:
    parser = add_verb_parser(
        subparsers, "expect", help="the reference's expected result of a case",
        description="Print the expected result (format v1) of a case (format v1) under a reading of the\n"
                    "disputed points (--reading; default: seed, every point's default), as computed by the\n"
                    "numpy reference. --readings prints instead the outcome under each computable reading\n"
                    "of the points the case depends on: {\"reading\", \"points\", \"outcomes\": [{\"reading\",\n"
                    "\"choices\", \"status\", \"rules\", \"depends_on\", \"same_as\"}, ...]} (same_as: the first\n"
                    "reading listed before with the same result).\n\n"
                    "With a file: one JSON case in, one pretty-printed JSON result out. The exit code is 0,\n"
                    "or 1 when the result is {\"status\": \"error\"} (the case is malformed).\n\n"
                    "With '-': JSON lines on stdin, one case per line; one compact result per line on\n"
                    "stdout, in order, flushed after each line. Blank lines are skipped. A line that is\n"
                    "not JSON, not an object or not a valid case gets {\"status\": \"error\", \"message\": ...}\n"
                    "naming the line number, and the stream goes on (exit code 0).",
        examples=["ascendc-conformance expect case.json",
                  "ascendc-conformance expect --reading D13=destination-bytes case.json",
                  "ascendc-conformance expect --readings case.json",
                  "cat cases.jsonl | ascendc-conformance expect - > results.jsonl"])
    parser.add_argument("case", metavar="CASE", help="a case JSON file, or '-' for JSON lines on stdin")
    parser.add_argument("--reading", action="append", default=[], metavar="SET|POINT=ALT",
                        help="answer under this reading (a reading set such as devkit, or POINT=ALTERNATIVE); "
                             "repeatable, merged")
    parser.add_argument("--readings", action="store_true",
                        help="show the outcome under each computable reading of the points the case depends on")
    parser.set_defaults(func=cmd_expect)


def cmd_expect(args: argparse.Namespace) -> int:
    spec = load_spec()
    try:
        reading = spec.reading(args.reading)
    except ReadingError as error:
        raise ConformanceError(f"--reading: {error}") from None
    answer = partial(outcomes_json if args.readings else expected_json, spec=spec, reading=reading)
    if args.case == "-":
        return expect_stream(sys.stdin, sys.stdout, answer)
    return expect_file(Path(args.case), answer)


def _parsed(case: Any) -> Case | dict[str, Any]:
    """The case of a case v1 dict, or the error result of a malformed one."""
    try:
        return Case.from_json(case)
    except CaseError as error:   # its message may quote the case (a 1 MB product name): cut, as a target's text is
        return Result.error(clip(str(error), TARGET_TEXT_CHARS)).to_json()


def expected_json(case: Any, spec: Spec, reading: Reading) -> dict[str, Any]:
    """The case's result v1 under `reading`."""
    parsed = _parsed(case)
    return reference.expect(parsed, spec, reading=reading).to_json() if isinstance(parsed, Case) else parsed


def outcomes_json(case: Any, spec: Spec, reading: Reading) -> dict[str, Any]:
    """The case's outcome under `reading` and every other computable reading of the points it depends on."""
    parsed = _parsed(case)
    if not isinstance(parsed, Case):
        return parsed
    expected, others = reference.expect_readings(parsed, spec, reading)
    if expected.status is ResultStatus.ERROR:
        return expected.to_json()
    pairs = [(reading, expected), *others]
    outcomes = [{"reading": other.label, "choices": dict(other.choices), "status": result.status.value,
                 "rules": list(result.rules), "depends_on": list(result.depends_on),
                 "same_as": next((pairs[j][0].label for j in range(i) if pairs[j][1] == result), None)}
                for i, (other, result) in enumerate(pairs)]
    points = sorted({point for other, _ in others for point in {*other.choices, *reading.choices}
                     if other.alternative(point) != reading.alternative(point)})
    return {"reading": reading.label, "points": points, "outcomes": outcomes}


def expect_file(path: Path, answer: Callable[[Any], dict[str, Any]]) -> int:
    """The result of the case in the file at `path`, pretty-printed; an unreadable file is a usage error."""
    try:
        data = bounded.read_file(path, bounded.MAX_LINE_BYTES)   # InputError (a usage error) when larger
    except FileNotFoundError:
        raise ConformanceError(f"{path}: no such case file") from None
    except IsADirectoryError:
        raise ConformanceError(f"{path}: is a directory, expected a case JSON file") from None
    except OSError as error:
        raise ConformanceError(f"{path}: cannot read the case file: {error.strerror or error}") from None
    result = answer(bounded.loads(data, str(path)))
    write_json(result)
    return 1 if result.get("status") == ResultStatus.ERROR else 0


def _error(number: int, message: str) -> dict[str, Any]:
    return {"status": ResultStatus.ERROR.value, "message": f"line {number}: {message}"}


def expect_stream(stdin: TextIO, stdout: TextIO, answer: Callable[[Any], dict[str, Any]]) -> int:
    """One compact result line per non-blank input line, in order; a line that cannot be read (format.bounded:
    not UTF-8, not JSON, too deep, NaN, ...) or is not a valid case gets an error result, and the stream goes
    on."""
    for line in bounded.lines(stdin):
        number = line.number
        if not line.data.strip():
            continue
        try:
            case = line.json(f"line {number}", bounded.MAX_LINE_BYTES)
        except bounded.InputError as error:
            write_json({"status": ResultStatus.ERROR.value, "message": str(error)}, compact=True, stream=stdout)
            continue
        if not isinstance(case, dict):
            write_json(_error(number, f"expected a JSON object (one case), got {type(case).__name__}"),
                       compact=True, stream=stdout)
            continue
        try:
            result = answer(case)
        except Exception as error:  # a reference bug must not stop the stream; show it on stderr
            traceback.print_exc(file=sys.stderr)
            result = _error(number, f"internal error in the reference: {type(error).__name__}: {error}")
        else:
            if result.get("status") == ResultStatus.ERROR:
                result = {**result, "message": f"line {number}: {result.get('message', '')}"}
        write_json(result, compact=True, stream=stdout)
    return 0
