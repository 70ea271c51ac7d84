"""A target whose hello fails, in the way chosen by --mode."""

import argparse
import json
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--mode", required=True, choices=["garbage", "exit", "hang", "status", "no-name"])
mode = parser.parse_args().mode

request = json.loads(sys.stdin.readline())
print(f"fake_bad_hello: failing hello with mode {mode}", file=sys.stderr, flush=True)
if mode == "garbage":
    print("Welcome to my target v0.1", flush=True)
elif mode == "exit":
    sys.exit(5)
elif mode == "hang":
    time.sleep(3600)
elif mode == "status":
    print(json.dumps({"id": request["id"], "status": "error", "message": "no device"}), flush=True)
elif mode == "no-name":
    print(json.dumps({"id": request["id"], "status": "ok", "validates": True}), flush=True)
time.sleep(3600)
