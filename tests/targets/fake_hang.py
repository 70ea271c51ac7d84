"""Answers like the echo target but hangs forever on the n-th case it gets (--on N, default 1)."""

import argparse
import sys
import time

from _fake import echo_result, run, send

parser = argparse.ArgumentParser()
parser.add_argument("--on", type=int, default=1)
args = parser.parse_args()


def on_execute(n, request):
    if n == args.on:
        print(f"fake_hang: hanging on case {n}", file=sys.stderr, flush=True)
        while True:
            time.sleep(60)
    send({"id": request["id"], **echo_result(request["case"])})


run(on_execute)
