"""junit.xml from the report document: one <testcase> per conformance test, one <testsuite> per test kind.

- fail / missed-reject / wrong-rule / false-reject / flaky: <failure type="<verdict>" message="..."> with the message,
  the rendered diff and the replay command as text;
- error / timeout / crashed: <error> likewise;
- skipped, not-supported, waived, known (every cause in the run's baseline) and flaky under --allow-flaky:
  <skipped message="..."> (a waiver names its reason and link);
- pass and disputed: a passing testcase (a disputed test notes the readings followed in <system-out>).

Every <testsuite>'s properties name the run's reading, its baseline and what it made of the run's causes, per disputed point which reading the target follows
(`reading-followed:<point>`: the summary word, the counts, an example and what is not computed), and per field
its bit coverage (`bits:<API>.<field>`: witnessed / reachable bits, the missing ones, the unreachable ones and why).

Built with xml.etree (escaping done by it); control characters (e.g. of a target's stderr) are written as escapes
and other characters XML 1.0 cannot hold replaced first.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from ascendc_conformance.format.outcome import Outcome, SkipReason
from ascendc_conformance.format.text import terminal
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.reports.bit_table import row_cells
from ascendc_conformance.reports.coverage import reading_rows

KIND_ORDER = (TestKind.LEGAL, TestKind.ILLEGAL, TestKind.BOUNDARY)
_INVALID_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: object) -> str:
    """A string XML 1.0 can hold, inert on a terminal: control characters written as escapes (format.text), any
    other character XML cannot hold (a lone surrogate) as U+FFFD."""
    return _INVALID_XML.sub("\ufffd", terminal("" if text is None else str(text)))


def _failure_body(test: dict[str, Any], failure: dict[str, Any] | None) -> str:
    parts = [test.get("message") or ""]
    if failure is not None:
        if failure.get("diff_text"):
            parts.append(failure["diff_text"])
        if failure.get("replay"):
            parts.append(f"replay file: {failure['replay']}")
        if failure.get("replay_command"):
            parts.append(f"replay: {failure['replay_command']}")
    return "\n".join(p for p in parts if p)


def _baseline_properties(baseline: dict[str, Any] | None) -> list[tuple[str, object]]:
    """The run's baseline as properties: where it is and its known, new, fixed and unchecked causes."""
    if not baseline:
        return []
    return [("baseline", baseline["source"]),
            *((f"baseline-{part}", "; ".join(cause["label"] for cause in baseline[part]) or "none")
              for part in ("known", "new", "fixed", "unchecked"))]


def render_junit(doc: dict[str, Any]) -> str:
    run = doc["run"]
    failures = {f["test_id"]: f for f in doc["failures"]}
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for test in doc["tests"]:
        by_kind.setdefault(test["kind"], []).append(test)
    kinds = [k for k in KIND_ORDER if k in by_kind] + sorted(k for k in by_kind if k not in KIND_ORDER)
    root = ET.Element("testsuites", name="ascendc-conformance")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    hostname = str((run.get("machine") or {}).get("node") or "")
    for kind in kinds:
        tests = by_kind[kind]
        suite = ET.SubElement(root, "testsuite", name=xml_text(f"ascendc-conformance.{kind}"))
        properties = ET.SubElement(suite, "properties")
        for name, value in (("target", run["target"]), ("suite_version", run["suite_version"]),
                            ("spec_digest", run["spec_digest"]), ("profile", run["profile"]), ("seed", run["seed"]),
                            ("reading", run["reading"]),
                            ("products", ",".join(run["products"]) or "all"),
                            ("apis", ",".join(run["apis"]) or "all"), ("killed", run["killed"]),
                            ("outcome", doc["certification"]["outcome"]),
                            ("certification", doc["certification"]["is_certification"]),
                            *_baseline_properties(doc.get("baseline"))):
            ET.SubElement(properties, "property", name=name, value=xml_text(value))
        for point, title, run_reading, counts, example, follows, missing in reading_rows(doc["coverage"]["disputed"]):
            ET.SubElement(properties, "property", name=xml_text(f"reading-followed:{point}"),
                          value=xml_text(f"{follows} ({counts or 'no discriminating case'}; run's reading "
                                         f"{run_reading}; example {example}; not computed: {missing})"))
        for row in doc["coverage"].get("bits", ()):
            api, field, documented, summary, missing, unreachable = row_cells(row)
            ET.SubElement(properties, "property", name=xml_text(f"bits:{api}.{field}"),
                          value=xml_text(f"{summary} reachable bits witnessed (documented {documented}); missing: "
                                         f"{missing}; unreachable: {unreachable}"))
        totals_of_suite: dict[str, float] = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        for test in tests:
            verdict = Outcome.parse(test["verdict"])
            allowed = verdict is Outcome.FLAKY and run.get("allow_flaky")   # does not fail the run
            tag = "skipped" if allowed else verdict.junit_tag
            classname = ".".join(x for x in ("ascendc", kind, test.get("api") or "", test.get("product") or "") if x)
            case = ET.SubElement(suite, "testcase", name=xml_text(test["test_id"]), classname=xml_text(classname),
                                 time=f"{float(test.get('duration_s') or 0):.3f}")
            totals_of_suite["tests"] += 1
            totals_of_suite["time"] += float(test.get("duration_s") or 0)
            if tag in ("failure", "error"):
                totals_of_suite["failures" if tag == "failure" else "errors"] += 1
                first_line = (test.get("message") or verdict).splitlines()[0] if test.get("message") else verdict
                element = ET.SubElement(case, tag, type=verdict.value, message=xml_text(f"{verdict}: {first_line}"))
                element.text = xml_text(_failure_body(test, failures.get(test["test_id"])))
            elif tag == "skipped":
                totals_of_suite["skipped"] += 1
                reason = test.get("skipped_reason") or test.get("message") or verdict
                if verdict is Outcome.WAIVED and test.get("waiver"):
                    waiver = test["waiver"]
                    reason = f"waived ({waiver.get('reason')}; {waiver.get('link')}): {test.get('message') or ''}"
                elif verdict is Outcome.NOT_SUPPORTED and test.get("skip") != SkipReason.NOT_SUPPORTED:
                    reason = f"not-supported: {reason}"
                elif verdict is Outcome.KNOWN:
                    reason = f"known (every cause of its failure is in the baseline): {test.get('message') or ''}"
                elif allowed:
                    reason = f"flaky (allowed by --allow-flaky): {test.get('message') or ''}"
                ET.SubElement(case, "skipped", message=xml_text(reason))
            elif verdict is not Outcome.PASS:
                out = ET.SubElement(case, "system-out")
                detail = "; ".join(f"{point}: " + ", ".join(f"{name} {n}" for name, n in seen.items())
                                   for point, seen in (test.get("disputed") or {}).items())
                out.text = xml_text(f"{verdict}: {test.get('message') or ''}" + (f"\n{detail}" if detail else ""))
        for key in ("tests", "failures", "errors", "skipped"):
            suite.set(key, str(totals_of_suite[key]))
            totals[key] += totals_of_suite[key]
        suite.set("time", f"{totals_of_suite['time']:.3f}")
        totals["time"] += totals_of_suite["time"]
        if run.get("started"):
            suite.set("timestamp", xml_text(run["started"]))
        if hostname:
            suite.set("hostname", xml_text(hostname))
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(totals[key]))
    root.set("time", f"{totals['time']:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
