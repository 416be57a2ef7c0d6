#!/usr/bin/env bash
# Fuzzes the server from its own /openapi.json with schemathesis: every operation, requests
# generated from the documented schemas (valid ones; with --mode all or negative, invalid ones too),
# checked for no 5xx (not_a_server_error) and answers that match the documented response
# schemas (response_schema_conformance). Prints the answers counted by status and operation, and
# any 4xx that is not OpenAI's error envelope or, refusing a body, names no field.
#
#   bench/schemathesis.sh                         # the tiny fixture model (npm run fixtures), 100 examples per operation
#   bench/schemathesis.sh --model smollm2 -n 30   # the default model
#   bench/schemathesis.sh --mode all              # invalid requests too (anything else schemathesis run takes goes after)
#   bench/schemathesis.sh --keep                  # keep the server log and the HAR of every request (the folder is printed)
#
# schemathesis 4.32.5 is installed once into $LMFORGE_HOME/peer/schemathesis-venv, outside the repo.
# The server runs with a 512-token context (--context N): a fuzzed max_tokens cannot make one
# request long, but a fuzzed prompt longer than that is a 400 (context_length_exceeded).
# Exit status: schemathesis's (0 when every check passed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
venv="${LMFORGE_HOME:-$HOME/.cache/lmforge}/peer/schemathesis-venv"
if [ ! -x "$venv/bin/schemathesis" ] || [ "$("$venv/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version 4.32.5" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check 'schemathesis==4.32.5'
fi

model="$root/fixtures/.cache/tiny-gpt2.gguf"
examples=100
context=512
mode=positive
keep=0
rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --model) model="$2"; shift 2 ;;
    -n|--max-examples) examples="$2"; shift 2 ;;
    --mode) mode="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --context) context="$2"; shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port"
work="$(mktemp -d -t lmforge-schemathesis.XXXXXX)"
log="$work/serve.log"
node "$root/bin/lmforge.mjs" serve "$model" --port "$port" --overrides "context_window_size=$context" >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; if [ "$keep" = 1 ]; then echo "kept: $work"; else rm -rf "$work"; fi' EXIT
until curl -sf "$url/health" >/dev/null; do
  if ! kill -0 "$server" 2>/dev/null; then cat "$log" >&2; echo "schemathesis.sh: the server did not start" >&2; exit 1; fi
  sleep 0.2
done
echo "server: $(grep -m1 '^model:' "$log")"

status=0
"$venv/bin/schemathesis" run "$url/openapi.json" \
  --checks not_a_server_error,response_schema_conformance \
  --mode "$mode" --max-examples "$examples" --seed 16 --workers 1 --request-timeout 120 \
  --report har --report-har-path "$work/run.har" --warnings off "${rest[@]}" || status=$?

# Every answer schemathesis got, by status, then by operation and status.
"$venv/bin/python" - "$work/run.har" <<'PY'
import collections, json, sys, urllib.parse
entries = json.load(open(sys.argv[1]))["log"]["entries"]
by_status = collections.Counter(e["response"]["status"] for e in entries)
by_operation = collections.Counter()
for e in entries:
    path = urllib.parse.urlsplit(e["request"]["url"]).path
    path = "/v1/models/{model}" if path.startswith("/v1/models/") else path
    by_operation[(e["request"]["method"], path, e["response"]["status"])] += 1
print(f"\nanswers: {len(entries)}; by status: " + ", ".join(f"{status}: {count}" for status, count in sorted(by_status.items())))
for (method, path, status), count in sorted(by_operation.items()):
    print(f"  {method} {path} {status}: {count}")
server_errors = sum(count for status, count in by_status.items() if status >= 500)
print(f"5xx: {server_errors}")
# A refusal is OpenAI's envelope; a refused body names the field at fault in param.
def envelope(entry):
    try:
        error = json.loads(entry["response"]["content"].get("text") or "")["error"]
        return error if sorted(error) == ["code", "message", "param", "type"] else None
    except (ValueError, KeyError, TypeError):
        return None
refused = [e for e in entries if 400 <= e["response"]["status"] < 500]
bare = [e for e in refused if envelope(e) is None]
def object_body(entry):
    try:
        return isinstance(json.loads((entry["request"].get("postData") or {}).get("text") or ""), dict)
    except ValueError:
        return False
# A body that is not a JSON object at all has no field to name.
unnamed = [e for e in refused if e["response"]["status"] == 400 and object_body(e) and envelope(e) and envelope(e)["param"] is None]
print(f"4xx: {len(refused)}, without the error envelope: {len(bare)}, refusing a JSON object and naming no field: {len(unnamed)}")
for e in (bare + unnamed)[:10]:
    print(f"  {e['request']['method']} {e['request']['url']} {e['response']['status']}: {(e['response']['content'].get('text') or '')[:200]}")
PY
if grep -q 'internal error' "$log"; then echo "the server logged internal errors:" >&2; grep -A3 'internal error' "$log" >&2; fi
exit "$status"
