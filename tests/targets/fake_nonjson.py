"""Prints a debug line that is not JSON instead of an answer."""

import sys

from _fake import run


def on_execute(n, request):
    sys.stdout.write("debug: copying 2 blocks\n")
    sys.stdout.flush()


run(on_execute)
