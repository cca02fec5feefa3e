#!/usr/bin/env bash
# Rolling restart of gateway instances behind nginx (docs/operating.md, "Upgrades"), one at a time:
#   1. mark the instance `down` in nginx's server list and reload nginx (new requests go to the others;
#      its streams and sockets, ended by its drain, are re-joined on the others);
#   2. restart it (RESTART: stop with SIGTERM and wait for the exit, then start);
#   3. wait until its own /health/ready answers 200 (started: migrations done, parts serving);
#   4. remove `down` and reload nginx.
# Usage:
#   deploy/rolling-restart.sh 3001 3002
# Settings (environment):
#   SERVERS_FILE   nginx's server list            default /etc/nginx/gateway-servers.conf
#   RESTART        restart command, %s = the port default systemctl restart gateway@%s
#   RELOAD         nginx reload command           default nginx -t -q && nginx -s reload
#   HEALTH_HOST    where the instances listen     default 127.0.0.1
#   READY_TIMEOUT  seconds to wait for readiness  default 120
#   SETTLE         seconds after a reload         default 1 (nginx's old workers finish what they hold)
# Exits non-zero at the first instance that does not come back, leaving it `down` in SERVERS_FILE.
set -euo pipefail

SERVERS_FILE="${SERVERS_FILE:-/etc/nginx/gateway-servers.conf}"
RESTART="${RESTART:-systemctl restart gateway@%s}"
RELOAD="${RELOAD:-nginx -t -q && nginx -s reload}"
HEALTH_HOST="${HEALTH_HOST:-127.0.0.1}"
READY_TIMEOUT="${READY_TIMEOUT:-120}"
SETTLE="${SETTLE:-1}"

[ "$#" -gt 0 ] || { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

say() { printf '%s rolling-restart: %s\n' "$(date +%H:%M:%S)" "$*"; }

# The server line of a port: `server <host>:<port> …;` (comments and other ports untouched).
line_of() { printf '^[[:space:]]*server[[:space:]]+[^[:space:];]+:%s[[:space:];]' "$1"; }

for port in "$@"; do
  grep -Eq "$(line_of "$port")" "$SERVERS_FILE" || { echo "rolling-restart: no server line for port $port in $SERVERS_FILE" >&2; exit 2; }
done

mark() {
  local port=$1 state=$2
  if [ "$state" = down ]; then
    sed -i -E "/$(line_of "$port")/{/[[:space:]]down[[:space:]]*;/! s/[[:space:]]*;[[:space:]]*$/ down;/}" "$SERVERS_FILE"
  else
    sed -i -E "/$(line_of "$port")/ s/[[:space:]]+down[[:space:]]*;[[:space:]]*$/;/" "$SERVERS_FILE"
  fi
  sh -c "$RELOAD"
  sleep "$SETTLE"
}

for port in "$@"; do
  say "$port: out of rotation"
  mark "$port" down
  say "$port: restarting"
  # shellcheck disable=SC2059 # RESTART is a format with %s for the port
  sh -c "$(printf "$RESTART" "$port")"
  deadline=$((SECONDS + READY_TIMEOUT))
  until curl -fs -o /dev/null --max-time 2 "http://$HEALTH_HOST:$port/health/ready"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "rolling-restart: the instance on $port is not ready after ${READY_TIMEOUT}s; it stays down in $SERVERS_FILE" >&2
      exit 1
    fi
    sleep 0.5
  done
  say "$port: ready, back in rotation"
  mark "$port" up
done
say "done: $*"
