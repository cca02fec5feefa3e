#!/usr/bin/env bash
# Proof as a consumer: build and `npm pack` the SDK, then install the tarball into fresh apps with React 18 and
# with React 19, each twice:
#   full  — with the optional peers (msw, livekit-client 2.22.0, @ucanto/core, @ucanto/principal): type-check a
#           file that touches every export of every entry (ESM and CJS declarations, NodeNext, skipLibCheck
#           off) and run a render test in jsdom against the package's MSW kit;
#   light — react, react-dom and zod only (npm adds the required peer @tanstack/react-query): `.` and `./chain`
#           import (ESM and CommonJS) and type-check without the optional peers.
# Every install must print no engine warning. Reuses the npm cache.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="${SDK_PROOF_DIR:-$(mktemp -d /tmp/sdk-proof.XXXXXX)}"
mkdir -p "$work"
trap '[ -z "${SDK_PROOF_KEEP:-}" ] && rm -rf "$work"' EXIT

cd "$repo"
npm run build -w sdk --silent >/dev/null
tarball="$(npm pack -w sdk --pack-destination "$work" --silent --json=false | tail -1)"
echo "packed $tarball ($(du -k "$work/$tarball" | cut -f1) KB)"
tar -tzf "$work/$tarball" | sort > "$work/files.txt"
if grep -Ev '^package/(package\.json|README\.md|dist/.*)$' "$work/files.txt"; then
  echo "the tarball holds files outside dist/" >&2
  exit 1
fi

# npm install in an app; fails on an engine warning (EBADENGINE) or any other warning.
install() {
  local app="$1"
  shift
  ( cd "$app" && npm install --no-audit --no-fund --prefer-offline --loglevel=warn "$@" ) >"$app/install.log" 2>&1 || {
    cat "$app/install.log" >&2
    return 1
  }
  if grep -Ei 'EBADENGINE|npm warn' "$app/install.log"; then
    echo "npm install printed a warning in $app" >&2
    return 1
  fi
}

for react in 18 19; do
  for kind in full light; do
    app="$work/app-react$react-$kind"
    mkdir -p "$app"
    cp "$here/consumer-app/"* "$app/"
    # npm 11 asks about install scripts: msw's postinstall only copies its browser worker (not needed here).
    cat > "$app/package.json" <<JSON
{ "name": "scratch-app-react$react-$kind", "private": true, "type": "module", "allowScripts": { "msw": false } }
JSON
    if [ "$kind" = full ]; then
      install "$app" "$work/$tarball" "react@$react" "react-dom@$react" "@types/react@$react" \
        "@types/react-dom@$react" zod@3.25.76 "@tanstack/react-query@5" msw@2 livekit-client@2.22.0 \
        "@ucanto/core@10" "@ucanto/principal@9" jsdom@29.0.1 typescript@5.9.3
    else
      install "$app" "$work/$tarball" "react@$react" "react-dom@$react" "@types/react@$react" zod@3.25.76 \
        typescript@5.9.3
    fi
    echo "react $react, $kind: installed react $(node -p "require('$app/node_modules/react/package.json').version"), @tanstack/react-query $(node -p "require('$app/node_modules/@tanstack/react-query/package.json').version"), no engine warning"
    if [ "$kind" = full ]; then
      ( cd "$app" && npx --no-install tsc -p tsconfig.json )
      echo "react $react, full: type-check of every export passed"
      ( cd "$app" && node render-test.mjs )
    else
      ( cd "$app" && npx --no-install tsc -p tsconfig.light.json )
      echo "react $react, light: type-check of . and ./chain passed"
      ( cd "$app" && node import-light.mjs )
    fi
  done
done
echo "consumer proof passed"
