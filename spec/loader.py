"""Load and validate the YAML of spec/ into a `spec.model.Spec`.

Each file is parsed by format.bounded_yaml (strict UTF-8, bounded aliases and nesting), validated against spec/schema/spec.schema.json (the `$defs`
entry named by its `kind`), then cross-checked (unknown products, dtypes, positions, rules, min > max, ...).
Every problem becomes a `SpecIssue` naming file, line, key and what was expected; all are collected and
raised together as one `SpecError`.
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path as FsPath
from typing import Any, Collection, Iterable, Mapping

import jsonschema

from ascendc_conformance.format import bounded_yaml, schemas
from ascendc_conformance.format.bounded import InputError
from ascendc_conformance.format.words import BoundSide
from ascendc_conformance.spec import model
from ascendc_conformance.spec.errors import SpecError, SpecIssue

SPEC_DIR = FsPath(__file__).resolve().parent
SCHEMA_FILE = SPEC_DIR / "schema" / "spec.schema.json"
FILE_KINDS = ("dtypes", "products", "disputes", "common", "api")
LISTED_NAMES = 20   # how many known names an "unknown ..." issue lists (a spec may have thousands of rules)


CTypes = dict[tuple[str | None, str | None], set[str]]
"""(API, field) -> the C types it is declared with (`Rule.api` and `Rule.field` may be None: no such entry)."""


@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def default_files() -> list[FsPath]:
    return sorted(SPEC_DIR.glob("*.yaml"))


def read_spec(files: Iterable[FsPath | str]) -> model.Spec:
    """The validated spec of `files`, read now (files that may change within one process)."""
    return _Builder(sorted(FsPath(f).resolve() for f in files)).build()


@lru_cache(maxsize=4)
def _load_cached(files: tuple[FsPath, ...]) -> model.Spec:
    return read_spec(files)


def load_spec(files: Iterable[FsPath | str] | None = None) -> model.Spec:
    """The validated spec, from the packaged YAML or from `files`. Cached: parsing happens once per set."""
    chosen = tuple(sorted(FsPath(f).resolve() for f in files)) if files is not None else tuple(default_files())
    return _load_cached(chosen)


def files_with_overrides(overrides: Iterable[FsPath | str]) -> list[FsPath]:
    """The packaged spec files, each replaced by a given file of the same name; other given files added."""
    given = {FsPath(f).name: FsPath(f) for f in overrides}
    chosen = [given.pop(f.name, f) for f in default_files()]
    return chosen + list(given.values())


# --- parsing with line numbers --------------------------------------------------------------------

class _File:
    """One parsed spec file with a way to find the line of any key path."""

    def __init__(self, path: FsPath, issues: list[SpecIssue]):
        self.path = path
        self.name = path.name
        self.data: Any = None
        self.document: bounded_yaml.Document | None = None
        try:
            self.document = bounded_yaml.parse_file(path, self.name)
        except OSError as error:
            issues.append(SpecIssue(self.name, None, "", f"cannot read the file: {error.strerror}"))
            return
        except InputError as error:
            issues.append(SpecIssue(self.name, error.line, "", error.problem))
            return
        self.data = self.document.data
        for duplicate in self.document.duplicate_keys:
            issues.append(SpecIssue(self.name, duplicate.line, ".".join(map(str, duplicate.path)),
                                    f"key given twice (first at line {duplicate.first_line}); keep one"))

    def line(self, path: tuple[Any, ...]) -> int | None:
        """The line of `path`, or of its nearest ancestor that has one."""
        return self.document.line(path) if self.document is not None else None

    def issue(self, path: tuple[Any, ...], message: str) -> SpecIssue:
        return SpecIssue(self.name, self.line(path), ".".join(str(p) for p in path), message)


# --- building the model ---------------------------------------------------------------------------

class _Builder:
    def __init__(self, files: Iterable[FsPath]):
        self.issues: list[SpecIssue] = []
        self.path_deps: list[tuple[Any, ...]] = []
        self.rule_refs: list[tuple[Any, ...]] = []
        self.effect_units: list[tuple[Any, ...]] = []   # (file, key path, DataCopy units name) named by an alternative
        self.effect_limits: list[tuple[Any, ...]] = []  # (file, key path, rule id, {min, max}) bounds set by an alternative
        self.rule_places: dict[str, tuple[_File, int]] = {}   # rule id -> its file and index in `rules`
        self.reading_sets: dict[str, Mapping[str, Any]] = {}
        self.files = [_File(FsPath(f), self.issues) for f in files]

    def build(self) -> model.Spec:
        by_kind: dict[str, list[_File]] = {kind: [] for kind in FILE_KINDS}
        for f in self.files:
            if f.data is None and not any(i.file == f.name for i in self.issues):
                self.issues.append(SpecIssue(f.name, 1, "", "the file is empty; expected a mapping with 'kind'"))
            if f.data is None:
                continue
            if self._validate(f):
                by_kind[f.data["kind"]].append(f)
        for kind in ("dtypes", "products", "disputes", "common"):
            if len(by_kind[kind]) != 1 and not self.issues:
                names = ", ".join(f.name for f in by_kind[kind]) or "none"
                self.issues.append(SpecIssue(names, None, "kind", f"exactly one file of kind '{kind}' is needed, found {names}"))
        if self.issues:
            raise SpecError(self.issues)
        self.dtypes_file = by_kind["dtypes"][0]
        self.products_file = by_kind["products"][0]
        dtypes = self._dtypes()
        products = self._products()
        self._check_names(products)
        disputes = self._disputes(by_kind["disputes"][0])
        rules: dict[str, model.Rule] = {}
        common = tuple(self._rules(by_kind["common"][0], None, rules))
        apis: dict[str, model.Api] = {}
        for f in by_kind["api"]:
            name = f.data["api"]
            if name in apis:
                self.issues.append(f.issue(("api",), f"API '{name}' is defined twice (also in {apis[name].file}); keep one file per API"))
                continue
            apis[name] = self._api(f, rules)
        self._cross_check(rules, disputes, apis)
        self._check_ranges(rules, apis)
        if self.issues:
            raise SpecError(self.issues)
        aliases = {}
        for product in products:
            aliases[product.id] = product.id
            for alias in product.aliases:
                aliases[alias] = product.id
                aliases[alias.lower()] = product.id
        paths = {}
        for api in apis.values():
            for path in api.paths:
                paths[(path.api, path.product, path.src, path.dst, path.src_dtype, path.dst_dtype)] = path
        digest = hashlib.sha256()
        for f in sorted(self.files, key=lambda f: f.name):
            digest.update(f.name.encode() + b"\0" + f.path.read_bytes() + b"\0")
        return model.Spec(
            dtypes=model.frozen_map(dtypes), dtype_groups=model.frozen_map(self.groups),
            ctypes=model.frozen_map(self.ctypes), memories=tuple(self.products_file.data["memories"]),
            positions=tuple(self.products_file.data["positions"]),
            gm_bytes=self.products_file.data["gm_bytes"],
            gm_window_bytes=self.products_file.data["gm_window_bytes"], products=tuple(products),
            apis=model.frozen_map(apis), common_rules=common, disputes=model.frozen_map(disputes),
            digest=digest.hexdigest()[:16], reading_sets=model.frozen_map(self.reading_sets), _rules=model.frozen_map(rules),
            _aliases=model.frozen_map(aliases), _paths=model.frozen_map(paths))

    def _validate(self, f: _File) -> bool:
        data = f.data
        if not isinstance(data, dict) or data.get("kind") not in FILE_KINDS:
            got = data.get("kind") if isinstance(data, dict) else type(data).__name__
            self.issues.append(f.issue(("kind",), f"top-level 'kind' must be one of {', '.join(FILE_KINDS)}, got {got!r}"))
            return False
        schema = dict(_schema())
        schema = {"$ref": f"#/$defs/{data['kind']}", "$defs": schema["$defs"]}
        validator = jsonschema.Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
        for error in errors:
            error = schemas.unwrap(error)
            self.issues.append(f.issue(tuple(error.absolute_path), schemas.describe(error)))
        return not errors

    # Each helper below reads one part; `known` checks collect issues instead of raising.
    def _known(self, f: _File, path: tuple[Any, ...], value: str, known: Collection[str], what: str) -> bool:
        """Whether `value` is in `known` (looked up, never copied: a lookup per rule stays linear)."""
        if value in known:
            return True
        names = list(known)
        listed = ", ".join(names[:LISTED_NAMES]) + (f", … ({len(names) - LISTED_NAMES} more)"
                                                     if len(names) > LISTED_NAMES else "")
        self.issues.append(f.issue(path, f"unknown {what} {value!r}; expected one of: {listed}"))
        return False

    def _dtypes(self) -> dict[str, model.Dtype]:
        f = self.dtypes_file
        dtypes = {name: model.Dtype(name, d["size"], d["numeric"]) for name, d in f.data["dtypes"].items()}
        self.groups = {}
        for group, names in f.data["groups"].items():
            for i, name in enumerate(names):
                self._known(f, ("groups", group, i), name, dtypes, "dtype")
            self.groups[group] = tuple(names)
        self.ctypes = {}
        for name, bounds in f.data["ctypes"].items():
            if bounds["min"] > bounds["max"]:
                self.issues.append(f.issue(("ctypes", name), f"min {bounds['min']} > max {bounds['max']}"))
            self.ctypes[name] = (bounds["min"], bounds["max"])
        self.dtype_names = dtypes
        return dtypes

    def _products(self) -> list[model.Product]:
        f = self.products_file
        memories, positions = f.data["memories"], f.data["positions"]
        products = []
        seen: set[str] = set()
        for i, p in enumerate(f.data["products"]):
            if p["id"] in seen:
                self.issues.append(f.issue(("products", i, "id"), f"product id {p['id']!r} is defined twice"))
            seen.add(p["id"])
            for position, memory in p["positions"]["map"].items():
                base = ("products", i, "positions", "map", position)
                self._known(f, base, position, positions, "TPosition")
                self._known(f, base, memory, memories, "memory")
            capacities = {}
            for memory, c in p["capacities"].items():
                self._known(f, ("products", i, "capacities", memory), memory, memories, "memory")
                capacities[memory] = model.Capacity(memory, c["bytes"], model.Status(c["status"]), _citation(c["citation"]),
                                                    c.get("rule"), model.frozen_map(c.get("alternatives")))
            products.append(model.Product(
                id=p["id"], display_name=p["display_name"], seed_names=tuple(p["seed_names"]),
                aliases=tuple(p["aliases"]), arch=p["arch"], status=model.Status(p["status"]), citation=_citation(p["citation"]),
                positions=model.frozen_map(p["positions"]["map"]), positions_status=model.Status(p["positions"]["status"]),
                positions_dispute=p["positions"].get("dispute"), capacities=model.frozen_map(capacities)))
        self.product_ids = [p.id for p in products]
        self.position_names = positions
        return products

    def _disputes(self, f: _File) -> dict[str, model.DisputePoint]:
        points = {}
        for i, d in enumerate(f.data["points"]):
            if d["id"] in points:
                self.issues.append(f.issue(("points", i, "id"), f"disputed point {d['id']!r} is defined twice"))
            effects, uncomputable = d.get("effects", {}), d.get("uncomputable", {})
            for name in d["alternatives"]:
                if (name in effects) == (name in uncomputable):
                    self.issues.append(f.issue(("points", i, "alternatives", name),
                                               f"alternative {name!r} of {d['id']} needs exactly one of an `effects` "
                                               f"entry (how the reference computes it) or an `uncomputable` reason"))
            for key in ("effects", "uncomputable"):
                for name in d.get(key, {}):
                    if name not in d["alternatives"]:
                        self.issues.append(f.issue(("points", i, key, name), f"{name!r} is not an alternative of {d['id']}"))
            points[d["id"]] = model.DisputePoint(
                d["id"], d["title"], d["seed"], d["vendor"], d["default"], model.frozen_map(d["alternatives"]),
                model.frozen_map({name: self._effect(f, ("points", i, "effects", name), e) for name, e in effects.items()}),
                model.frozen_map(uncomputable))
        self.dispute_file = f
        self.reading_sets = {name: model.frozen_map(chosen) for name, chosen in f.data.get("readings", {}).items()}
        return points

    def _effect(self, f: _File, path: tuple[Any, ...], data: dict[str, Any]) -> model.Effect:
        """One alternative's effects; the rules, products and units entries it names are checked later."""
        for key in ("legal", "illegal", "limits"):
            for rule_id in data.get(key, ()):
                self.rule_refs.append((f, path + (key, rule_id), rule_id))
        self.effect_limits += [(f, path + ("limits", rule_id), rule_id, bounds)
                               for rule_id, bounds in data.get("limits", {}).items()]
        for j, product in enumerate(data.get("products", ())):
            self._known(f, path + ("products", j), product, self.product_ids, "product")
        self.effect_units += [(f, path + ("units", name), name) for name in data.get("units", {})]
        return model.Effect(
            products=tuple(data.get("products", ())), routes=tuple(tuple(r) for r in data.get("routes", ())),
            legal=tuple(data.get("legal", ())), illegal=tuple(data.get("illegal", ())),
            limits=model.frozen_map({rule: (b.get("min"), b.get("max")) for rule, b in data.get("limits", {}).items()}),
            units=model.frozen_map({name: model.frozen_map(c) for name, c in data.get("units", {}).items()}),
            capacity=bool(data.get("capacity", False)))

    def _products_sel(self, f: _File, path: tuple[Any, ...], value: Any) -> tuple[str, ...]:
        if value == "all":
            return tuple(self.product_ids)
        for i, name in enumerate(value):
            self._known(f, path + (i,), name, self.product_ids, "product")
        return tuple(value)

    def _rules(self, f: _File, api: str | None, rules: dict[str, model.Rule]) -> list[model.Rule]:
        built = []
        for i, r in enumerate(f.data["rules"]):
            path = ("rules", i)
            if r["id"] in rules:
                other = rules[r["id"]]
                self.issues.append(f.issue(path + ("id",), f"rule id {r['id']!r} is already used in {other.file}:{other.line}; rule ids are unique and never reused"))
                continue
            if "min" in r and "max" in r and r["min"] > r["max"]:
                self.issues.append(f.issue(path + ("min",), f"min {r['min']} > max {r['max']}; expected min <= max"))
            for key in ("positions", "except_positions"):
                for j, position in enumerate(r.get("where", {}).get(key, [])):
                    self._known(f, path + ("where", key, j), position, self.position_names, "TPosition")
            for j, route in enumerate(r.get("routes", [])):
                for k, position in enumerate(route):
                    self._known(f, path + ("routes", j, k), position, self.position_names, "TPosition")
            where = r.get("where")
            status = model.Status(r["status"])
            default_outcome = model.DefaultOutcome(r.get("default_outcome", model.DefaultOutcome.LEGAL
                                                         if status is model.Status.VENDOR_ONLY else model.DefaultOutcome.ILLEGAL))
            rule = model.Rule(
                id=r["id"], api=api, kind=model.RuleKind(r["kind"]), status=status,
                products=self._products_sel(f, path + ("products",), r["products"]),
                citation=_citation(r["citation"]), description=r["description"], file=f.name,
                line=f.line(path), dispute=r.get("dispute"), default_outcome=default_outcome,
                field=r.get("field"), min=r.get("min"), max=r.get("max"), multiple=r.get("multiple"),
                operands=tuple(r.get("operands", ())),
                where=model.Where(model.Space(where["space"]) if "space" in where else None, tuple(where.get("positions", ())),
                                  tuple(where.get("except_positions", ()))) if where else model.Where(),
                bytes=r.get("bytes"), check=r.get("check"), args=model.frozen_map(r.get("args")),
                routes=tuple(tuple(route) for route in r.get("routes", ())),
                inseparable=tuple(model.Inseparable(e["variant"], tuple(e["from"]), e["reason"])
                                  for e in r.get("inseparable", ())),
                type_limit=tuple(BoundSide(side) for side in r.get("type_limit", ())))
            rules[rule.id] = rule
            self.rule_places[rule.id] = (f, i)
            built.append(rule)
        return built

    def _fields(self, f: _File, path: tuple[Any, ...], fields: dict[str, Any], structs: dict[str, Any]) -> dict[str, model.Field]:
        built = {}
        for name, fd in fields.items():
            if "ctype" in fd:
                self._known(f, path + (name, "ctype"), fd["ctype"], self.ctypes, "C type")
            if "array_of" in fd:
                self._known(f, path + (name, "array_of"), fd["array_of"], structs, "struct")
            built[name] = model.Field(name, fd["description"], fd.get("ctype"), fd.get("array_of"),
                                      fd.get("default"), fd.get("unit"))
        return built

    def _dtype_list(self, f: _File, path: tuple[Any, ...], sel: dict[str, Any]) -> list[str]:
        if "group" in sel:
            if not self._known(f, path + ("group",), sel["group"], self.groups, "dtype group"):
                return []
            names = list(self.groups[sel["group"]])
        else:
            names = list(sel["names"])
            for i, name in enumerate(names):
                self._known(f, path + ("names", i), name, self.dtype_names, "dtype")
        for i, name in enumerate(sel.get("except", [])):
            self._known(f, path + ("except", i), name, names, "dtype to except")
        return [n for n in names if n not in sel.get("except", [])]

    def _api(self, f: _File, rules: dict[str, model.Rule]) -> model.Api:
        data, name = f.data, f.data["api"]
        structs = data["structs"]
        struct_fields = {sname: model.frozen_map(self._fields(f, ("structs", sname, "fields"), s["fields"], structs))
                         for sname, s in structs.items()}
        forms = {}
        for fname, fd in data["forms"].items():
            if "struct" in fd:
                if not self._known(f, ("forms", fname, "struct"), fd["struct"], structs, "struct"):
                    continue
                fields = struct_fields[fd["struct"]]
            else:
                fields = model.frozen_map(self._fields(f, ("forms", fname, "params"), fd["params"], structs))
            forms[fname] = model.Form(fname, _citation(fd["citation"]), fields,
                                      fd.get("struct"), fd.get("mixed_dtypes", False))
        paths = []
        for i, p in enumerate(data["paths"]):
            base = ("paths", i)
            for j, form in enumerate(p["forms"]):
                self._known(f, base + ("forms", j), form, forms, "form")
            for j, route in enumerate(p["routes"]):
                for k, position in enumerate(route):
                    self._known(f, base + ("routes", j, k), position, self.position_names, "TPosition")
            if "dtypes" in p:
                pairs = [(d, d) for d in self._dtype_list(f, base + ("dtypes",), p["dtypes"])]
            else:
                pairs = [tuple(pair) for pair in p["dtype_pairs"]]
                for j, pair in enumerate(pairs):
                    for k, d in enumerate(pair):
                        self._known(f, base + ("dtype_pairs", j, k), d, self.dtype_names, "dtype")
            products = self._products_sel(f, base + ("products",), p["products"])
            for product in products:
                for src, dst in p["routes"]:
                    for src_dtype, dst_dtype in pairs:
                        paths.append(model.Path(name, product, src, dst, src_dtype, dst_dtype, tuple(p["forms"]),
                                                _citation(p["citation"]), tuple(p.get("depends_on", ()))))
        self._check_unique_paths(f, paths)
        semantics = data["semantics"]
        units = []
        for i, u in enumerate(semantics.get("units", [])):
            for j, position in enumerate(u.get("dst_positions", [])):
                self._known(f, ("semantics", "units", i, "dst_positions", j), position, self.position_names, "TPosition")
            units.append(model.TransferUnits(
                u["name"], tuple(u.get("dst_positions", ())), u["block_bytes"],
                model.Gap(u["src_gap"]["bytes"], model.GapMeasure(u["src_gap"]["measure"])),
                model.Gap(u["dst_gap"]["bytes"], model.GapMeasure(u["dst_gap"]["measure"])),
                u["count_round_bytes"], _citation(u["citation"]),
                model.frozen_map({model.UnitsCondition(c): rule for c, rule in u.get("depends_on", {}).items()}),
                u.get("block_side", "src")))
            for condition, rule_id in u.get("depends_on", {}).items():
                self.rule_refs.append((f, ("semantics", "units", i, "depends_on", condition), rule_id))
        if "dst_gap_ignored_by" in semantics:
            self.rule_refs.append((f, ("semantics", "dst_gap_ignored_by"), semantics["dst_gap_ignored_by"]))
        api_rules = self._rules(f, name, rules)
        field_names = sorted({fn for form in forms.values() for fn in form.fields})
        for rule in api_rules:
            if rule.field and rule.kind in (model.RuleKind.RANGE, model.RuleKind.MULTIPLE):
                _, index = self.rule_places[rule.id]   # its place in the file (a skipped duplicate shifts the rest)
                self._known(f, ("rules", index, "field"), rule.field, field_names, "parameter field")
        self.path_deps += [(f, i, p.get("depends_on", [])) for i, p in enumerate(data["paths"])]
        return model.Api(name, data["title"], _citation(data["citation"]), f.name, model.frozen_map(struct_fields),
                         model.frozen_map(forms),
                         tuple(paths), tuple(api_rules), model.frozen_map(semantics.get("constants")),
                         tuple(units), semantics.get("dst_gap_ignored_by"))

    def _check_unique_paths(self, f: _File, paths: list[model.Path]) -> None:
        seen = set()
        for path in paths:
            key = (path.product, path.src, path.dst, path.src_dtype, path.dst_dtype)
            if key in seen:
                self.issues.append(f.issue(("paths",), f"path {path.label} is listed twice"))
            seen.add(key)

    def _cross_check(self, rules: dict[str, model.Rule], disputes: dict[str, Any], apis: dict[str, Any]) -> None:
        """References between files: disputes, rules named by paths and capacities."""
        for rule in rules.values():
            f, index = self.rule_places[rule.id]
            if rule.dispute is not None:
                self._known(f, ("rules", index, "dispute"), rule.dispute, disputes, "disputed point")
            for j, entry in enumerate(rule.inseparable):
                for k, other in enumerate(entry.from_rules):
                    self._known(f, ("rules", index, "inseparable", j, "from", k), other, rules, "rule")
        for f, path, rule_id in self.rule_refs:
            self._known(f, path, rule_id, rules, "rule")
        for f, i, deps in self.path_deps:
            for j, dep in enumerate(deps):
                self._known(f, ("paths", i, "depends_on", j), dep, rules, "rule")
        units = {u.name for api in apis.values() for u in api.units}
        for f, path, name in self.effect_units:
            self._known(f, path, name, sorted(units), "DataCopy units entry")
        for api in apis.values():
            f = next(x for x in self.files if x.name == api.file)
            self._check_unique(f, ("semantics", "units"), [u.name for u in api.units], "units entry")
        for name, chosen in self.reading_sets.items():
            for point, alternative in chosen.items():
                where = ("readings", name, point)
                if self._known(self.dispute_file, where, point, disputes, "disputed point") and \
                        alternative not in disputes[point].effects:
                    self.issues.append(self.dispute_file.issue(where, f"{alternative!r} is not a computable alternative of {point}"))
        pf = self.products_file
        for i, p in enumerate(pf.data["products"]):
            for memory, c in p["capacities"].items():
                if "rule" in c:
                    self._known(pf, ("products", i, "capacities", memory, "rule"), c["rule"], rules, "rule")
            if "dispute" in p["positions"]:
                self._known(pf, ("products", i, "positions", "dispute"), p["positions"]["dispute"], disputes, "disputed point")

    def _check_unique(self, f: _File, path: tuple[Any, ...], names: Iterable[str], what: str) -> None:
        """A name listed twice in one list of names (memories, TPositions, units entries) is an issue."""
        first: dict[str, int] = {}
        for index, name in enumerate(names):
            if name in first:
                self.issues.append(f.issue(path + (index,), f"{what} {name!r} is listed twice (first as item "
                                                            f"{first[name]}); list each once"))
            first.setdefault(name, index)

    def _check_names(self, products: list[model.Product]) -> None:
        """Every name a user may give a product (its id or an alias, in any case, as Spec.resolve_product
        reads it) names one product; memories and TPositions are listed once."""
        f = self.products_file
        self._check_unique(f, ("memories",), f.data["memories"], "memory")
        self._check_unique(f, ("positions",), f.data["positions"], "TPosition")
        owners: dict[str, tuple[str, str, tuple[str | int, ...]]] = {}   # lower-cased name -> (product id, "id"/"alias", key path)
        for i, product in enumerate(products):
            given: list[tuple[str, str, tuple[str | int, ...]]] = [(product.id, "id", ("products", i, "id"))]
            given += [(alias, "alias", ("products", i, "aliases", j)) for j, alias in enumerate(product.aliases)]
            for name, what, path in given:
                owner = owners.setdefault(name.lower(), (product.id, what, path))
                if owner[0] != product.id:
                    self.issues.append(f.issue(path, f"{what} {name!r} is also the {owner[1]} of product {owner[0]} "
                                                     f"(line {f.line(owner[2])}); each id and alias names one "
                                                     "product, whatever its case"))

    def _check_ranges(self, rules: dict[str, model.Rule], apis: dict[str, model.Api]) -> None:
        """Range bounds a parameter can take: each within the C type of the field it bounds (a negative
        maximum of an unsigned field is outside it), no minimum above another rule's maximum of the same
        field on a product they share, and an alternative's limits within the C type and in order."""
        ctypes: CTypes = {}   # (api, field) -> the C types it is declared with
        for api in apis.values():
            for form in api.forms.values():
                for field in form.fields.values():
                    if field.ctype is not None and field.ctype in self.ctypes:
                        ctypes.setdefault((api.name, field.name), set()).add(field.ctype)
        lowest_max: dict[tuple[str | None, str | None, str], model.Rule] = {}   # (api, field, product) -> least max
        ranges = [rule for rule in rules.values() if rule.kind == "range" and rule.field and rule.api]
        for rule in ranges:
            f, index = self.rule_places[rule.id]
            before = len(self.issues)
            for bound in ("min", "max"):
                value = getattr(rule, bound)
                if value is not None:
                    self._within_ctype(f, ("rules", index, bound), bound, value, rule, ctypes)
            consistent = len(self.issues) == before and (rule.min is None or rule.max is None or rule.min <= rule.max)
            for bound in ("min", "max"):   # once the bounds themselves are right (one problem at a time)
                if consistent and getattr(rule, bound) is not None:
                    self._type_limit_marked(f, ("rules", index), bound, getattr(rule, bound), rule, ctypes)
            if rule.max is not None:
                for product in rule.products:
                    best = lowest_max.get((rule.api, rule.field, product))
                    if best is None or best.max is None or rule.max < best.max:
                        lowest_max[rule.api, rule.field, product] = rule
        for rule in ranges:
            if rule.min is None:
                continue
            for product in rule.products:
                other = lowest_max.get((rule.api, rule.field, product))
                if other is not None and other is not rule and other.max is not None and rule.min > other.max:
                    f, index = self.rule_places[rule.id]
                    self.issues.append(f.issue(("rules", index, "min"), (
                        f"min {rule.min} is above the max {other.max} of {other.id} ({other.file}:{other.line}) on "
                        f"{product}: no {rule.field} would be legal; expected min <= {other.max}")))
                    break
        for f, path, rule_id, bounds in self.effect_limits:
            limited = rules.get(rule_id)
            if limited is None:
                continue   # an unknown rule is reported with the other references
            if limited.kind != "range" or not limited.field:
                self.issues.append(f.issue(path, f"limits apply to range rules; {rule_id} is a {limited.kind} rule"))
                continue
            for bound, value in bounds.items():
                self._within_ctype(f, path + (bound,), bound, value, limited, ctypes)
            low, high = bounds.get("min", limited.min), bounds.get("max", limited.max)
            if low is not None and high is not None and low > high:
                self.issues.append(f.issue(path, f"under this alternative {rule_id} would range from {low} to {high}; "
                                                 "expected min <= max"))

    def _type_limit_marked(self, f: _File, path: tuple[Any, ...], bound: str, value: int, rule: model.Rule,
                           ctypes: CTypes) -> None:
        """A bound is marked `type_limit` exactly when it is the C type's own limit (the value a typed target
        cannot be given one past)."""
        limits = [self.ctypes[ctype][bound == "max"] for ctype in sorted(ctypes.get((rule.api, rule.field), ()))]
        own, marked = bool(limits) and all(limit == value for limit in limits), bound in rule.type_limit
        if own and not marked:
            self.issues.append(f.issue(path, f"{bound} {value} is the C type's own limit of {rule.field}: add "
                                             f"{bound} to type_limit"))
        elif marked and not own:
            self.issues.append(f.issue(path + ("type_limit",), f"{bound} {value} is not the C type's own limit of "
                                                               f"{rule.field}; remove {bound} from type_limit"))

    def _within_ctype(self, f: _File, path: tuple[Any, ...], bound: str, value: int, rule: model.Rule,
                      ctypes: CTypes) -> None:
        for ctype in sorted(ctypes.get((rule.api, rule.field), ())):
            low, high = self.ctypes[ctype]
            if not low <= value <= high:
                self.issues.append(f.issue(path, f"{bound} {value} is outside the C type of {rule.field}, {ctype} "
                                                 f"({low}..{high}); expected a bound within it"))


def _citation(data: dict[str, Any]) -> model.Citation:
    return model.Citation(data["source"], data["section"])
