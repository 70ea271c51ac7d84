"""The reference over exec, except on cases of one dtype (--dtype), where it misbehaves as --mode says.

    exit           exits with code 3 (a "crashed" verdict)
    hang           never answers (a "timeout" verdict)
    nonjson        prints a line that is not JSON (an "error" verdict)
    wrong-length   answers a destination region one byte too long (an "error" verdict)

Used by tests/test_run.py to show that a run goes on past such a target and keeps every other result.
"""

import argparse
import base64
import sys
import time
from pathlib import Path

from _fake import run, send

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import reference  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--mode", required=True, choices=["exit", "hang", "nonjson", "wrong-length"])
parser.add_argument("--dtype", required=True)
args = parser.parse_args()


def on_execute(n, request):
    case = request["case"]
    answer = reference.expect(case)
    if case["src"]["dtype"] != args.dtype:
        send({"id": request["id"], **answer})
    elif args.mode == "exit":
        print(f"fake_faulty_reference: giving up on {args.dtype}", file=sys.stderr, flush=True)
        sys.exit(3)
    elif args.mode == "hang":
        time.sleep(3600)
    elif args.mode == "nonjson":
        sys.stdout.write(f"debug: copying {args.dtype}\n")
        sys.stdout.flush()
    else:
        memory = answer.get("memory") or case["memory"]
        memory = {name: dict(region) for name, region in memory.items()}
        for region in memory.values():
            region["data"] = base64.b64encode(base64.b64decode(region["data"]) + b"\0").decode()
        send({"id": request["id"], "status": "ok", "memory": memory})


run(on_execute, hello={"name": "faulty-reference", "validates": True})
