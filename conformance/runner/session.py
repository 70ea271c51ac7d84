"""One conformance run inside pytest: its options checked, its target started and closed, its selection and
its checker.

The pytest plugin builds one `RunSession` per process (each xdist worker has its own target process);
`start` checks every option and starts the target before any test runs. What the run tests is its
`selection` (runner.selection); the suite's tests hand each drawn case to its `checker` (runner.checker).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from functools import cached_property

from ascendc_conformance.format.baseline import Baseline
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.format.errors import ConformanceError, TargetStartError, did_you_mean
from ascendc_conformance.format.files import output_directory
from ascendc_conformance.format.limits import Limits
from ascendc_conformance.format.pack import Pack, verify_pack
from ascendc_conformance.runner import options, waivers
from ascendc_conformance.runner.checker import Checker
from ascendc_conformance.runner.options import Entry, OptionError
from ascendc_conformance.runner.pack_check import check_test_list, rederive
from ascendc_conformance.runner.report_lock import ReportLock
from ascendc_conformance.runner.selection import Selection, selected_apis, selected_products
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.spec.model import Reading, Spec
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.legal import contexts
from ascendc_conformance.targets import EXEC_SCHEME, Target, open_target


class RunSession:
    """A run of the suite under `settings` against the spec `spec` (the entry point's)."""

    def __init__(self, settings: RunSettings, spec: Spec, entry: Entry = Entry.PYTEST) -> None:
        self.settings = settings
        self.spec = spec
        self.entry = entry   # `run` or the plugin: the option names its hints give
        self._target: Target | None = None
        self.report_lock: ReportLock | None = None
        self._controller = True   # the process that writes results.jsonl (start: not an xdist worker)

    def start(self, *, controller: bool = True) -> None:
        """Check everything the run was given, in the order a user would fix it, and start the target: an
        OptionError naming the option at fault, before any test runs (the entry points show it as a usage
        error). Option values (timeout, shard, ...) were checked as they were parsed (runner.options). The
        `controller` (the process that writes results.jsonl, not an xdist worker) re-derives an unpinned pack's
        expected results and locks the report directory last (runner.report_lock)."""
        self._controller = controller
        checks: list[tuple[str, Callable[[], object]]] = [
            ("pack", self._check_pack), ("product", lambda: self.products), ("api", lambda: self.apis),
            ("reading", lambda: self.reading), ("waivers", lambda: self.waivers),
            ("baseline", lambda: self.baseline), ("strict_baseline", self._check_strict_baseline),
            ("target_processes", self._check_processes), ("target", lambda: self.target),
            ("target", self._check_something_runs), ("target", self._check_validation),
            ("report", self._check_report_dir)]
        if controller:
            checks.append(("report", self._lock_report_dir))
        for name, check in checks:
            try:
                check()
            except OptionError:
                raise
            except TargetStartError as error:
                tail = f"target stderr (tail):\n{error.stderr_tail}" if error.stderr_tail else ""
                raise OptionError(options.named(name), error.message, tail) from None
            except ConformanceError as error:
                raise OptionError(options.named(name), str(error)) from None

    @cached_property
    def waivers(self) -> tuple[waivers.Waiver, ...]:
        """The run's waivers (WaiverError for a file that cannot be used)."""
        return waivers.load(self.settings.waivers_file, self.spec.rules) if self.settings.waivers_file else ()

    @cached_property
    def baseline(self) -> Baseline | None:
        """The causes of failure the run knows of already (--baseline; BaselineError for one it cannot read)."""
        return Baseline.read(self.settings.baseline) if self.settings.baseline is not None else None

    def _check_strict_baseline(self) -> None:
        if self.settings.strict_baseline and self.settings.baseline is None:
            raise ConformanceError(f"fails the run when a cause of the baseline no longer fails; give the baseline "
                                   f"with {self.entry.flag('baseline')} DIR|FILE")

    @cached_property
    def reading(self) -> Reading:
        """The reading the run certifies under (ReadingError for words naming no known point or alternative)."""
        return self.spec.reading(self.settings.reading)

    @property
    def target(self) -> Target:
        if self._target is None:
            self._target = open_target(self.settings.target, self.spec, timeout=self.settings.timeout,
                                       processes=self.settings.target_processes)
        return self._target

    @cached_property
    def pack(self) -> Pack | None:
        """The pack the run takes its cases from (None: a profile run draws them), checked against itself
        (format.pack.verify_pack; against its pinned id when --pack-id gave one); PackError for a pack that is
        missing, malformed, does not match its hashes or says of itself what its content does not hold."""
        return verify_pack(self.settings.pack, self.settings.pack_id) if self.settings.pack is not None else None

    @property
    def profile(self) -> str:
        """The profile the run's cases come from: the pack's, or --profile."""
        return self.pack.profile if self.pack is not None else self.settings.profile

    @cached_property
    def products(self) -> tuple[str, ...] | None:
        """The selected product ids (None: all); ConformanceError for a name that is no product id or alias."""
        return selected_products(self.spec, self.pack.products if self.pack is not None else self.settings.products)

    @cached_property
    def apis(self) -> tuple[str, ...] | None:
        """The selected APIs (None: all); ConformanceError for a name that is no API of the spec."""
        return selected_apis(self.spec, self.pack.apis if self.pack is not None else self.settings.apis)

    @property
    def limits(self) -> Limits:
        """The limits the target declares in its hello (format.limits)."""
        return self.target.hello.limits

    @cached_property
    def selection(self) -> Selection:
        """What the run tests (the target started: its limit tests follow the limits it declares)."""
        return self._products_and_apis.refined(pack=self.pack, limits=self.limits, profile=self.profile)

    @cached_property
    def _products_and_apis(self) -> Selection:
        """The tests of the selected products and APIs, whatever the pack and the limits: worked out once, for
        the pack's check and the run's selection."""
        return Selection(self.spec, self.products, self.apis)

    @cached_property
    def checker(self) -> Checker:
        """What checks each case of the run's tests (the target started)."""
        return Checker(spec=self.spec, reading=self.reading, target=self.target, settings=self.settings,
                       waivers=self.waivers, packed=self.pack is not None, entry=self.entry)

    def _check_pack(self) -> None:
        """A pack fixes the selection (no --product or --api beside it) and must come from this suite's spec and
        list exactly the tests the suite makes for its selection; without a pinned id (--pack-id) the controlling
        process works out every expected result again (runner.pack_check) before the first case. OptionError,
        PackError."""
        pack = self.pack
        if pack is None:
            if self.settings.pack_id is not None:
                raise OptionError(options.named("pack_id"), "pins the id of a pack; give the pack with --pack")
            return
        selection = f"products {', '.join(pack.products) or 'all'}, APIs {', '.join(pack.apis) or 'all'}"
        for name, given in (("product", self.settings.products), ("api", self.settings.apis)):
            if given:
                raise OptionError(options.named(name), f"{', '.join(given)}: the pack {pack.directory} fixes the "
                                                       f"selection ({selection}); run a part of it with -k")
        check_test_list(pack, self.spec)
        if self.settings.pack_id is None and self._controller:
            rederive(pack, self.spec)

    def _check_processes(self) -> None:
        if self.settings.target_processes > 1 and not self.settings.target.startswith(EXEC_SCHEME):
            raise ConformanceError(f"{self.settings.target_processes}: only an exec: target runs in processes of its "
                                   f"own; {self.settings.target!r} runs in this one (serve it over exec: "
                                   "`exec:python -m ascendc_conformance.targets.serve ...`)")

    def idle_capabilities(self) -> list[str]:
        """The hello's `implements` / `excludes` entries that match no documented path of the spec: a misspelt
        entry would otherwise quietly make tests not-supported (or leave them in)."""
        hello = self.target.hello
        subjects = [_route(c) for c in contexts(self.spec, self.spec.paths())]
        return [f"{kind}[{index}] {dict(entry.keys)}"
                for kind, entries in (("implements", hello.implements or ()), ("excludes", hello.excludes))
                for index, entry in enumerate(entries) if not any(entry.matches(s) for s in subjects)]

    def _check_something_runs(self) -> None:
        """A hello that leaves no test of a selection to run (every one would be not-supported, e.g. an
        `implements` matching nothing) is refused: such a run would pass having checked nothing. An empty
        selection is not the hello's doing."""
        selection = self.selection
        selected = [*contexts(self.spec, selection.paths), *(c for fault in selection.faults for c in fault.contexts),
                    *(c for boundary in selection.boundaries for c in boundary.contexts)]
        hello = self.target.hello
        if not selected or any(hello.supports(c.product.id, c.api.name, src=c.src, dst=c.dst, dtype=c.src_dtype.name,
                                              dst_dtype=c.dst_dtype.name, form=c.form) for c in selected):
            return
        declared = {key: hello.raw[key] for key in ("products", "apis", "implements", "excludes") if key in hello.raw}
        hints = [f"its {key} {name!r} is none of the spec's{did_you_mean(name, known)}"
                 for key, names, known in (("products", hello.products, [p.id for p in self.spec.products]),
                                           ("apis", hello.apis, self.spec.apis))
                 for name in names or () if name not in known]
        hints += [f"{entry} matches no documented path" for entry in self.idle_capabilities()]
        chosen = f"products {', '.join(self.products or ('all',))}; APIs {', '.join(self.apis or ('all',))}"
        raise ConformanceError(clip(f"the target's hello leaves nothing of the selection ({chosen}) to run: "
                                    + "".join(f"{hint}; " for hint in hints) + f"it declares {json.dumps(declared)}",
                                    TARGET_TEXT_CHARS))

    def _check_validation(self) -> None:
        """A rule id the hello's `validates` names that the spec does not know is a usage error: a misspelt id
        would quietly leave its rule uncertified (an unknown kind is refused as the hello is read)."""
        unknown = self.target.hello.validation.unknown_rules(self.spec.rules)
        if unknown:
            raise ConformanceError(clip(
                f"the target's hello declares that it validates {', '.join(unknown)}, which "
                f"{'is no rule' if len(unknown) == 1 else 'are no rules'} of the spec"
                f"{did_you_mean(unknown[0], self.spec.rules)}; name rule ids of `ascendc-conformance spec rules`",
                TARGET_TEXT_CHARS))

    def _check_report_dir(self) -> None:
        if self.settings.report_dir is not None:
            output_directory(self.settings.report_dir)

    def _lock_report_dir(self) -> None:
        if self.settings.report_dir is not None:
            self.report_lock = ReportLock.acquire(self.settings.report_dir)

    def close(self) -> None:
        if self._target is not None:
            self._target.close()
            self._target = None
        if self.report_lock is not None:
            self.report_lock.release()
            self.report_lock = None


def _route(context: PathContext) -> dict[str, str | None]:
    """What a hello's `implements` / `excludes` entries and Hello.supports look at in a path context."""
    return {"product": context.product.id, "api": context.api.name, "src": context.src, "dst": context.dst,
            "dtype": context.src_dtype.name, "dst_dtype": context.dst_dtype.name, "form": context.form}
