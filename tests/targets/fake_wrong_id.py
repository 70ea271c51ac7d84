"""Answers a correct result under the wrong request id."""

from _fake import echo_result, run, send

run(lambda n, request: send({"id": request["id"] + 1000, **echo_result(request["case"])}))
