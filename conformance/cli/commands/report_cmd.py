"""`report`: regenerate reports from saved results, merge shards, compare two runs."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ascendc_conformance.cli.commands import add_verb_parser, write_json
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.format.exits import help_text
from ascendc_conformance.format.files import output_directory, usable_path
from ascendc_conformance.format.text import terminal
from ascendc_conformance.reports import FORMATS, build_document, load_results, render_document, write_all, write_text
from ascendc_conformance.reports.compare import compare, render_table
from ascendc_conformance.spec.loader import load_spec

FORMAT_CHOICES = ("md", "html", "json", "junit")


def register(subparsers: Any) -> None:
    parser = add_verb_parser(
        subparsers, "report", help="write reports (md, html, json, junit) from saved results; merge shards; compare runs",
        description="Regenerate the reports of a run from its results.jsonl: report.json (format 1, see\n"
                    "reports/schema/report-v1.schema.json), junit.xml, report.md and report.html (one\n"
                    "self-contained file). Several sources are shards of one run (same target, spec digest,\n"
                    "profile and seed) and are merged into one report. --compare OLD NEW lists new failures,\n"
                    "fixed tests, coverage lost and other verdict changes; with --fail-on-regression\n"
                    "it exits 1 when NEW has a new cause of failure or lost coverage.\n\n"
                    "A SOURCE is a report directory (holding results.jsonl) or a results.jsonl file.",
        examples=["ascendc-conformance report reports/run1                    # all four formats into reports/run1",
                  "ascendc-conformance report reports/run1 --format md --out -  # report.md to stdout",
                  "ascendc-conformance report reports/run1/results.jsonl --format html --out /tmp/run1.html",
                  "ascendc-conformance report shard1/ shard2/ shard3/ --out merged/   # merge shards",
                  "ascendc-conformance report --compare reports/last-week reports/today",
                  "ascendc-conformance report --compare old/ new/ --json > changes.json",
                  "ascendc-conformance report --compare main-run/ pr-run/ --fail-on-regression   # a CI gate"],
        epilog="Without --format every format is written into the directory (the source's own, or --out DIR);\n"
               "with --format one file is written to --out PATH (a file, '-' for stdout, or a directory) or\n"
               "into the source's directory. Merging several sources requires --out.\n"
               "Each line of results.jsonl is checked (strict JSON, the types of its fields); a bad line is\n"
               "named as file:line and field; only a line a killed run left unfinished (the last one, or one\n"
               "followed by a later run's records) is skipped. A file holding several runs (a reused report\n"
               "directory) is reported as its last run. The file is read one line at a time: memory holds the\n"
               "last run's records (one per test), never the whole file.\n\n"
               + help_text("0 reports written / comparison printed; 1 with --fail-on-regression, NEW regressed "
                           "(a new cause of failure, or lost coverage); 2 also unreadable or malformed results, "
                           "shards of different runs, or an output directory that cannot be created or written"))
    parser.add_argument("sources", nargs="*", metavar="SOURCE", help="report directory or results.jsonl; several = shards")
    parser.add_argument("--format", choices=FORMAT_CHOICES, help="write only this format")
    parser.add_argument("--out", metavar="PATH", help="output directory (all formats) or file (--format; '-' = stdout)")
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="compare two runs instead of writing reports")
    parser.add_argument("--json", action="store_true", help="with --compare: print JSON instead of tables")
    parser.add_argument("--fail-on-regression", action="store_true",
                        help="with --compare: exit 1 if NEW regressed: a cause of failure no test of OLD failed with "
                             "(matched by its key: API, verdict, rule, what tells the behaviour apart; never a test "
                             "id or seed), or lost coverage: a test that judged cases in OLD and none in NEW, a path "
                             "x dtype or a rule OLD covered and NEW does not")
    parser.add_argument("--details", action="store_true",
                        help="list every test in full in report.json (default: the tests that did not fail are "
                             "summarised to their verdict and counts; results.jsonl keeps everything)")
    parser.set_defaults(func=cmd_report)


def cmd_report(args: Any) -> int:

    if args.compare:
        if args.sources:
            raise ConformanceError("--compare OLD NEW takes no other SOURCE; give the two runs after --compare")
        return _compare(args)
    if args.json:
        raise ConformanceError("--json goes with --compare; use --format json for report.json")
    if args.fail_on_regression:
        raise ConformanceError("--fail-on-regression goes with --compare OLD NEW")
    if not args.sources:
        raise ConformanceError("give a report directory or results.jsonl (or --compare OLD NEW); see --help")
    merging = len(args.sources) > 1
    if merging and not args.out:
        raise ConformanceError(f"merging {len(args.sources)} sources needs --out DIR (where the merged report goes)")
    if args.out and args.out != "-":   # a usage error before the sources are read
        try:
            usable_path(Path(args.out))
        except ConformanceError as error:
            raise ConformanceError(f"--out: {error}") from None
    results = load_results(*args.sources)
    for note in results.notes:
        print(terminal(f"note: {note}"), file=sys.stderr)
    if args.format is None:
        if args.out == "-":
            raise ConformanceError("--out - (stdout) needs one --format")
        out_dir = Path(args.out) if args.out else _own_dir(args.sources[0])
        if out_dir.exists() and not out_dir.is_dir():
            raise ConformanceError(f"--out {out_dir}: not a directory (without --format every format is written)")
        _writable("--out" if args.out else "SOURCE", out_dir)
        written = write_all(out_dir, results, spec=load_spec(), details=args.details)
        for fmt, path in written.items():
            print(f"{fmt}: {path}")
        return 0
    name = FORMATS[args.format]
    if args.out == "-":
        doc = build_document(results, Path.cwd(), spec=load_spec(), details=args.details)
        sys.stdout.write(render_document(args.format, doc))
        sys.stdout.flush()
        return 0
    if args.out:
        out = Path(args.out)
        path = out / name if out.is_dir() or args.out.endswith(("/", "\\")) else out
    else:
        path = _own_dir(args.sources[0]) / name
    _writable("--out" if args.out else "SOURCE", path.parent)
    usable_path(path)
    doc = build_document(results, path.parent, spec=load_spec(), details=args.details)
    write_text(path, render_document(args.format, doc))
    print(f"{args.format}: {path}")
    return 0


def _writable(option: str, directory: Path) -> None:
    """A usage error (one line naming the option) unless reports can be written into `directory`."""
    try:
        output_directory(directory)
    except ConformanceError as error:
        raise ConformanceError(f"{option}: {error}") from None


def _own_dir(source: str) -> Path:
    path = Path(source)
    return path if path.is_dir() else path.parent


def _compare(args: Any) -> int:

    old, new = (load_results(source) for source in args.compare)
    comparison = compare(old, new, load_spec())
    if args.json:
        write_json(comparison.to_json())
    else:
        sys.stdout.write(terminal(render_table(comparison)))
        sys.stdout.flush()
    return 1 if args.fail_on_regression and comparison.regression else 0
