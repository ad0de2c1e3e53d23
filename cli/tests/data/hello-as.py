"""An external implementation that only says hello, under the name given as its argument
(for the registry's name checks; it answers no other request)."""
import json
import sys

NAME = sys.argv[1]
for line in sys.stdin:
    if not line.strip():
        continue
    req = json.loads(line)
    if req.get("op") == "hello":
        out = {"status": "ok", "value": {"name": NAME, "version": NAME + " 0", "versions": [1, 2, 3]}}
    else:
        out = {"status": "unsupported", "reason": "hello only"}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
