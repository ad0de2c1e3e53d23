#!/usr/bin/env python3
"""A deliberately crashing external implementation, for the harness's tests.

It answers like harness/examples/external-adapter.py, except that it kills itself with
SIGSEGV when asked anything about a section whose ABI byte is 1 (AArch64 big-endian), and
sleeps forever on one whose ABI byte is 4 (s390x) when started with --hang; started with
--hang-once DIR, it sleeps forever on such a request only the first time it is asked it (a
marker file per request in DIR), as a run slowed by the machine's load would.
"""

import hashlib
import importlib.util
import json
import os
import signal
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "adapter", os.path.join(here, "..", "..", "..", "harness", "examples", "external-adapter.py"))
adapter = importlib.util.module_from_spec(spec)
spec.loader.exec_module(adapter)
adapter.NAME = "segv-example"

hang = "--hang" in sys.argv
once_dir = sys.argv[sys.argv.index("--hang-once") + 1] if "--hang-once" in sys.argv else None

for line in sys.stdin:
    if not line.strip():
        continue
    req = json.loads(line)
    data = bytes.fromhex(req.get("data", ""))
    abi = data[4] if len(data) > 4 else None
    if abi == 1:
        os.kill(os.getpid(), signal.SIGSEGV)
    if hang and abi == 4:
        time.sleep(3600)
    if once_dir and abi == 4:
        marker = os.path.join(once_dir, hashlib.sha256(line.encode()).hexdigest())
        if not os.path.exists(marker):
            open(marker, "w").close()
            time.sleep(3600)
    sys.stdout.write(json.dumps(adapter.answer(req)) + "\n")
    sys.stdout.flush()
