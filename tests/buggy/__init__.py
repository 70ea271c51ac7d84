"""A catalogue of deliberately buggy targets (tests.buggy.targets), each a small mutation of the reference,
served in-process as ``python:tests.buggy.targets:<Class>`` or over exec by ``tests/buggy/exec_buggy.py``."""
