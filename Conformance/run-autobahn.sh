#!/usr/bin/env bash
# Runs Autobahn|Testsuite's client cases against `livesim echo-client` (the real transport).
#
# Needs: python3 with `kosoku` (a native runner of Autobahn's case files) and `websockets`
# (only for the driver's bookkeeping requests): pip install kosoku websockets
# Usage: Conformance/run-autobahn.sh [CASE-GLOB...]   (default: groups 1-13)
# The client offers permessage-deflate (`--deflate`); AUTOBAHN_DEFLATE_PARAMS=P offers it with
# the parameters P instead (`--deflate-params P`). Cases 13.2, 13.5 and 13.6 are accepted only
# by a client that promises client_no_context_takeover, so a full run is two runs:
#   Conformance/run-autobahn.sh
#   AUTOBAHN_DEFLATE_PARAMS=client_no_context_takeover Conformance/run-autobahn.sh '13.2.*' '13.5.*' '13.6.*'
# Writes Conformance/reports/ and prints a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
# LIVESIM=path runs that binary instead of building one (e.g. a copy, so the worktree can build meanwhile).
livesim=${LIVESIM:-.build/debug/livesim}
[ -n "${LIVESIM:-}" ] || swift build --product livesim >/dev/null
port=${AUTOBAHN_PORT:-9001}
rm -rf Conformance/reports
mkdir -p Conformance/reports
includes=()
for glob in "${@:-1.* 2.* 3.* 4.* 5.* 6.* 7.* 9.* 10.* 12.* 13.*}"; do
  for g in $glob; do includes+=(-i "$g"); done
done
(cd Conformance/reports && exec kosoku -m fuzzingserver "${includes[@]}" "127.0.0.1:$port") &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
sleep 2
count=$(python3 - "$port" <<'PY'
import asyncio, sys
from websockets.asyncio.client import connect
async def main():
    async with connect(f"ws://127.0.0.1:{sys.argv[1]}/getCaseCount") as ws:
        print(await ws.recv())
asyncio.run(main())
PY
)
if [ -n "${AUTOBAHN_DEFLATE_PARAMS:-}" ]; then
  deflate=(--deflate-params "$AUTOBAHN_DEFLATE_PARAMS")
else
  deflate=(--deflate)
fi
echo "running $count cases, offering ${deflate[*]}"
for case in $(seq 1 "$count"); do
  # 9.x sends messages up to 16 MiB: the limit is raised for the conformance run only.
  "$livesim" echo-client "ws://127.0.0.1:$port/runCase?case=$case&agent=livesim" --max-message-size 67108864 \
    "${deflate[@]}" >/dev/null || true
done
python3 - "$port" <<'PY'
import asyncio, sys
from websockets.asyncio.client import connect
async def main():
    async with connect(f"ws://127.0.0.1:{sys.argv[1]}/updateReports?agent=livesim") as ws:
        try:
            await ws.recv()
        except Exception:
            pass
asyncio.run(main())
PY
# Writing the report of a few hundred cases takes a while: wait for it (up to 5 minutes).
for _ in $(seq 1 300); do
  compgen -G "Conformance/reports/**/index.json" >/dev/null || compgen -G "Conformance/reports/*/*/index.json" >/dev/null && break
  sleep 1
done
sleep 2
python3 - <<'PY'
import collections, glob, json, os
index = glob.glob("Conformance/reports/**/index.json", recursive=True)
if not index:
    raise SystemExit("no report found under Conformance/reports")
cases = json.load(open(index[0]))["livesim"]
counts = collections.Counter(result["behavior"] for result in cases.values())
print("behaviour:", dict(sorted(counts.items())))
for case, result in sorted(cases.items(), key=lambda item: [int(p) for p in item[0].split(".")]):
    if result["behavior"] not in ("OK", "INFORMATIONAL") or result.get("behaviorClose") not in ("OK", "INFORMATIONAL", None):
        print(case, result["behavior"], result.get("behaviorClose"))
PY
