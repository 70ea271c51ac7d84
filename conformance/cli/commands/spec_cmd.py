"""`spec`: show and check the machine-readable spec (paths x dtypes, rules, disputed points)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterable

from tabulate import tabulate

from ascendc_conformance.cli.commands import add_verb_parser, load_spec_from, write_json
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.spec.errors import SpecError
from ascendc_conformance.spec.loader import SCHEMA_FILE, default_files, files_with_overrides, read_spec
from ascendc_conformance.spec.model import Spec

COMMON = "common"  # --api value selecting the rules every API shares (spec/common.yaml)


def register(subparsers: Any) -> None:
    parser = add_verb_parser(
        subparsers, "spec", help="show or check the spec (paths, rules, disputed points)",
        description="Show the documented paths x dtypes, the rules and the disputed points of the spec,\n"
                    "or validate spec files.",
        examples=["ascendc-conformance spec apis",
                  "ascendc-conformance spec paths --product 910B --api DataCopy",
                  "ascendc-conformance spec paths --json > paths.json",
                  "ascendc-conformance spec rules --status disputed --kind range",
                  "ascendc-conformance spec disputes",
                  "ascendc-conformance spec check my/datacopy.yaml"])
    parser.set_defaults(func=lambda args: _missing_subverb(parser))
    verbs = parser.add_subparsers(title="spec verbs", dest="spec_verb", metavar="SPEC_VERB")

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print JSON instead of a table")
    common.add_argument("--spec-dir", metavar="DIR",
                        help="read the whole spec from the *.yaml files of DIR instead of the packaged spec")

    apis = add_verb_parser(
        verbs, "apis", parents=[common], help="the APIs of the spec, with their forms and where they are defined",
        description="List the APIs the spec describes (one spec/<name>.yaml each): the name cases and\n"
                    "--api use, the title, the parameter forms, the products with a documented path,\n"
                    "the number of paths x dtypes and of rules, and the files that implement it.",
        examples=["ascendc-conformance spec apis", "ascendc-conformance spec apis --json"])
    apis.set_defaults(func=cmd_apis)

    paths = add_verb_parser(
        verbs, "paths", parents=[common], help="documented paths x dtypes per product and API",
        description="List every documented (product, API, src TPosition, dst TPosition, src dtype, dst dtype),\n"
                    "with the parameter forms, the physical memories, the citation and the disputed\n"
                    "rules the path depends on. The table groups the dtypes of one route; --json gives\n"
                    "one object per path x dtype, sorted by product, API, route and dtype.",
        examples=["ascendc-conformance spec paths",
                  "ascendc-conformance spec paths --product 910B --product atlas-training",
                  "ascendc-conformance spec paths --api LoadData2D --json"],
        epilog="--product takes a product id (atlas-a2) or an alias (910B); both options repeat.")
    paths.add_argument("--product", action="append", metavar="P", help="only this product (id or alias); repeatable")
    paths.add_argument("--api", action="append", metavar="A", help="only this API; repeatable")
    paths.set_defaults(func=cmd_paths)

    rules = add_verb_parser(
        verbs, "rules", parents=[common], help="the rules with their ids, status and citations",
        description="List the rules of the spec. For a rule that names a disputed point, --json adds the\n"
                    "point's title, default reading and alternatives (dispute_title, dispute_default,\n"
                    "dispute_alternatives).",
        examples=["ascendc-conformance spec rules",
                  "ascendc-conformance spec rules --api DataCopy --kind range",
                  "ascendc-conformance spec rules --api common",
                  "ascendc-conformance spec rules --status disputed --json"],
        epilog=f"--api {COMMON} selects the rules every API shares. All filters repeat; values of one\n"
               "filter are alternatives, different filters must all match.")
    rules.add_argument("--api", action="append", metavar="A", help=f"only rules of this API ('{COMMON}' for shared rules)")
    rules.add_argument("--status", action="append", metavar="S", help="only rules with this status")
    rules.add_argument("--kind", action="append", metavar="K", help="only rules of this kind")
    rules.add_argument("--product", action="append", metavar="P", help="only rules that apply to this product (id or alias)")
    rules.set_defaults(func=cmd_rules)

    disputes = add_verb_parser(
        verbs, "disputes", parents=[common], help="the disputed points and the suite's default readings",
        description="List the points where the seeds, the vendor's newer docs and its implementation\n"
                    "disagree or leave the outcome open: the suite's default reading, the named\n"
                    "alternatives and the rules that name the point.",
        examples=["ascendc-conformance spec disputes", "ascendc-conformance spec disputes --json"])
    disputes.set_defaults(func=cmd_disputes)

    check = add_verb_parser(
        verbs, "check", help="validate spec files",
        description="Validate spec files against the schema and cross-check them (products, dtypes,\n"
                    "rule ids, disputed points, range bounds against the fields' C types, product aliases,\n"
                    "...). Without FILES the packaged spec is checked; given FILES replace the packaged\n"
                    "files of the same name, other FILES are added. A file that is not UTF-8, holds control\n"
                    "characters, or whose YAML aliases expand beyond 100000 nodes is refused.\n"
                    "Exit 0 if the spec is valid; otherwise every issue is printed, one per line as\n"
                    "`file:line at 'key': message`, and the exit code is 1.",
        examples=["ascendc-conformance spec check",
                  "ascendc-conformance spec check edited/datacopy.yaml",
                  "ascendc-conformance spec check new_api.yaml products.yaml"])
    check.add_argument("files", nargs="*", metavar="FILE", help="spec YAML files (default: the packaged spec)")
    check.set_defaults(func=cmd_check)


def _missing_subverb(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


# --- shared lookups --------------------------------------------------------------------------------

def _products(spec: Spec, names: Iterable[str] | None) -> list[str] | None:
    """Product ids for ids/aliases; an unknown one is a usage error listing the valid names."""
    if not names:
        return None
    chosen = []
    for name in names:
        product_id = spec.resolve_product(name)
        if product_id is None:
            valid = ", ".join(f"{p.id} ({', '.join(p.aliases)})" if p.aliases else p.id for p in spec.products)
            raise ConformanceError(f"unknown product {name!r}; valid products (aliases): {valid}")
        if product_id not in chosen:
            chosen.append(product_id)
    return chosen


def _apis(spec: Spec, names: Iterable[str] | None, extra: tuple[str, ...] = ()) -> list[str] | None:
    """API names (case-insensitive); an unknown one is a usage error listing the valid names."""
    if not names:
        return None
    valid = list(spec.apis) + list(extra)
    chosen = []
    for name in names:
        match = next((v for v in valid if v == name), None) or next((v for v in valid if v.lower() == name.lower()), None)
        if match is None:
            raise ConformanceError(f"unknown API {name!r}; valid: {', '.join(valid)}")
        if match not in chosen:
            chosen.append(match)
    return chosen


def _choices(values: Iterable[str] | None, valid: list[str], what: str) -> list[str] | None:
    if not values:
        return None
    for value in values:
        if value not in valid:
            raise ConformanceError(f"unknown {what} {value!r}; valid: {', '.join(valid)}")
    return list(dict.fromkeys(values))


def _schema_enum(*keys: str) -> list[str]:
    """An enum of the spec schema, e.g. the rule statuses, so the CLI never hard-codes them."""
    node = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    for key in keys:
        node = node[key]
    return list(node["enum"])


def _product_label(spec: Spec, products: Iterable[str]) -> str:
    products = list(products)
    if products == [p.id for p in spec.products]:
        return "all"
    return ", ".join(products)


# --- spec paths ------------------------------------------------------------------------------------

def path_records(spec: Spec, products: list[str] | None = None, apis: list[str] | None = None) -> list[dict[str, Any]]:
    """One JSON-ready dict per documented path x dtype, deterministically sorted."""
    product_order = {p.id: i for i, p in enumerate(spec.products)}
    position_order = {p: i for i, p in enumerate(spec.positions)}
    dtype_order = {d: i for i, d in enumerate(spec.dtypes)}
    paths = [path for path in spec.paths()
             if (products is None or path.product in products) and (apis is None or path.api in apis)]
    paths.sort(key=lambda p: (product_order[p.product], p.api, position_order.get(p.src, 99),
                              position_order.get(p.dst, 99), dtype_order.get(p.src_dtype, 99),
                              dtype_order.get(p.dst_dtype, 99)))
    records = []
    for path in paths:
        product = spec.product(path.product)
        records.append({
            "product": path.product, "api": path.api, "src": path.src, "dst": path.dst,
            "src_dtype": path.src_dtype, "dst_dtype": path.dst_dtype, "forms": list(path.forms),
            "src_memory": product.memory_of(path.src), "dst_memory": product.memory_of(path.dst),
            "citation": str(path.citation), "depends_on": list(path.depends_on),
        })
    return records


def _dtype_label(spec: Spec, records: list[dict[str, Any]]) -> str:
    """The dtypes of one table row: a group name when they form one (ALL12, ALL11 except x), else a list."""
    pairs = [(r["src_dtype"], r["dst_dtype"]) for r in records]
    if any(src != dst for src, dst in pairs):
        return ", ".join(f"{src}->{dst}" if src != dst else src for src, dst in pairs)
    names = [src for src, _ in pairs]
    groups = sorted(spec.dtype_groups.items(), key=lambda item: len(item[1]))
    for group, members in groups:
        if set(members) == set(names):
            return group
    for group, members in groups:
        missing = [m for m in members if m not in names]
        if set(names) <= set(members) and len(missing) <= 2 and len(names) > len(missing):
            return f"{group} except {', '.join(missing)}"
    return ", ".join(names)


def api_records(spec: Spec) -> list[dict[str, Any]]:
    """One record per API of the spec, in the spec's order."""
    return [{"api": api.name, "title": api.title, "forms": list(api.forms),
             "products": list(dict.fromkeys(path.product for path in api.paths)), "paths": len(api.paths),
             "rules": len(api.rules), "spec_file": api.file, "modules": [f"reference/apis/{api.module}.py",
                                                                       f"strategies/apis/{api.module}.py"]}
            for api in spec.apis.values()]


def cmd_apis(args: argparse.Namespace) -> int:
    records = api_records(load_spec_from(args.spec_dir))
    if args.json:
        write_json(records)
        return 0
    rows = [[r["api"], r["title"], ", ".join(r["forms"]), ", ".join(r["products"]), r["paths"], r["rules"],
             r["spec_file"]] for r in records]
    print(tabulate(rows, headers=["api", "title", "forms", "products", "paths", "rules", "spec file"],
                   tablefmt="simple", maxcolwidths=[None, 32, None, 40, None, None, None]))
    return 0


def cmd_paths(args: argparse.Namespace) -> int:
    spec = load_spec_from(args.spec_dir)
    records = path_records(spec, _products(spec, args.product), _apis(spec, args.api))
    if args.json:
        write_json(records)
        return 0
    rows: list[list[Any]] = []
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for record in records:
        key = (record["product"], record["api"], record["src"], record["dst"], tuple(record["forms"]),
               record["citation"], tuple(record["depends_on"]))
        groups.setdefault(key, []).append(record)
    previous = (None, None)
    for (product, api, src, dst, forms, citation, depends_on), group in groups.items():
        first = group[0]
        memories = f"{first['src_memory'] or '-'} -> {first['dst_memory'] or '-'}"
        shown_product = product if product != previous[0] else ""
        shown_api = api if (product, api) != previous else ""
        previous = (product, api)
        rows.append([shown_product, shown_api, f"{src} -> {dst}", memories, _dtype_label(spec, group),
                     ", ".join(forms), citation + (f" [depends on {', '.join(depends_on)}]" if depends_on else "")])
    print(tabulate(rows, headers=["product", "api", "route", "memories", "dtypes", "forms", "citation"],
                   tablefmt="simple", maxcolwidths=[None, None, None, None, 48, None, 48]))
    print(f"\n{len(records)} paths (product x API x route x dtype) in {len(rows)} rows")
    return 0


# --- spec rules ------------------------------------------------------------------------------------

def rule_records(spec: Spec, apis: list[str] | None = None, statuses: list[str] | None = None,
                 kinds: list[str] | None = None, products: list[str] | None = None) -> list[dict[str, Any]]:
    """Rule.to_json() of the matching rules, with the disputed point's default and alternatives."""
    records = []
    for rule in spec.rules.values():
        if apis is not None and (rule.api or COMMON) not in apis:
            continue
        if statuses is not None and rule.status not in statuses:
            continue
        if kinds is not None and rule.kind not in kinds:
            continue
        if products is not None and not any(rule.applies_to(p) for p in products):
            continue
        data = rule.to_json()
        point = spec.disputes.get(rule.dispute) if rule.dispute else None
        if point is not None:
            data["dispute_title"] = point.title
            data["dispute_default"] = point.default
            data["dispute_alternatives"] = dict(point.alternatives)
        records.append(data)
    return records


def cmd_rules(args: argparse.Namespace) -> int:
    spec = load_spec_from(args.spec_dir)
    records = rule_records(
        spec, _apis(spec, args.api, extra=(COMMON,)),
        _choices(args.status, _schema_enum("$defs", "status"), "status"),
        _choices(args.kind, _schema_enum("$defs", "rule", "properties", "kind"), "rule kind"),
        _products(spec, args.product))
    if args.json:
        write_json(records)
        return 0
    rows = [[r["id"], r["api"] or COMMON, r["kind"], r["status"], _product_label(spec, r["products"]),
             r.get("dispute", ""), r["citation"]] for r in records]
    print(tabulate(rows, headers=["id", "api", "kind", "status", "products", "dispute", "citation"],
                   tablefmt="simple", maxcolwidths=[None, None, None, None, 40, None, 50]))
    print(f"\n{len(records)} rules")
    return 0


# --- spec disputes ---------------------------------------------------------------------------------

def dispute_records(spec: Spec) -> list[dict[str, Any]]:
    """Every disputed point, with the ids of the rules that name it."""
    records = []
    for point in spec.disputes.values():
        records.append({
            "id": point.id, "title": point.title, "seed": point.seed, "vendor": point.vendor,
            "default": point.default, "alternatives": dict(point.alternatives),
            "computed": list(point.effects), "uncomputable": dict(point.uncomputable),
            "rules": [rule.id for rule in spec.rules.values() if rule.dispute == point.id],
        })
    return records


def cmd_disputes(args: argparse.Namespace) -> int:
    spec = load_spec_from(args.spec_dir)
    records = dispute_records(spec)
    if args.json:
        write_json(records)
        return 0
    rows = [[r["id"], r["title"], r["default"],
             "; ".join(f"{name}: {text}" + ("" if name in r["computed"] else f" (not computed: {r['uncomputable'][name]})")
                       for name, text in r["alternatives"].items()) or "-",
             ", ".join(r["rules"]) or "-"] for r in records]
    print(tabulate(rows, headers=["id", "title", "default", "alternatives", "rules"], tablefmt="grid",
                   maxcolwidths=[None, 28, 40, 40, 36]))
    print(f"\n{len(records)} disputed points; reading sets (run --reading NAME): "
          + "; ".join(f"{name}: {', '.join(f'{p}={a}' for p, a in chosen.items()) or 'every default'}"
                      for name, chosen in spec.reading_sets.items()))
    return 0


# --- spec check ------------------------------------------------------------------------------------

def cmd_check(args: argparse.Namespace) -> int:

    if args.files:
        seen: dict[str, str] = {}
        for name in args.files:
            if not Path(name).is_file():
                raise ConformanceError(f"{name}: no such spec file")
            other = seen.setdefault(Path(name).name, name)
            if other != name:
                raise ConformanceError(f"{other} and {name}: two FILES of one name (a FILE replaces the packaged "
                                       "file of its name); give one of them")
        files = files_with_overrides(args.files)
    else:
        files = default_files()
    try:
        spec = read_spec(files)
    except SpecError as error:
        for issue in error.issues:
            print(issue)
        count = len(error.issues)
        print(f"spec check failed: {count} issue{'s' if count != 1 else ''}")
        return 1
    print(f"spec OK: {len(files)} files, {len(spec.rules)} rules, {len(spec.paths())} paths, digest {spec.digest}")
    return 0
