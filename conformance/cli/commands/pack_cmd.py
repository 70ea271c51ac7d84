"""`pack build` and `pack verify`: certification packs, a fixed hash-pinned case set (format.pack)."""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

from ascendc_conformance.cli.commands import add_verb_parser
from ascendc_conformance.format.defaults import PROFILES
from ascendc_conformance.format.exits import help_text
from ascendc_conformance.format.pack import MANIFEST_FILE, Pack, PackError, check_new_directory
from ascendc_conformance.runner import options
from ascendc_conformance.runner.pack_build import BuildSettings, build
from ascendc_conformance.runner.pack_check import check_pack
from ascendc_conformance.spec.loader import load_spec

PROGRESS_STEPS = 10   # progress lines of a build (one per tenth of its tests)


def register(subparsers: Any) -> None:
    parser = add_verb_parser(
        subparsers, "pack", help="build or verify a certification pack (a fixed, hash-pinned case set)",
        description="A certification pack holds the cases of one run — smoke, legal, single-fault, boundary\n"
                    "and disputed-discriminator tests — with their expected results, as data that any\n"
                    "harness can run (FORMAT.md inside it). Build it once, publish its pack id (printed),\n"
                    "and run every implementation on it: `ascendc-conformance run --pack DIR --target T`.")
    verbs = parser.add_subparsers(title="pack verbs", dest="pack_verb", metavar="VERB", required=True)
    build_parser = add_verb_parser(
        verbs, "build", help="draw the cases of a run and write them as a pack",
        description="Draw the cases of a run of this profile and selection (the same tests and strategies\n"
                    "as `run`, every test seeded with --seed, against nothing: no target is needed), check\n"
                    "each with the reference, and write a pack into DIR: manifest.json (with the SHA-256\n"
                    "of every file), FORMAT.md and one gzip'ed JSON file per test. Memory regions are\n"
                    "given by a fill recipe (seed, size), expected images by their SHA-256. The pack id,\n"
                    "the SHA-256 of manifest.json, is printed. A limit test (test_limit) depends on a\n"
                    "target's declared limits and is not in a pack.\n\n"
                    + help_text("0 the pack was written", "an --out that cannot be made or written is a usage "
                                "error, a disk that fills up while writing is 3"),
        examples=["ascendc-conformance pack build --profile full --seed 7 --out pack-full/",
                  "ascendc-conformance pack build --profile ci --product atlas-a2 --api DataCopy --out pack/"])
    profile = options.named("profile")
    build_parser.add_argument("--profile", default=profile.default, choices=profile.choices,
                              metavar="|".join(profile.choices or ()),
                              help="how many cases per test: " + ", ".join(f"{name} ({count})" for name, count
                                                                         in PROFILES.items())
                                   + f"; only a pack built from full makes a certification run (default {profile.default})")
    seed = options.named("seed")
    build_parser.add_argument("--seed", type=seed.parse, metavar="N",
                              help=f"Hypothesis seed of every test's draw, 0 to {options.MAX_SEED} (default: a random "
                                   "one, recorded in the manifest)")
    for name in ("product", "api"):
        option = options.named(name)
        build_parser.add_argument(option.cli_flag, dest=name, **option.argparse_kwargs())
    build_parser.add_argument("--out", required=True, metavar="DIR", help="a new (or empty) directory for the pack")
    build_parser.add_argument("--workers", type=options.named("workers").parse, default=1, metavar="N",
                              help=f"processes drawing the tests, 1 to {options.MAX_WORKERS} (default 1); the same "
                                   "pack, byte for byte, whatever N")
    build_parser.set_defaults(func=cmd_build)

    verify_parser = add_verb_parser(
        verbs, "verify", help="check a pack fully: hashes, schema, its manifest's claims, every expected result",
        description="Check a pack alone, as `run --pack` checks it before its first case and more: manifest.json\n"
                    "against the pack schema; every file it lists against its SHA-256 (a missing, changed or\n"
                    "unlisted file is refused); every test file against the schema and its manifest entry\n"
                    "(test id, kind, number of cases, case ids) and every fill recipe against the largest\n"
                    "region a case carries; the manifest's counts against its tests, each test's cases against\n"
                    "its profile's, its spec and test list against this suite's for its selection; and every\n"
                    "case's expected result, under every reading it stores, worked out again by the reference.\n"
                    "Prints the pack id and what the pack holds; a problem is one line naming the file (exit 2).\n"
                    "With --pack-id, a pack whose id differs is refused first.",
        examples=["ascendc-conformance pack verify pack-full/",
                  "ascendc-conformance pack verify pack-full/ --pack-id 3f1c…(the 64 hex digits published)"])
    verify_parser.add_argument("directory", metavar="DIR", help="the pack's directory")
    verify_parser.add_argument("--pack-id", type=options.pack_id, metavar="ID",
                               help="the id the pack's certifier published: a pack whose id differs is refused")
    verify_parser.set_defaults(func=cmd_verify)


def cmd_build(args: argparse.Namespace) -> int:
    settings = BuildSettings(profile=args.profile, seed=args.seed if args.seed is not None else random.randrange(2**31),
                             products=tuple(args.product), apis=tuple(args.api))
    shown = set()

    def progress(done: int, total: int, test_id: str) -> None:
        step = done * PROGRESS_STEPS // total
        if step not in shown:
            shown.add(step)
            print(f"pack build (profile {settings.profile}, seed {settings.seed}): {done}/{total} tests ({test_id})",
                  file=sys.stderr, flush=True)

    try:   # before drawing anything: a usage error naming --out
        check_new_directory(Path(args.out))
    except PackError as error:
        raise PackError(f"--out: {error}") from None
    pack = build(settings, load_spec(), Path(args.out), progress, workers=args.workers)
    _describe(pack)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    _describe(check_pack(Path(args.directory), load_spec(), pack_id=args.pack_id, rederive_pinned=True))
    return 0


def _describe(pack: Pack) -> None:
    counts = pack.manifest["counts"]
    size = sum((pack.directory / name).stat().st_size for name in (MANIFEST_FILE, *pack.manifest["files"]))
    built = pack.built
    print(f"pack {pack.pack_id}")
    print(f"  {pack.directory}: {counts['tests']} tests, {counts['cases']} cases, {size / 2**20:.2f} MiB; profile "
          f"{built['profile']}, seed {built['seed']} (Hypothesis {built['hypothesis']}); products "
          f"{', '.join(built['products']) or 'all'}; APIs {', '.join(built['apis']) or 'all'}; spec {pack.spec_digest}")
