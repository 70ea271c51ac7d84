"""What a pack says of the spec, checked: its test list, its cases and their expected results.

format.pack checks a pack against itself (hashes, schema, the manifest's counts and profile against its files).
This module checks it against this suite: the manifest's selection must list exactly the tests the spec makes
for it (ids, kinds, subjects, in run order), and — unless its id is pinned (`--pack-id`: the certifier who
published the id vouches for its content) — every expected result of every case, under every reading the pack
stores, must be the reference's. A disagreement is the pack's error (PackError, exit 2), never a target's
verdict: a pack whose expectations were edited is refused before the first case is sent.

The cases themselves are not drawn again: a Hypothesis draw depends on more than its seed (the release, and
the constants it gathers from the modules loaded), so the manifest's profile and seed cannot be checked by
drawing; a test holding more cases than its profile draws is refused (format.pack), and a run whose pack id is
not pinned is never a certification run (reports.coverage).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from ascendc_conformance.format import bounded
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance import reference
from ascendc_conformance.format.pack import MANIFEST_FILE, Pack, PackError, canonical, verify_pack
from ascendc_conformance.judge.packed import expectations
from ascendc_conformance.runner.selection import PACKED_KINDS, Selection, selected_apis, selected_products, subject
from ascendc_conformance.spec.model import Spec


def check_pack(directory: str | Path, spec: Spec, *, pack_id: str | None = None, rederive_pinned: bool = False,
               progress: Callable[[int, int, str], None] | None = None) -> Pack:
    """The pack in `directory`, checked against itself (format.pack.verify_pack, refused unless its id is
    `pack_id` when given) and against `spec`: its test list always, its expected results re-derived when its
    id is not pinned (or `rederive_pinned`: `pack verify` checks everything). PackError (one line naming the
    file) for anything that does not hold."""
    pack = verify_pack(directory, pack_id)
    check_test_list(pack, spec)
    if pack_id is None or rederive_pinned:
        rederive(pack, spec, progress)
    return pack


def check_test_list(pack: Pack, spec: Spec) -> None:
    """The pack's spec is this suite's, and its manifest lists exactly the tests this suite makes for the
    selection it names (ids, kinds and subjects, in run order): a test dropped, added or relabelled is refused."""
    manifest = pack.directory / MANIFEST_FILE
    if pack.spec_digest != spec.digest:
        raise PackError(f"{pack.directory} was built from spec {pack.spec_digest} (ascendc-conformance "
                        f"{pack.manifest['suite_version']}); this suite's spec is {spec.digest}: run the pack with "
                        "the release that built it, or build a pack with this one")
    try:
        selection = Selection(spec, selected_products(spec, pack.products), selected_apis(spec, pack.apis))
    except ConformanceError as error:   # an unknown product or API in 'built'
        raise PackError(f"{manifest}: 'built': {error}") from None
    expected = {test_id: (kind.value, dict(subject(item))) for test_id, kind, item in selection.items(*PACKED_KINDS)}
    listed = {test.id: (test.kind, dict(test.subject)) for test in pack.tests.values()}
    named = (f"the selection it names (products {', '.join(pack.products) or 'all'}, APIs "
             f"{', '.join(pack.apis) or 'all'})")
    missing = [test_id for test_id in expected if test_id not in listed]
    if missing:
        raise PackError(f"{manifest}: lists {len(listed)} tests; {named} has {len(expected)}: {len(missing)} "
                        f"missing, e.g. {missing[0]} (a pack holds every test of its selection)")
    unknown = [test_id for test_id in listed if test_id not in expected]
    if unknown:
        raise PackError(f"{manifest}: {len(unknown)} test(s) are not tests of {named}, e.g. {unknown[0]}; build "
                        "the pack with this release")
    for test_id, claimed in listed.items():
        if claimed != expected[test_id]:
            raise PackError(f"{manifest}: test {test_id}: kind and subject {bounded.shown(claimed, 200)}; this "
                            f"suite's test is {bounded.shown(expected[test_id], 200)}")
    if list(listed) != list(expected):
        raise PackError(f"{manifest}: its tests are not in the run's order (the order `pack build` writes)")


def rederive(pack: Pack, spec: Spec, progress: Callable[[int, int, str], None] | None = None) -> None:
    """Work out every case's expected results again with the reference, under every computable reading of the
    points it depends on, and check that the pack stores exactly those (PackError naming the first case that
    differs): a pack run without a pinned id trusts no stored expectation, a pass's included."""
    for number, test in enumerate(pack.tests.values(), start=1):
        path = pack.directory / test.file
        for packed in pack.read_test(test.id).cases:
            case_id = packed.case["id"]
            try:
                case = packed.materialize()
                expected, others = reference.expect_readings(case, spec)
            except ConformanceError as error:   # a call the reference cannot take (an unknown route, dtype...)
                raise PackError(f"{path}: case {case_id}: {error}") from None
            points, derived = expectations(expected, others)
            if packed.points != points or len(packed.expected) != len(derived):
                raise PackError(f"{path}: case {case_id}: stores expected results for the disputed point(s) "
                                f"{', '.join(packed.points) or 'none'}; the reference's depend on "
                                f"{', '.join(points) or 'none'}: the pack's expectations were changed")
            for (choices, stored), (derived_choices, result) in zip(packed.expected, derived):
                if dict(choices) != dict(derived_choices) or canonical(stored) != canonical(result):
                    reading = ", ".join(f"{p}={a}" for p, a in choices.items()) or "the default reading"
                    raise PackError(f"{path}: case {case_id}: its expected result under {reading} "
                                    f"({_result_words(stored)}) is not the reference's ({_result_words(result)}): "
                                    "the pack's expectations were changed")
        if progress is not None:
            progress(number, len(pack.tests), test.id)


def _result_words(result: Mapping[str, Any]) -> str:
    """A stored result in a few words: its status and rules, or the digests of its regions."""
    if result.get("status") == "rejected":
        return f"rejected {', '.join(result.get('rules', ())) or '(no rule)'}"
    if result.get("memory"):
        return result["status"] + ", " + ", ".join(f"{name} {region['sha256'][:12]}…"
                                                   for name, region in sorted(result["memory"].items()))
    return str(result.get("status"))
