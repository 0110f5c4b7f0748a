#!/usr/bin/env bash
# Runs Autobahn|Testsuite's server cases against `livesim serve --echo` (our WebSocketServer).
#
# Needs: python3 with `kosoku` (a native runner of Autobahn's case files): pip install kosoku
# Usage: Conformance/run-autobahn-server.sh [CASE-GLOB...]   (default: groups 1-10, about 20 s,
# what CI runs). The permessage-deflate groups, which the server grants by default, are asked
# for: Conformance/run-autobahn-server.sh '12.*' '13.*' (216 cases, about 12 min in a debug
# build on 2 shared cores; docs/serve.md has the figures). Writes Conformance/reports/servers/,
# prints a summary and exits 1 if any case is not OK (or INFORMATIONAL/NON-STRICT, listed).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product livesim >/dev/null
livesim=.build/debug/livesim
out=Conformance/reports/servers
rm -rf "$out"
mkdir -p "$out"
includes=()
for glob in "${@:-1.* 2.* 3.* 4.* 5.* 6.* 7.* 9.* 10.*}"; do
  for g in $glob; do includes+=(-i "$g"); done
done
# 9.x sends messages of up to 16 MiB: the limit is raised for the conformance run only.
# The server exits by itself after an hour at most; the trap ends it as soon as we are done.
"$livesim" serve --echo --max-message-size 67108864 --duration 3600 >"$out/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  grep -q "listening on" "$out/serve.log" && break
  sleep 0.1
done
port=$(sed -n 's/^listening on ws:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$out/serve.log")
[ -n "$port" ] || { cat "$out/serve.log"; exit 1; }
start=$(date +%s)
kosoku -m fuzzingclient -o "$out" "${includes[@]}" "127.0.0.1:$port" >"$out/kosoku.log" 2>&1 || true
echo "kosoku finished in $(( $(date +%s) - start )) s"
python3 - "$out" <<'PY'
import collections, glob, json, sys
index = glob.glob(f"{sys.argv[1]}/**/index.json", recursive=True)
if not index:
    raise SystemExit("no report found under " + sys.argv[1])
agents = json.load(open(index[0]))
cases = next(iter(agents.values()))
counts = collections.Counter(result["behavior"] for result in cases.values())
closes = collections.Counter(result.get("behaviorClose") for result in cases.values())
print("cases:", len(cases), "behaviour:", dict(sorted(counts.items())), "close:", dict(sorted(map(lambda kv: (str(kv[0]), kv[1]), closes.items()))))
bad = 0
for case, result in sorted(cases.items(), key=lambda item: [int(p) for p in item[0].split(".")]):
    if result["behavior"] != "OK" or result.get("behaviorClose") not in ("OK", "INFORMATIONAL", None):
        print(case, result["behavior"], result.get("behaviorClose"))
        if result["behavior"] not in ("OK", "INFORMATIONAL", "NON-STRICT"):
            bad += 1
sys.exit(1 if bad else 0)
PY
