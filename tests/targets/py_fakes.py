"""In-process fakes for python:<module>:<attr> target tests (module py_fakes)."""


class Good:
    """Answers ok with memory unchanged; says hello."""

    def hello(self):
        return {"name": "py-good", "validates": True, "products": ["atlas-a2"], "apis": ["DataCopy"]}

    def execute(self, case):
        return {"status": "ok", "memory": case["memory"]}


class NoHello:
    """Answers ok with memory unchanged; has no hello()."""

    def execute(self, case):
        return {"status": "ok", "memory": case["memory"]}


class Raising:
    """execute raises."""

    def execute(self, case):
        raise RuntimeError("device on fire")


class Mutating:
    """Scribbles over the case it is given, then answers a memory without regions."""

    def execute(self, case):
        case["memory"].clear()
        return {"status": "ok", "memory": {}}


class BrokenInit:
    """Its constructor raises."""

    def __init__(self):
        raise OSError("cannot open device")

    def execute(self, case):
        return {}


class DiesOnHalf:
    """The reference, except that a case of dtype half kills the whole process (as a segfaulting native
    target would): under xdist the worker dies and its test must be recorded as crashed."""

    def hello(self):
        return {"name": "dies-on-half", "validates": True}

    def execute(self, case):
        import os

        import reference

        if case["src"]["dtype"] == "half":
            os._exit(3)
        return reference.expect(case)


def rejecting_execute(case):
    return {"status": "rejected", "rules": ["DataCopy.blockLen.range"], "message": "blockLen too big"}


class _Module:
    """Groups the function above into an object with execute."""

    execute = staticmethod(rejecting_execute)


rejecting = _Module()
not_a_target = 42
