"""Answers each case with one kind of malformed answer, chosen by --mode."""

import argparse
import base64
import sys

from _fake import echo_result, run, send

parser = argparse.ArgumentParser()
parser.add_argument(
    "--mode",
    required=True,
    choices=[
        "wrong-length", "missing-region", "extra-region", "wrong-address", "bad-base64",
        "not-object", "no-id", "no-status", "unknown-status", "rejected-no-rules", "endless-line",
    ],
)
mode = parser.parse_args().mode


def on_execute(n, request):
    answer = {"id": request["id"], **echo_result(request["case"])}
    memory = {name: dict(region) for name, region in answer["memory"].items()}
    answer["memory"] = memory
    first = sorted(memory)[0]
    if mode == "wrong-length":
        memory[first]["data"] = base64.b64encode(base64.b64decode(memory[first]["data"]) + b"\0").decode()
    elif mode == "missing-region":
        del memory[first]
    elif mode == "extra-region":
        memory["L1"] = {"address": 0, "data": ""}
    elif mode == "wrong-address":
        memory[first]["address"] += 32
    elif mode == "bad-base64":
        memory[first]["data"] = "not base64!"
    elif mode == "not-object":
        answer = [answer]
    elif mode == "no-id":
        del answer["id"]
    elif mode == "no-status":
        del answer["status"]
    elif mode == "unknown-status":
        answer["status"] = "fine"
    elif mode == "rejected-no-rules":
        answer = {"id": request["id"], "status": "rejected", "message": "no"}
    elif mode == "endless-line":
        while True:
            sys.stdout.write("x" * 65536)
            sys.stdout.flush()
    send(answer)


run(on_execute)
