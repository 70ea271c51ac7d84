"""report.md from the report document: certification statement, verdict totals, failures by cause, the baseline
(known, new, fixed causes; run --baseline), per-product coverage, rule table,
bit coverage, disputed points, failures (message, diff, replay command), waivers and notes. Tables are tabulate's
GitHub-flavoured pipe tables.

Every value from the results (a target's messages and rule names among them) is inert: plain text has its HTML
as entities and Markdown's punctuation escaped (`_escape`), identifiers, parameters and commands are code spans
(`Code`, `_code`: literal whatever they hold), a failure's message and diff a fenced block longer than any fence
inside it, and control characters are written as escapes (format.text): a `<script>`, an `<img onerror=…>`, a
`</table>`, a `|` or a backtick from a target shows as itself and does nothing.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from tabulate import tabulate

from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.text import terminal
from ascendc_conformance.reports.bit_table import BITS_COLUMNS, BITS_INTRO, row_cells
from ascendc_conformance.reports.crossings import CROSSINGS_COLUMNS, CROSSINGS_INTRO, crossing_cells
from ascendc_conformance.reports.coverage import (READINGS_COLUMNS, READINGS_INTRO, STATE_SYMBOLS, matrix_tables,
                                                  reading_rows, state_rank)

ALIKE_SHOWN = 3   # the other hypotheses that explain a cause group alike, listed by id


class Code(str):
    """A value shown as code (a test id, parameters, a command): a code span, literal whatever it holds."""


_ACTIVE = re.compile(r"[\\`*_\[\]|~<>&]")   # what Markdown or HTML would act on in running text
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def _one_line(value: object) -> str:
    return " ".join(("" if value is None else str(value)).splitlines())


def _escape(value: object) -> str:
    """Text as inert Markdown, on one line: HTML's `<`, `>` and `&` as entities, Markdown's punctuation escaped."""
    return _ACTIVE.sub(lambda match: _ENTITIES.get(match.group(), "\\" + match.group()), _one_line(value))


def _code(value: object, *, in_table: bool = False) -> str:
    """A code span of `value` on one line: delimited by more backticks than any run of them inside (padded
    when it starts or ends with one); in a table a pipe is escaped (GFM ends a cell at any other)."""
    text = _one_line(value)
    if in_table:
        text = text.replace("|", "\\|")
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _cell(value: object) -> str:
    """One table cell: a Code value as a code span, anything else escaped."""
    return _code(value, in_table=True) if isinstance(value, Code) else _escape(value)


def _section(title: str, intro: str, summary: str | None, rows: list[list[str]], columns: Sequence[str]) -> list[str]:
    """A coverage table's section: its heading, what it shows, its summary line (if any) and the table."""
    return [f"## {title}", "", intro, "", *([summary, ""] if summary else []), _table(rows, list(columns)), ""]


def _table(rows: list[list[Any]], headers: list[str]) -> str:
    if not rows:
        return "_none_"
    return tabulate([[_cell(v) for v in row] for row in rows], headers=headers, tablefmt="github",
                    disable_numparse=True)


def _counts(counts: dict[str, Any]) -> str:
    return ", ".join(f"{n} {k}" for k, n in counts.items()) or "–"


def _fence(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text}\n{fence}"


def _alike(group: dict[str, Any]) -> str:
    """The other hypotheses that explain every failure of a cause group alike, a few by id."""
    others = (group.get("hypothesis") or {}).get("alternatives") or []
    if not others:
        return ""
    more = f", … ({len(others) - ALIKE_SHOWN} more)" if len(others) > ALIKE_SHOWN else ""
    return f"; fits alike: {', '.join(others[:ALIKE_SHOWN])}{more}"


def _baseline(baseline: dict[str, Any]) -> list[str]:
    """The run against its baseline: every cause, new, known, fixed or not re-checked, with its tests."""
    out = ["## Baseline", "",
           f"Against `{baseline['source']}` (ascendc-conformance {baseline.get('suite_version')}, spec "
           f"{baseline.get('spec_digest')}; {baseline['causes']} causes), matched by cause key: a test failing only "
           "with known causes has the verdict known and does not fail the run.", ""]
    if baseline["stale"]:
        out += ["**The run failed: the baseline holds causes that no longer fail (--strict-baseline); refresh it.**", ""]
    words = {"new": "new: fails the run", "known": "known", "fixed": "fixed: no longer fails",
             "unchecked": "not re-checked: none of its tests ran"}
    rows = [[cause["label"], word, len(cause["tests"]), ", ".join(cause["tests"][:3])
             + (" …" if len(cause["tests"]) > 3 else "")] for part, word in words.items() for cause in baseline[part]]
    return out + [_table(rows, ["cause", "against the baseline", "tests", "e.g."]), ""]


def render_md(doc: dict[str, Any]) -> str:
    run, cert, coverage = doc["run"], doc["certification"], doc["coverage"]
    out: list[str] = [f"# ascendc-conformance report: {_escape(cert['target'])}", ""]
    out += [f"Generated {doc['generated']} by {doc['generator']['name']} {doc['generator']['version']} "
            f"(report format {doc['report_format']}).", ""]

    out += ["## Certification", ""]
    out += [f"> {_escape(line)}  " if i < len(cert["text"].splitlines()) - 1 else f"> {_escape(line)}"
            for i, line in enumerate(cert["text"].splitlines())]
    out += [""]
    shards = run["shards"]
    run_rows = [["started", run["started"]], ["finished", run["finished"] or "— (killed: no end record)"],
                ["exit status", run["exit_status"]],
                ["machine", ", ".join(str(s["machine"].get("node") or "?") for s in shards)],
                ["reading", run["reading"]],
                ["products selected", ", ".join(run["products"]) or "all"],
                ["APIs selected", ", ".join(run["apis"]) or "all"]]
    if run.get("command"):
        run_rows.append(["command", Code(run["command"])])
    if len(shards) > 1 or shards[0].get("shard"):
        run_rows.append(["shards", "; ".join(f"{s['shard'] or '-'} ({s['source']}, {s['tests']} tests"
                                             f"{', killed' if s['killed'] else ''})" for s in shards)])
    out += [_table(run_rows, ["run", ""]), ""]

    out += ["## Verdict totals", ""]
    tests, cases = doc["verdicts"]["tests"], doc["verdicts"]["cases"]
    verdicts = list(tests) + [v for v in cases if v not in tests]
    rows = [[v, tests.get(v, 0), cases.get(v, 0)] for v in verdicts]
    rows.append(["total", sum(tests.values()), sum(cases.values())])
    out += [_table(rows, ["verdict", "tests", "cases"]), ""]

    # what a reader acts on first: one row per root cause (each failing test in full comes after the tables)
    out += ["## Failures by cause", ""]
    if doc.get("failure_groups"):
        rows = [[", ".join(g.get("verdicts") or [g["cause"]["verdict"]]) + (" (known)" if g.get("known") else ""),
                 g["smallest"].get("words", g["cause"]["label"]) + _alike(g)
                 + (f" (on {', '.join(g['routes'])})" if g.get("routes") else ""),
                 g["count"], Code(g["smallest"]["test_id"]), Code(g["smallest"]["params"]),
                 Code(g["smallest"]["replay_command"]) if g["smallest"]["replay_command"] else "–"]
                for g in doc["failure_groups"]]
        out += [_table(rows, ["verdicts", "cause", "tests", "smallest case", "params", "replay"]), ""]
    else:
        out += ["No failure verdict.", ""]

    if doc.get("baseline"):
        out += _baseline(doc["baseline"])

    out += ["## Coverage per product", ""]
    paths = coverage["paths"]
    out += [f"{paths['covered']} of {paths['selected']} selected paths x dtypes covered "
            f"({paths['documented']} documented, {paths['failing']} failing).", ""]
    rows = [[p["id"], p["display_name"], "yes" if p["selected"] else "no", p["paths"], p["covered"], p["failing"],
             _counts(p["states"])] for p in coverage["products"]]
    out += [_table(rows, ["product", "name", "selected", "paths", "covered", "failing", "states"]), ""]
    legend = ", ".join(f"`{symbol}` {state}" for state, symbol in STATE_SYMBOLS.items())
    out += [f"Per route, the dtypes by state ({legend}):", ""]
    for table in matrix_tables(coverage):
        if not table["selected"] and not any(c for r in table["rows"] for c in r["cells"] if c and c["covered"]):
            continue
        out += [f"### {_escape(table['product'])} ({_escape(table['display_name'])})", ""]
        states = {c["state"] for r in table["rows"] for c in r["cells"] if c}
        if len(states) == 1:
            state = states.pop()
            out += [f"All {table['summary']['paths']} paths x dtypes: {_escape(STATE_SYMBOLS.get(state, state))} "
                    f"{_escape(state)}.", ""]
            continue
        rows = []
        for row in table["rows"]:
            groups: dict[str, list[str]] = {}
            for cell in row["cells"]:
                if cell is not None:
                    groups.setdefault(cell["state"], []).append(cell["dtype"])
            rows.append([row["api"], row["route"],
                         "; ".join(f"{STATE_SYMBOLS.get(state, state)} {state}: {', '.join(groups[state])}"
                                   for state in sorted(groups, key=state_rank))])
        out += [_table(rows, ["API", "route", "dtypes"]), ""]
    unselected = [t["product"] for t in matrix_tables(coverage) if not t["selected"]]
    if unselected:
        out += [f"Not selected in this run: {_escape(', '.join(unselected))}.", ""]

    out += ["## Rules", ""]
    summary = coverage["rules_summary"]
    out += [f"{summary['covered']} of {summary['total']} rules exercised.", ""]
    out += [f"- not exercised, {_escape(reason)} ({len(ids)}): {', '.join(_code(id_) for id_ in ids)}"
            for reason, ids in summary.get("uncovered_rules", {}).items()] + ([""] if summary.get("uncovered_rules") else [])
    rows = [[r["id"], r["status"], r["kind"], r["legal_hits"], r["boundary_hits"], r["rejected"], r["other_rule"],
             r["missed"],
             _counts({k: v for k, v in r["illegal_counts"].items() if k not in (Outcome.PASS, Outcome.MISSED_REJECT)}),
             r["reason"] or "covered", r["citation"]] for r in coverage["rules"]]
    out += [_table(rows, ["rule", "status", "kind", "legal hits", "boundary hits", "rejected",
                          "rejected for another rule", "missed",
                          "other illegal outcomes", "coverage", "citation"]), ""]

    bits, crossings = coverage.get("bits_summary"), coverage.get("crossings_summary")
    out += _section("Bit coverage", BITS_INTRO,
                    f"{bits['effective']} of {bits['reachable']} reachable bits witnessed; {bits['complete']} of "
                    f"{bits['fields']} fields complete." if bits else None,
                    [row_cells(row) for row in coverage.get("bits", ())], BITS_COLUMNS)
    out += _section("Derived offsets: crossings", CROSSINGS_INTRO,
                    f"{crossings['crossed']} of {crossings['reachable']} reachable crossings made "
                    f"({crossings['crossings']} in all)." if crossings else None,
                    [crossing_cells(row) for row in coverage.get("crossings", ())], CROSSINGS_COLUMNS)

    out += ["## Disputed points: which reading the target follows", "", READINGS_INTRO, ""]
    out += [_table(reading_rows(coverage["disputed"]), list(READINGS_COLUMNS)), ""]

    out += ["## Failing tests", ""]
    if not doc["failures"]:
        out += ["No failure verdict.", ""]
    for failure in doc["failures"]:
        out += [f"### {_escape(failure['verdict'])}: {_code(failure['test_id'])}", ""]
        what = [f"{k} {failure[k]}" for k in ("product", "api", "route", "dtype", "rule", "variant") if failure.get(k)]
        if what:
            out += ["- " + _escape("; ".join(what))]
        if failure.get("params"):
            out += [f"- case: {_code(failure['params'])}"]
        if failure.get("replay"):
            out += [f"- replay file: {_code(failure['replay'])}" + ("" if failure.get("replay_exists") else " (missing)")]
        if failure.get("replay_command"):
            out += [f"- replay command: {_code(failure['replay_command'])}"]
        out += ["", _fence(failure["message"] + (f"\n{failure['diff_text']}" if failure["diff_text"] else "")), ""]

    out += ["## Waivers", ""]
    waivers = doc["waivers"]
    if not waivers["declared"] and not waivers["used"]:
        out += ["No waivers.", ""]
    else:
        rows = [[Code(w["waiver"].get("rule") or w["waiver"].get("test")), w["waiver"]["reason"], w["waiver"]["link"],
                 len(w["tests"]), Code(", ".join(w["tests"]))] for w in waivers["used"]]
        out += ["Used:", "", _table(rows, ["rule / test", "reason", "link", "tests", "test ids"]), ""]
        rows = [[Code(w.get("rule") or w.get("test")), w["reason"], w["link"]] for w in waivers["unmatched"]]
        out += ["Matched nothing:", "", _table(rows, ["rule / test", "reason", "link"]), ""]

    if doc["notes"]:
        out += ["## Notes", ""] + [f"- {_escape(note)}" for note in doc["notes"]] + [""]
    return terminal("\n".join(out).rstrip() + "\n")
