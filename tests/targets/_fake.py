"""Helpers shared by the fake exec targets in this directory (stdlib only).

Each fake is run as ``exec:python3 tests/targets/fake_<x>.py``; Python puts
the script's directory on sys.path, so they can import this module.
"""

import json
import sys


def send(message):
    """Write one protocol line to stdout."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def echo_result(case):
    """The result v1 of a target that leaves memory untouched."""
    return {"status": "ok", "memory": case["memory"]}


def run(on_execute, hello=None):
    """Serve hello with ``hello`` and pass the n-th execute request (1-based) to on_execute.

    on_execute(n, request) writes its own answer (usually with send()).
    """
    n = 0
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            send({"id": request["id"], "status": "ok", **(hello or {"name": "fake", "validates": False})})
        else:
            n += 1
            on_execute(n, request)
