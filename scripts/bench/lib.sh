# Shared by the scripts in scripts/bench (sourced, not run): the build configuration, tools, a
# throw-away database on the private PostgreSQL of scripts/postgres, and an aasad with fixtures.
# AASA_BENCH_CONFIG=debug builds debug binaries: a smoke run of the harness (CI's quick mode),
# whose figures say nothing about speed.
[ -d /opt/swift/usr/bin ] && export PATH=/opt/swift/usr/bin:$PATH
bench_config=${AASA_BENCH_CONFIG:-release}

# build PRODUCT: builds it and prints the binary's path.
build() {
  swift build -c "$bench_config" --product "$1" >&2
  echo ".build/$bench_config/$1"
}

# need TOOL...: installs Debian's package of each missing tool.
need() {
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  for tool in "$@"; do
    command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] && continue
    $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$tool" >/dev/null
  done
}

# bench_server: the URL of the durable cluster (its own port), never the test suite's fsync-off
# one; refuses to go on if durability is off (a benchmark of writes must pay for fsync).
bench_server() {
  local server
  server=$(AASA_PG_FAST=0 AASA_PG_PORT=${AASA_BENCH_PG_PORT:-54329} scripts/postgres)
  if [ "$(psql -X -qtA "${server%/*}/postgres" -c 'SHOW fsync')" != on ] \
     || [ "$(psql -X -qtA "${server%/*}/postgres" -c 'SHOW synchronous_commit')" != on ]; then
    echo "the benchmark's PostgreSQL runs without durability (fsync or synchronous_commit off): restart it with scripts/postgres stop" >&2
    return 1
  fi
  echo "$server"
}

# bench_database NAME: creates a fresh database, exports DATABASE_URL; drop_database drops it.
bench_database() {
  local server
  server=$(bench_server)
  bench_db_admin="${server%/*}/postgres"
  bench_db=$1
  psql -X -q "$bench_db_admin" -c "DROP DATABASE IF EXISTS $bench_db WITH (FORCE)" -c "CREATE DATABASE $bench_db" >/dev/null
  export DATABASE_URL="${server%/*}/$bench_db"
}
drop_database() {
  [ -n "${bench_db:-}" ] && psql -X -q "$bench_db_admin" -c "DROP DATABASE IF EXISTS $bench_db WITH (FORCE)" >/dev/null 2>&1 || true
}

# start_aasad PORT WEBROOT: builds aasad ($aasad_bin, for a script's second server), migrates,
# makes an admin token ($admin), serves on PORT ($aasad_pid),
# and creates a team `bench` with a write token ($team_token), an app, the domain example.com
# (web root WEBROOT), a grant of / and three rules, published once.
start_aasad() {
  local port=$1 root=$2
  aasad_bin=$(build aasad)
  export AASA_MIGRATIONS_DIR=$PWD/migrations AASA_LISTEN=127.0.0.1:$port LOG_LEVEL=error
  "$aasad_bin" migrate >/dev/null
  admin=$("$aasad_bin" token create --admin --name bench)
  "$aasad_bin" serve & aasad_pid=$!
  aasad_url=http://127.0.0.1:$port
  for _ in $(seq 100); do curl -sf "$aasad_url/health/live" >/dev/null && break; sleep 0.1; done
  mkdir -p "$root"; chmod 755 "$root"
  api -d '{"name":"bench"}' /v1/teams
  api -d '{"appID":"ABCDE12345.com.example.bench"}' /v1/teams/bench/apps
  api -d "{\"host\":\"example.com\",\"webRoots\":[\"$root\"]}" /v1/domains
  api -X PUT -d '{"pathPrefixes":["/"]}' /v1/domains/example.com/grants/bench
  api -X PUT -d '{"rules":[{"/":"/shop/*"},{"/":"/help/*","?":{"lang":"??"}},{"/":"/news/*","exclude":true}]}' \
    /v1/domains/example.com/apps/ABCDE12345.com.example.bench/rules
  api -d '{"reason":"bench"}' /v1/domains/example.com/publish
  team_token=$(curl -sf -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
    -d '{"name":"bench","scopes":["write"]}' "$aasad_url/v1/teams/bench/tokens" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret"])')
}
api() { curl -sf -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' "${@:1:$#-1}" "$aasad_url${*: -1}" >/dev/null; }

# Reading wrk's output: requests/s, a latency percentile (50%, 99%), non-2xx count.
wrk_rps() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
wrk_pct() { awk -v p="$2" '$1 == p {print $2}' <<<"$1"; }
wrk_errors() { awk '/Non-2xx/ {print $5}' <<<"$1" | grep . || echo 0; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
peak_rss() { awk '/VmHWM/ {printf "%.1f MiB", $2/1024}' "/proc/$1/status"; }

# shared_domain_fixture WORK: the domain shared.example with 20 teams' apps (team0 … team19,
# ABCDE12345.com.teamN.app) of 10 rules each under /tN, 200 rules in all, and WORK/rules.lua: a
# wrk script whose every request PUTs team0's 10 rules anew (nothing reused between requests).
shared_domain_fixture() {
  local work=$1
  api -d '{"host":"shared.example"}' /v1/domains
  for t in $(seq 0 19); do
    app=ABCDE12345.com.team$t.app
    api -d "{\"name\":\"team$t\"}" /v1/teams
    api -d "{\"appID\":\"$app\"}" /v1/teams/team$t/apps
    api -X PUT -d "{\"pathPrefixes\":[\"/t$t\"]}" /v1/domains/shared.example/grants/team$t
    rules=$(python3 -c "import json; print(json.dumps({'rules': [{'/': f'/t$t/s{k}/*'} if k % 3 else {'/': f'/t$t/s{k}/*', '?': {'q': '?*'}} for k in range(10)]}))")
    api -X PUT -d "$rules" "/v1/domains/shared.example/apps/$app/rules"
  done
  cat > "$work/rules.lua" <<'LUA'
local token = os.getenv("BENCH_TOKEN")
local n = 0
request = function()
  n = n + 1
  local rules = {}
  for k = 0, 9 do rules[#rules + 1] = string.format('{"/":"/t0/s%d/v%d/*"}', k, n) end
  return wrk.format("PUT", "/v1/domains/shared.example/apps/ABCDE12345.com.team0.app/rules",
    {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json"}, '{"rules":[' .. table.concat(rules, ",") .. ']}')
end
LUA
}
