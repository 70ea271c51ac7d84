"""spec.loader: the packaged spec loads and is consistent; a malformed file is refused with messages that
name the file, the line, the key and what was expected — every problem at once, never a traceback.

Broken specs are made by copying a packaged YAML file into tmp_path and editing its text, then loading
it in place of the packaged file of the same name (`files_with_overrides`). The expected line is found
by searching the edited text, so the tests do not depend on the current line numbers of the YAML.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ascendc_conformance.spec.errors import SpecError, SpecIssue
from ascendc_conformance.spec.loader import SPEC_DIR, default_files, files_with_overrides, load_spec

SEEDS = {"000_53d37fbf51f3620c.txt", "001_4c703f841be2a5ba.txt", "002_bed9725f2be7b8dc.txt",
         "003_e2f7527acf8f81a5.txt"}
NOTES = "semantics.md"


# --- helpers ---------------------------------------------------------------------------------------

def edited(tmp_path: Path, name: str, *edits: tuple[str, str]) -> Path:
    """A copy of packaged spec file `name` in tmp_path with each (old, new) replaced once."""
    text = (SPEC_DIR / name).read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) >= 1, f"{old!r} is not in {name}; update the test's edit"
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first occurrence of `needle` in the file."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def issues_of(*paths: Path) -> list[SpecIssue]:
    with pytest.raises(SpecError) as caught:
        load_spec(files_with_overrides(list(paths)))
    issues = caught.value.issues
    assert issues, "a SpecError must carry at least one issue"
    return issues


def only_issue(*paths: Path) -> SpecIssue:
    issues = issues_of(*paths)
    assert len(issues) == 1, "\n".join(map(str, issues))
    return issues[0]


def assert_issue(issue: SpecIssue, file: str, line: int | None, key: str | None, *phrases: str) -> None:
    text = str(issue)
    assert issue.file == file, text
    assert issue.line == line, text
    if key is not None:
        assert issue.key == key, text
        if key:
            assert f"at '{key}'" in text
    prefix = f"{file}:{line}" if line else file
    assert text.startswith(prefix), text
    for phrase in phrases:
        assert phrase in issue.message, f"{phrase!r} not in {text!r}"


def rule_index(name: str, rule_id: str) -> int:
    """Position of a rule in the `rules` list of a packaged file (for the expected key path)."""
    ids = re.findall(r"^\s*-\s*\{?\s*id:\s*([A-Za-z0-9_.-]+)", (SPEC_DIR / name).read_text(encoding="utf-8").split("\nrules:", 1)[1], re.M)
    return ids.index(rule_id)


# --- the packaged spec -----------------------------------------------------------------------------

def test_packaged_spec_loads() -> None:
    spec = load_spec()
    assert set(spec.apis) == {"DataCopy", "DataCopySlice", "LoadData2D", "DataCopyNz2Nd"}
    assert [p.id for p in spec.products] == ["atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                                             "atlas-inference-vectorcore", "atlas-training"]
    assert spec.rules and spec.paths() and spec.disputes
    assert re.fullmatch(r"[0-9a-f]{16}", spec.digest)


def test_loading_is_cached_and_files_with_overrides_keeps_the_rest(tmp_path: Path) -> None:
    assert load_spec() is load_spec()
    override = edited(tmp_path, "common.yaml")
    chosen = files_with_overrides([override])
    assert len(chosen) == len(default_files())
    assert override in chosen and SPEC_DIR / "common.yaml" not in chosen
    assert load_spec(chosen).digest == load_spec().digest  # same bytes, same digest


def test_every_rule_cites_a_seed_or_the_notes() -> None:
    for rule in load_spec().rules.values():
        assert rule.citation.source in SEEDS | {NOTES}, f"{rule.id} cites {rule.citation.source!r}"
        assert rule.citation.section.strip(), rule.id
        assert rule.description.strip(), rule.id


def test_every_api_and_path_cites_a_seed() -> None:
    spec = load_spec()
    for api in spec.apis.values():
        assert api.citation.source in SEEDS, api.name
    for path in spec.paths():
        assert path.citation.source in SEEDS, path.label


def test_disputed_rules_name_an_existing_point() -> None:
    spec = load_spec()
    for rule in spec.rules.values():
        if rule.status == "disputed":
            assert rule.dispute, f"disputed rule {rule.id} names no disputed point"
        if rule.dispute is not None:
            assert rule.dispute in spec.disputes, f"{rule.id} names unknown point {rule.dispute!r}"


def test_rule_ids_are_unique_across_files() -> None:
    ids = []
    for path in default_files():
        text = path.read_text(encoding="utf-8")
        if "\nrules:" in text:
            ids += re.findall(r"^\s*-\s*\{?\s*id:\s*([A-Za-z0-9_.-]+)", text.split("\nrules:", 1)[1], re.M)
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    assert set(ids) == set(load_spec().rules)


def test_rule_lines_point_at_the_rule() -> None:
    for rule in load_spec().rules.values():
        lines = (SPEC_DIR / rule.file).read_text(encoding="utf-8").splitlines()
        assert rule.line is not None and rule.id in "\n".join(lines[rule.line - 1:rule.line + 1]), rule.id


# --- malformed files: one problem each -------------------------------------------------------------

def test_missing_required_field(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", (', description: "blockCount <= 4095."', ""))
    issue = only_issue(path)
    index = rule_index("datacopy.yaml", "DataCopy-blockCount-max")
    assert_issue(issue, "datacopy.yaml", line_of(path, "id: DataCopy-blockCount-max,"), f"rules.{index}",
                 "'description'", "required", "add it")


def test_unknown_key(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("id: DataCopy-blockCount-max,", "id: DataCopy-blockCount-max, colour: red,"))
    issue = only_issue(path)
    index = rule_index("datacopy.yaml", "DataCopy-blockCount-max")
    assert_issue(issue, "datacopy.yaml", line_of(path, "colour: red"), f"rules.{index}",
                 "unknown key", "'colour'", "allowed keys", "description")


def test_wrong_type(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("field: blockCount, max: 4095", "field: blockCount, max: lots"))
    issue = only_issue(path)
    index = rule_index("datacopy.yaml", "DataCopy-blockCount-max")
    assert_issue(issue, "datacopy.yaml", line_of(path, "max: lots"), f"rules.{index}.max",
                 "expected integer", "'lots'")


def test_wrong_type_in_products(tmp_path: Path) -> None:
    path = edited(tmp_path, "products.yaml", ("L1:  {bytes: 1048576, status: vendor-only",
                                              "L1:  {bytes: 1 MiB, status: vendor-only"))
    issues = issues_of(path)
    line = line_of(path, "bytes: 1 MiB")
    assert issues and all(i.file == "products.yaml" and i.line == line for i in issues), issues
    assert all(i.key.endswith("capacities.L1.bytes") and "expected integer" in i.message
               and "'1 MiB'" in i.message for i in issues), issues


def test_range_rule_min_above_max(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("field: srcGap, min: 0, max: 65535", "field: srcGap, min: 7000, max: 6535"))
    issue = only_issue(path)
    index = rule_index("datacopy.yaml", "DataCopy-srcGap-range")
    assert_issue(issue, "datacopy.yaml", line_of(path, "min: 7000"), f"rules.{index}.min",
                 "min 7000 > max 6535", "expected min <= max")


def test_unknown_product_in_a_rule(tmp_path: Path) -> None:
    path = edited(tmp_path, "common.yaml", ("products: [atlas-a3, atlas-a2, atlas-200i-500-a2]",
                                            "products: [atlas-a3, atlas-a9, atlas-200i-500-a2]"))
    issue = only_issue(path)
    index = rule_index("common.yaml", "Memory-capacity-D28")
    assert_issue(issue, "common.yaml", line_of(path, "atlas-a9"), f"rules.{index}.products.1",
                 "unknown product 'atlas-a9'", "expected one of", "atlas-a2", "atlas-training")


def test_unknown_product_in_a_path(tmp_path: Path) -> None:
    path = edited(tmp_path, "loaddata2d.yaml", ("{products: [atlas-inference-aicore, atlas-training], routes:",
                                                "{products: [atlas-inference-aicore, atlas-trainng], routes:"))
    issue = only_issue(path)
    assert_issue(issue, "loaddata2d.yaml", line_of(path, "atlas-trainng"), "paths.1.products.1",
                 "unknown product 'atlas-trainng'", "expected one of", "atlas-training")


def test_unknown_dtype(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("dtypes: {names: [int32_t, float]}", "dtypes: {names: [int32_t, float32]}"))
    issue = only_issue(path)
    assert_issue(issue, "datacopy.yaml", line_of(path, "float32"), None,
                 "unknown dtype 'float32'", "expected one of", "bfloat16_t")
    assert re.fullmatch(r"paths\.\d+\.dtypes\.names\.1", issue.key), issue


def test_unknown_dtype_in_a_pair(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("dtype_pairs: [[half, float]]", "dtype_pairs: [[half, fp32]]"))
    issue = only_issue(path)
    assert_issue(issue, "datacopy.yaml", line_of(path, "fp32"), None, "unknown dtype 'fp32'", "expected one of")
    assert re.fullmatch(r"paths\.\d+\.dtype_pairs\.0\.1", issue.key), issue


def test_duplicate_rule_id(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("id: DataCopy-blockLen-max,", "id: DataCopy-blockCount-max,"))
    issue = only_issue(path)
    first, second = [number for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                     if "id: DataCopy-blockCount-max," in line]
    index = rule_index("datacopy.yaml", "DataCopy-blockLen-max")
    assert_issue(issue, "datacopy.yaml", second, f"rules.{index}.id",
                 "rule id 'DataCopy-blockCount-max' is already used", f"datacopy.yaml:{first}", "unique")


def test_duplicate_rule_id_across_files(tmp_path: Path) -> None:
    path = edited(tmp_path, "loaddata2d.yaml", ("id: LoadData2D-route,", "id: Memory-bounds,"))
    issue = only_issue(path)
    assert_issue(issue, "loaddata2d.yaml", line_of(path, "id: Memory-bounds,"), "rules.0.id",
                 "'Memory-bounds' is already used in common.yaml:")


def test_broken_yaml_syntax(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("title: DataCopy (basic data movement)", "title: DataCopy: basic: data"))
    issue = only_issue(path)
    assert_issue(issue, "datacopy.yaml", line_of(path, "title: DataCopy: basic"), "", "not valid YAML",
                 "mapping values are not allowed")


def test_unknown_rule_kind(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("id: DataCopy-count-below-unit, kind: relation",
                                              "id: DataCopy-count-below-unit, kind: relashun"))
    issue = only_issue(path)
    index = rule_index("datacopy.yaml", "DataCopy-count-below-unit")
    assert_issue(issue, "datacopy.yaml", line_of(path, "relashun"), f"rules.{index}.kind",
                 "'relashun' is not one of", "range", "relation", "semantics")


def test_unknown_file_kind(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("\nkind: api\n", "\nkind: apy\n"))
    issue = only_issue(path)
    assert_issue(issue, "datacopy.yaml", line_of(path, "kind: apy"), "kind", "top-level 'kind' must be one of",
                 "api", "'apy'")


def test_unknown_disputed_point(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy_nz2nd.yaml", ("status: disputed, dispute: D16,", "status: disputed, dispute: D16x,"))
    issue = only_issue(path)
    assert_issue(issue, "datacopy_nz2nd.yaml", line_of(path, "D16x"), None, "unknown disputed point 'D16x'",
                 "expected one of", "D16")
    assert issue.key.endswith(".dispute"), issue


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "common.yaml"
    path.write_text("# nothing here\n", encoding="utf-8")
    issue = only_issue(path)
    assert issue.file == "common.yaml" and "empty" in issue.message, issue


# --- several problems at once ----------------------------------------------------------------------

def test_two_schema_problems_in_one_file_are_both_reported(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml",
                  ("id: DataCopy-blockCount-max,", "id: DataCopy-blockCount-max, colour: red,"),
                  ("field: srcGap, min: 0, max: 65535", "field: srcGap, min: zero, max: 65535"))
    issues = issues_of(path)
    assert len(issues) == 2, "\n".join(map(str, issues))
    by_line = {issue.line: issue for issue in issues}
    assert "'colour'" in by_line[line_of(path, "colour: red")].message
    assert "expected integer" in by_line[line_of(path, "min: zero")].message
    assert str(issues[0]) in str(SpecError(issues)) and str(issues[1]) in str(SpecError(issues))


def test_two_cross_check_problems_in_one_file_are_both_reported(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml",
                  ("dtypes: {names: [int32_t, float]}", "dtypes: {names: [int32_t, float32]}"),
                  ("{products: [atlas-inference-vectorcore], routes: [[GM, VECIN]]",
                   "{products: [atlas-inference-vectorc0re], routes: [[GM, VECIN]]"))
    issues = issues_of(path)
    assert len(issues) == 2, "\n".join(map(str, issues))
    messages = {issue.line: issue.message for issue in issues}
    assert "unknown dtype 'float32'" in messages[line_of(path, "float32")]
    assert "unknown product 'atlas-inference-vectorc0re'" in messages[line_of(path, "vectorc0re")]


def test_problems_in_two_files_are_reported_together(tmp_path: Path) -> None:
    first = edited(tmp_path, "common.yaml", ("products: [atlas-a3, atlas-a2, atlas-200i-500-a2]",
                                             "products: [atlas-a3, atlas-a9, atlas-200i-500-a2]"))
    second = edited(tmp_path, "loaddata2d.yaml", ("field: repeatTimes, max: 255", "field: repeatTimes, min: 300, max: 255"))
    issues = issues_of(first, second)
    assert {issue.file for issue in issues} == {"common.yaml", "loaddata2d.yaml"}, issues
    assert any("atlas-a9" in issue.message for issue in issues)
    assert any("min 300 > max 255" in issue.message for issue in issues)


# --- YAML is loaded safely -------------------------------------------------------------------------

def test_python_tags_are_refused_not_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = edited(tmp_path, "datacopy.yaml", ("title: DataCopy (basic data movement)",
                                              f'title: !!python/object/apply:os.mkdir ["{marker}"]'))
    issue = only_issue(path)
    assert not marker.exists(), "the YAML tag was executed"
    assert_issue(issue, "datacopy.yaml", line_of(path, "!!python/object"), "", "not valid YAML", "python/object")


def test_python_object_tag_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "dtypes.yaml", ("int8_t:     {size: 1, numeric: int}",
                                            "int8_t:     !!python/object:collections.OrderedDict {size: 1, numeric: int}"))
    issue = only_issue(path)
    assert_issue(issue, "dtypes.yaml", line_of(path, "!!python/object"), "", "not valid YAML")


def test_an_alias_bomb_is_refused_with_its_line(tmp_path: Path) -> None:
    """Nine anchors of ten aliases each would expand to 10^9 nodes; refused on the composed graph, at once."""
    bomb = "bomb_a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"bomb_{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]\n" for previous, name in zip("abcdefghi", "bcdefghij"))
    path = edited(tmp_path, "dtypes.yaml", ("kind: dtypes\n", "kind: dtypes\n" + bomb))
    issue = only_issue(path)
    assert_issue(issue, "dtypes.yaml", line_of(path, "bomb_e:"), "", "aliases expand to more than 100000 nodes")


def test_a_recursive_alias_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "dtypes.yaml", ("kind: dtypes\n", "kind: dtypes\nloop: &loop [1, *loop]\n"))
    assert_issue(only_issue(path), "dtypes.yaml", line_of(path, "loop:"), "", "a recursive alias")


def test_a_latin1_file_is_refused_naming_the_byte_and_line(tmp_path: Path) -> None:
    path = tmp_path / "datacopy.yaml"
    path.write_bytes((SPEC_DIR / "datacopy.yaml").read_bytes().replace(b"Number of bursts.", b"Nombre de r\xe9p\xe9titions."))
    line = next(number for number, text in enumerate(path.read_bytes().splitlines(), start=1) if b"Nombre" in text)
    assert_issue(only_issue(path), "datacopy.yaml", line, "", f"not UTF-8 text (byte 0xe9 at line {line}", "save it as UTF-8")


def test_a_binary_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "datacopy.yaml"
    path.write_bytes(bytes(range(256)) * 4)
    issue = only_issue(path)
    assert issue.file == "datacopy.yaml" and "not UTF-8 text" in issue.message, issue


def test_a_nul_byte_is_refused_with_its_line(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("description: Number of bursts.", "description: Number of\x00bursts."))
    assert_issue(only_issue(path), "datacopy.yaml", line_of(path, "\x00"), "", "U+0000 (a NUL byte)")


def test_an_unreadable_value_is_refused_with_its_line(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("title: DataCopy (basic data movement)", "title: 2024-13-45"))
    assert_issue(only_issue(path), "datacopy.yaml", line_of(path, "2024-13-45"), "", "cannot read '2024-13-45'")


# --- inconsistent spec files -----------------------------------------------------------------------

def test_a_negative_maximum_of_an_unsigned_field_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("field: blockCount, max: 4095", "field: blockCount, max: -1"))
    index = rule_index("datacopy.yaml", "DataCopy-blockCount-max")
    issues = issues_of(path)
    assert_issue(issues[0], "datacopy.yaml", line_of(path, "max: -1"), f"rules.{index}.max",
                 "max -1 is outside the C type of blockCount, uint16_t (0..65535)")
    # and the minimum of DataCopy-blockCount-min now lies above it
    assert any("min 1 is above the max -1 of DataCopy-blockCount-max" in issue.message for issue in issues[1:]), issues


def test_a_bound_beyond_the_fields_c_type_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "loaddata2d.yaml", ("field: repeatTimes, max: 255", "field: repeatTimes, max: 256"))
    index = rule_index("loaddata2d.yaml", "LoadData2D-repeatTimes-max")
    assert_issue(only_issue(path), "loaddata2d.yaml", line_of(path, "max: 256"), f"rules.{index}.max",
                 "max 256 is outside the C type of repeatTimes, uint8_t (0..255)")


def test_a_minimum_above_the_fields_other_bound_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("field: blockCount, min: 1,", "field: blockCount, min: 5000,"))
    index = rule_index("datacopy.yaml", "DataCopy-blockCount-min")
    assert_issue(only_issue(path), "datacopy.yaml", line_of(path, "min: 5000"), f"rules.{index}.min",
                 "min 5000 is above the max 4095 of DataCopy-blockCount-max (datacopy.yaml:",
                 "no blockCount would be legal")


def test_an_alternatives_limit_beyond_the_c_type_or_on_another_kind_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "disputes.yaml", ("limits: {LoadData2D-addrMode-zero: {max: 1}}",
                                              "limits: {LoadData2D-addrMode-zero: {max: 256}, LoadData2D-route: {max: 1}}"))
    issues = issues_of(path)
    assert len(issues) == 2, "\n".join(map(str, issues))
    line = line_of(path, "max: 256")
    assert_issue(issues[0], "disputes.yaml", line, None, "max 256 is outside the C type of addrMode, uint8_t (0..255)")
    assert_issue(issues[1], "disputes.yaml", line, None, "limits apply to range rules; LoadData2D-route is a route rule")


def test_two_products_sharing_an_alias_are_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "products.yaml", ('aliases: ["910B"]', 'aliases: ["910b", "910C"]'))
    issues = issues_of(path)
    assert len(issues) == 1, "\n".join(map(str, issues))
    assert_issue(issues[0], "products.yaml", line_of(path, '"910b", "910C"'), "products.1.aliases.1",
                 "alias '910C' is also the alias of product atlas-a3 (line", "each id and alias names one product")


def test_an_alias_equal_to_another_products_id_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "products.yaml", ('aliases: ["310P"]', 'aliases: ["310P", "Atlas-A2"]'))
    assert_issue(only_issue(path), "products.yaml", line_of(path, '"Atlas-A2"'), "products.3.aliases.1",
                 "alias 'Atlas-A2' is also the id of product atlas-a2")


def test_a_position_or_memory_listed_twice_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "products.yaml", ("memories: [GM, UB,", "memories: [GM, UB, GM,"))
    assert_issue(only_issue(path), "products.yaml", line_of(path, "memories:"), "memories.2",
                 "memory 'GM' is listed twice (first as item 0)")


def test_a_units_entry_named_twice_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "datacopy.yaml", ("- name: fixpipe", "- name: bias-table"))
    issues = issues_of(path)
    assert any(issue.key == "semantics.units.1" and "units entry 'bias-table' is listed twice" in issue.message
               for issue in issues), "\n".join(map(str, issues))


def test_thirty_thousand_rules_are_checked_and_the_broken_last_one_is_found(tmp_path: Path) -> None:
    """The lookups stay linear (a rule's place, the known names): a 30,000-rule file checks in seconds, where
    it took 100 s when every rule was looked up by scanning every rule; the issue names the one broken rule."""
    rules = "".join(f'  - {{id: DataCopy-generated-{i}, kind: range, field: srcGap, min: 0, max: {i % 65536}, '
                    f'type_limit: [min], status: documented, products: all, citation: {{source: "semantics.md", '
                    f'section: "1"}}, description: "generated rule {i}."}}\n' for i in range(30_000))
    broken = ('  - {id: DataCopy-generated-last, kind: range, field: srcGap, min: 0, max: 5, type_limit: [min], '
              'status: disputed, dispute: D999, products: all, citation: {source: "semantics.md", section: "1"}, '
              'description: "x."}\n')
    path = tmp_path / "datacopy.yaml"
    path.write_text((SPEC_DIR / "datacopy.yaml").read_text(encoding="utf-8") + rules + broken, encoding="utf-8")
    index = rule_index("datacopy.yaml", "DataCopy-half-float-unit-D13") + 30_001
    assert_issue(only_issue(path), "datacopy.yaml", line_of(path, "DataCopy-generated-last"),
                 f"rules.{index}.dispute", "unknown disputed point 'D999'", "expected one of: D1, D2,")


# --- readings: effects, uncomputable alternatives, reading sets --------------------------------------

def test_every_alternative_is_computed_or_says_why_not() -> None:
    for point in load_spec().disputes.values():
        assert set(point.effects) | set(point.uncomputable) == set(point.alternatives), point.id
        assert not set(point.effects) & set(point.uncomputable), point.id
        assert all(reason.strip() for reason in point.uncomputable.values()), point.id


def test_an_alternative_without_effects_or_reason_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "disputes.yaml",
                  ("    effects: {vendor: {illegal: [DataCopyNz2Nd-srcNStride-4096-D16]}}\n", ""))
    issue = only_issue(path)
    assert_issue(issue, "disputes.yaml", line_of(path, 'alternatives: {vendor: "max 4095"}'),
                 "points.12.alternatives.vendor", "needs exactly one of an `effects` entry", "uncomputable")


def test_an_effect_naming_an_unknown_rule_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "disputes.yaml", ("illegal: [DataCopyNz2Nd-srcNStride-4096-D16]", "illegal: [No-such-rule]"))
    issue = only_issue(path)
    assert_issue(issue, "disputes.yaml", line_of(path, "No-such-rule"), None, "unknown rule 'No-such-rule'")


def test_a_reading_set_naming_an_uncomputable_alternative_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "disputes.yaml", ("devkit: {D1: devkit,", "devkit: {D15: vendor-floor, D1: devkit,"))
    issue = only_issue(path)
    assert_issue(issue, "disputes.yaml", line_of(path, "D15: vendor-floor"), "readings.devkit.D15",
                 "'vendor-floor' is not a computable alternative of D15")


def test_reading_words_resolve_and_unknown_ones_are_refused() -> None:
    from ascendc_conformance.format.errors import ConformanceError, ReadingError

    spec = load_spec()
    assert spec.reading([]) == spec.seed_reading and spec.seed_reading.label == "seed"
    devkit = spec.reading(["devkit"])
    assert devkit.label == "devkit" and dict(devkit.choices) == dict(spec.reading_sets["devkit"])
    both = spec.reading(["devkit", "D13=destination-bytes"])
    assert both.alternative("D13") == "destination-bytes" and both.alternative("D1") == "devkit"
    assert both.alternative("D7") == "seed" and spec.reading(["D13=destination-bytes,D7=dstgap-32"]).label == \
        "D13=destination-bytes,D7=dstgap-32"
    for words, phrase in ((["D99=x"], "unknown disputed point 'D99'"), (["D13=foo"], "computable alternatives: destination-bytes"),
                          (["D15=vendor-floor"], "cannot be computed"), (["nope"], "reading set (seed, devkit)"),
                          (["devkit", "D1=seed"], "two alternatives")):
        with pytest.raises(ReadingError, match=re.escape(phrase)) as caught:
            spec.reading(words)
        assert isinstance(caught.value, ConformanceError)


def test_a_bound_that_is_the_c_types_own_limit_is_marked_and_only_such_a_bound(tmp_path: Path) -> None:
    """type_limit marks exactly the bounds equal to the field's C type's (what a typed target cannot be given
    one past): an unmarked one and a wrongly marked one are refused, each naming the fix."""
    unmarked = edited(tmp_path, "datacopy.yaml", ("products: all, type_limit: [min, max], citation: {source: "
                                                  "\"000_53d37fbf51f3620c.txt\", section: \"Table 3 srcGap\"}",
                                                  "products: all, type_limit: [min], citation: {source: "
                                                  "\"000_53d37fbf51f3620c.txt\", section: \"Table 3 srcGap\"}"))
    assert "max 65535 is the C type's own limit of srcGap: add max to type_limit" in only_issue(unmarked).message
    marked = edited(tmp_path, "datacopy.yaml", ("field: blockCount, max: 4095, status",
                                                "field: blockCount, max: 4095, type_limit: [max], status"))
    assert ("max 4095 is not the C type's own limit of blockCount; remove max from type_limit"
            in only_issue(marked).message)
