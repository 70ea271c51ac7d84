"""`sample`: generated cases with the reference's expected result, as JSON lines, for people writing a target."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ascendc_conformance import reference
from ascendc_conformance.cli.commands import add_verb_parser
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.sample import draw, selection


def register(subparsers: Any) -> None:
    parser = add_verb_parser(
        subparsers, "sample", help="print generated cases with their expected results (JSON lines)",
        description="Print cases the suite would send to a target for one API on one product, one per line\n"
                    "as {\"case\": <case v1>, \"expected\": <the reference's result v1>}: legal cases, or\n"
                    "with --illegal RULE single-fault cases breaking that rule. The same --seed gives the\n"
                    "same cases. Feed the cases to your target and compare its answers with \"expected\".",
        examples=["ascendc-conformance sample --api DataCopy --product 910B -n 3",
                  "ascendc-conformance sample --api LoadData2D --product atlas-a2 --route GM-A1 --dtype half",
                  "ascendc-conformance sample --api DataCopy --product atlas-a2 --illegal DataCopy-blockCount-max"])
    parser.add_argument("--api", required=True, help="an API of the spec (`ascendc-conformance spec apis` lists them)")
    parser.add_argument("--product", required=True, help="product id or alias (atlas-a2, 910B, ...)")
    parser.add_argument("--route", metavar="SRC-DST", help="only this route, e.g. GM-VECIN")
    parser.add_argument("--dtype", help="only this source dtype, e.g. half")
    parser.add_argument("--illegal", metavar="RULE", help="single-fault cases breaking this rule instead of legal ones")
    parser.add_argument("-n", type=int, default=5, dest="count", help="how many cases (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="Hypothesis seed (default 0)")
    parser.set_defaults(func=cmd_sample)


def cmd_sample(args: argparse.Namespace) -> int:
    if args.count < 1:
        raise argparse.ArgumentTypeError("-n must be at least 1")
    spec = load_spec()
    strategy = selection(spec, args.product, args.api, args.route, args.dtype, args.illegal)
    for case in draw(strategy, args.count, args.seed, keep=lambda case: case):
        sys.stdout.write(json.dumps({"case": case.to_json(), "expected": reference.expect(case, spec).to_json()})
                         + "\n")
    return 0
