#!/usr/bin/env bash
# Proof as a consumer (issue 13 §4): build and `npm pack` the SDK, install the tarball into a fresh app with
# React 18 + zod 3 and again with React 19, type-check a file that touches every export (ESM and CJS
# declarations, NodeNext resolution, skipLibCheck off), and run a render test in jsdom. Reuses the npm cache.
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

for react in 18 19; do
  app="$work/app-react$react"
  mkdir -p "$app"
  cp "$here/consumer-app/"* "$app/"
  cat > "$app/package.json" <<JSON
{ "name": "scratch-app-react$react", "private": true, "type": "module" }
JSON
  ( cd "$app" && npm install --no-audit --no-fund --prefer-offline --loglevel=error \
      "$work/$tarball" "react@$react" "react-dom@$react" "@types/react@$react" "@types/react-dom@$react" \
      zod@3.25.76 msw@2 jsdom@29.0.1 typescript@5.9.3 >/dev/null )
  echo "react $react: installed $(node -p "require('$app/node_modules/react/package.json').version")"
  ( cd "$app" && npx --no-install tsc -p tsconfig.json )
  echo "react $react: type-check of every export passed"
  ( cd "$app" && node render-test.mjs )
done
echo "consumer proof passed"
