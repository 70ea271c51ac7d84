"""The verbs of the `ascendc-conformance` command, one module per verb.

A verb module exposes ``register(subparsers) -> None``: it adds its parser to the argparse
sub-parsers of the top-level command and sets ``func`` (``func(args) -> int``, the exit code) with
``parser.set_defaults(func=...)``. conformance/cli/main.py imports every module named in its ``COMMANDS``
tuple, so a new verb is one new module here plus one line there.

Conventions shared by the verbs (helpers below):
- a verb's parser is made with `add_verb_parser`, which gives it a description, an "examples:"
  epilog and argparse.RawDescriptionHelpFormatter;
- a usage problem (unknown product, unreadable file, ...) is raised as ascendc_conformance.format.errors.ConformanceError
  with a message naming what was wrong and what is valid; cli.main prints it without a traceback and
  exits 2;
- JSON goes to stdout through `write_json` (pretty by default, one compact line with ``compact=True``).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence, TextIO

from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.spec.loader import load_spec, read_spec
from ascendc_conformance.spec.model import Spec


def add_verb_parser(subparsers: Any, name: str, *, help: str, description: str,
                    examples: Sequence[str] = (), **kwargs: Any) -> argparse.ArgumentParser:
    """A sub-parser with a description, an examples epilog and the raw-description formatter."""
    epilog = kwargs.pop("epilog", None)
    if examples:
        block = "examples:\n" + "\n".join(f"  {line}" for line in examples)
        epilog = f"{block}\n\n{epilog}" if epilog else block
    return subparsers.add_parser(name, help=help, description=description, epilog=epilog,
                                 formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)


def write_json(data: Any, *, compact: bool = False, stream: TextIO | None = None) -> None:
    """Write `data` as JSON and a newline to stdout (or `stream`), then flush."""
    stream = stream or sys.stdout
    if compact:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    else:
        text = json.dumps(data, indent=2, ensure_ascii=False)
    stream.write(text + "\n")
    stream.flush()


def spec_files_in(directory: str | Path) -> list[Path]:
    """The *.yaml files of a spec directory; a missing or empty directory is a usage error."""
    path = Path(directory)
    if not path.is_dir():
        raise ConformanceError(f"--spec-dir {directory}: not a directory")
    files = sorted(path.glob("*.yaml"))
    if not files:
        raise ConformanceError(f"--spec-dir {directory}: no *.yaml spec files in it")
    return files


def load_spec_from(spec_dir: str | Path | None) -> Spec:
    """The packaged spec (cached), or the full spec found in `spec_dir` (read now)."""
    if spec_dir is None:
        return load_spec()
    return read_spec(spec_files_in(spec_dir))
