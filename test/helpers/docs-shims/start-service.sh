#!/usr/bin/env bash
# `npm start` for the docs-as-tests harness: the service in the background (the reader's terminal in the foreground),
# on the harness's free port, ready once /readyz answers 200. A server this document started before is stopped
# first, as the reader stops it (Ctrl-C) before starting it again. The harness stops the last one by its pid file.
set -euo pipefail
pid_file="$DOCS_TEST_OUT/server.pid"
log="$DOCS_TEST_OUT/server.log"
if [ -f "$pid_file" ]; then
  previous="$(cat "$pid_file")"
  kill -TERM "$previous" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$previous" 2>/dev/null || break
    sleep 0.1
  done
  rm -f "$pid_file"
fi
# The status of /readyz (000 when nothing answers); through node where curl is not installed, as .ci/run does.
readyz() {
  if command -v curl >/dev/null; then
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$PORT/readyz" || true
  else
    node -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(2000) }).then((r) => console.log(r.status), () => console.log("000"))' \
      "http://127.0.0.1:$PORT/readyz"
  fi
}
node "$DOCS_TEST_ROOT/scripts/cli.mjs" serve >>"$log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$pid_file"
for _ in $(seq 1 300); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "docs-test: the service exited before it was ready:" >&2
    cat "$log" >&2
    exit 1
  fi
  if [ "$(readyz)" = 200 ]; then
    exit 0
  fi
  sleep 0.1
done
echo "docs-test: /readyz did not answer 200 within 30 s:" >&2
cat "$log" >&2
exit 1
