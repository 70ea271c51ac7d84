"""A good target: answers ok with the case's memory unchanged.

Options: --name NAME, --validates, --products a,b, --apis X,Y (declared in hello).
"""

import argparse

from _fake import echo_result, run, send

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="echo")
parser.add_argument("--validates", action="store_true")
parser.add_argument("--products")
parser.add_argument("--apis")
args = parser.parse_args()

hello = {"name": args.name, "validates": args.validates}
if args.products:
    hello["products"] = args.products.split(",")
if args.apis:
    hello["apis"] = args.apis.split(",")

run(lambda n, request: send({"id": request["id"], **echo_result(request["case"])}), hello)
