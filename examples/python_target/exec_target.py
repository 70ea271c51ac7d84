"""The same target as an exec: program: one JSON request per line on stdin, one JSON answer per line on stdout."""
import json
import sys

from my_target import MyTarget

target = MyTarget()
for line in sys.stdin:
    request = json.loads(line)
    answer = {"status": "ok", **target.hello()} if request["op"] == "hello" else target.execute(request["case"])
    print(json.dumps({"id": request["id"], **answer}), flush=True)
