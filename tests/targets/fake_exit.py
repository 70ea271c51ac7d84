"""Answers the first case like the echo target, then exits with code 3 on the 2nd."""

import sys

from _fake import echo_result, run, send


def on_execute(n, request):
    if n == 2:
        print("fake_exit: giving up on case 2", file=sys.stderr, flush=True)
        sys.exit(3)
    send({"id": request["id"], **echo_result(request["case"])})


run(on_execute)
