#!/usr/bin/env bash
# `npm run sdk:pack`: builds the SDK and writes its npm tarball to packs/ at the repository's root (ignored by
# git), then prints the line that installs it into an app. The package is not on the npm registry yet: this is
# how an app gets it today (sdk/README.md, "Getting the package").
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$repo/packs"
mkdir -p "$out"
cd "$repo"
npm run build -w sdk --silent >/dev/null
tarball="$(npm pack -w sdk --pack-destination "$out" --silent --json=false | tail -1)"
echo "$out/$tarball"
echo "install it into your app with:"
echo "  npm install $out/$tarball react react-dom zod@3 @tanstack/react-query@5"
