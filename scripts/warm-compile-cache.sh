#!/bin/sh
# Run by the Dockerfile as the image's user, with the image's files in place: what a container runs most (the service
# started, asked a few things and stopped; the CLI's listings and a write on an embedded data folder) runs once, and
# what the service loads only later is imported, so that Node.js keeps the code V8 compiled for every module they load
# in /app/compile-cache (src/main.ts chooses that folder when it exists). A new container then starts from that code
# instead of compiling every module again (issue 30, bench/RESULTS.md "The image's compile cache"). Its database,
# secret and ports live only while this runs; what the commands print is shown only when one fails.
set -eu

work=$(mktemp -d)
output="$work/output"
pid=""
finish() {
  code=$?
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  [ "$code" = 0 ] || { cat "$output" >&2; echo "warm-compile-cache: failed (exit code $code)" >&2; }
  rm -rf "$work"
  exit "$code"
}
trap finish EXIT
SESSION_SECRET=$(node -p 'require("node:crypto").randomBytes(32).toString("hex")')
# A free port of loopback: a build with the host's network (`docker build --network host`) shares the host's ports.
PORT=$(node -e 'const server = require("node:net").createServer().listen(0, "127.0.0.1", () => {
  console.log(server.address().port);
  server.close();
})')
# The metrics listener on a port of its own choosing, for the same reason.
export SESSION_SECRET PORT DATA_DIR="$work/data" OAUTH_CREATE_EMBEDDED_DATABASE=1 HOST=127.0.0.1 METRICS_PORT=0 LOG_LEVEL=warn

for command in 'apps create --name warm-up --redirect-uri https://warm-up.example/cb' 'apps list' \
  'apps update 1 --name warm-up' 'users list' 'resources list' 'keys list' 'audit list' 'tokens cleanup'; do
  echo "oauth-service $command" >>"$output"
  # shellcheck disable=SC2086 # the command's words
  oauth-service $command >>"$output" 2>&1
done

oauth-service serve >>"$output" 2>&1 &
pid=$!
# Exit code 0 once every path answered 200, 1 while one does not (yet).
answered() {
  node -e 'const [port, ...paths] = process.argv.slice(1);
    Promise.all(paths.map((path) => fetch(`http://127.0.0.1:${port}${path}`)))
      .then((answers) => process.exit(answers.every((answer) => answer.ok) ? 0 : 1), () => process.exit(1))' "$PORT" "$@"
}
# Generous: a multi-platform build runs the other platform's image under emulation, several times slower.
deadline=$(($(date +%s) + 300))
until answered /healthz; do
  if [ "$(date +%s)" -ge "$deadline" ] || ! kill -0 "$pid" 2>/dev/null; then
    echo "the service did not answer /healthz within 300 s" >>"$output"
    exit 1
  fi
  sleep 0.2
done
answered /readyz /.well-known/oauth-authorization-server || {
  echo "/readyz or the discovery document did not answer 200" >>"$output"
  exit 1
}
# The service writes the code it compiled when it stops.
kill -TERM "$pid"
wait "$pid"
pid=""

# What the service loads only later, once a request needs it: the passkeys library (the first passkey ceremony),
# Prisma's runtime, its query compiler and driver adapters (the first write), pg (on PostgreSQL, which this script's
# data folder is not) and argon2 (the first password). A Node.js process without V8 flags, as `serve` runs, keeps
# their code in the service's folder of the cache.
echo "the modules the service loads later" >>"$output"
node --input-type=module -e '
  import { enableCompileCache } from "node:module";
  enableCompileCache("/app/compile-cache");
  await Promise.all(process.argv.slice(1).map((name) => import(name)));
' @simplewebauthn/server ./dist/storage/generated/client.js @prisma/client/runtime/query_compiler_small_bg.postgresql.mjs \
  @prisma/client/runtime/query_compiler_small_bg.postgresql.wasm-base64.mjs pglite-prisma-adapter @prisma/adapter-pg pg \
  @node-rs/argon2 >>"$output" 2>&1
