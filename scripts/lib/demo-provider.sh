# start_demo_provider DIR HOST PORT BASE_URL: a real OpenID provider (oidc-provider-mock from PyPI,
# Tests/Support/oidc-provider.py) over TLS at https://HOST:PORT, its certificate from a CA made in
# DIR (DIR/ca.pem), with the demo people below; a client registered for BASE_URL's console callback;
# and DIR/console-oidc.json, the file AASA_CONSOLE_OIDC_FILE names, with the client's secret in
# DIR/client-secret (never in the JSON). Sets demo_provider_pid. Used by `scripts/run
# --demo-provider` and scripts/console-test.
# shellcheck shell=bash
. scripts/lib/oidc-provider.sh

demo_people=(
  '{"sub": "alice", "email": "alice@example.com", "email_verified": true, "groups": ["shop-developers"]}'
  '{"sub": "ada", "email": "ada@example.com", "email_verified": true, "groups": ["aasa-admins"]}'
  '{"sub": "sam", "email": "sam@example.com", "email_verified": true, "groups": ["shop-developers", "blog-readers"]}'
  '{"sub": "bob", "email": "bob@example.com", "email_verified": true, "groups": ["visitors"]}'
)

start_demo_provider() {
  local dir=$1 host=$2 port=$3 base=$4
  ensure_oidc_provider
  mkdir -p "$dir"
  bash Tests/Support/make-test-ca.sh "$dir" "$host" >/dev/null 2>&1
  "$oidc_provider_python" Tests/Support/oidc-provider.py "$port" "$dir/server.pem" "$dir/server.key" 300 \
    "${demo_people[@]}" >"$dir/provider.log" 2>&1 &
  demo_provider_pid=$!
  for _ in $(seq 300); do
    grep -q '^ready' "$dir/provider.log" 2>/dev/null && break
    if ! kill -0 "$demo_provider_pid" 2>/dev/null; then
      echo "the demo OpenID provider did not start; its log:" >&2
      tail -n 20 "$dir/provider.log" >&2
      return 1
    fi
    sleep 0.1
  done
  local client
  client=$(curl -sf --cacert "$dir/ca.pem" --resolve "$host:$port:127.0.0.1" -X POST \
    -H 'Content-Type: application/json' \
    -d "{\"redirect_uris\": [\"$base/console/sign-in/oidc/demo/callback\"]}" "https://$host:$port/oauth2/clients")
  python3 - "$client" "$dir" "$host" "$port" "$base" <<'PY'
import json, os, sys
client, directory, host, port, base = json.loads(sys.argv[1]), *sys.argv[2:]
secret = os.path.join(directory, "client-secret")
with open(os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
    f.write(client["client_secret"])
with open(os.path.join(directory, "console-oidc.json"), "w") as f:
    json.dump({"baseURL": base, "providers": [{
        "name": "demo", "displayName": "the demo provider", "issuer": f"https://{host}:{port}",
        "clientID": client["client_id"], "clientSecretFile": secret,
        "scopes": ["openid", "email", "profile"], "groupsClaim": "groups"}]}, f, indent=2)
PY
}
