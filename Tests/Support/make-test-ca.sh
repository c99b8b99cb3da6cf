#!/usr/bin/env bash
# A throwaway CA and a server certificate for the given host names, for the probe tests:
#   make-test-ca.sh DIR HOST...   → DIR/ca.pem (the root aasad is told to trust), DIR/server.pem, DIR/server.key
set -euo pipefail
dir=$1; shift
san=$(printf 'DNS:%s,' "$@"); san=${san%,}
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=aasa test CA" \
  -keyout "$dir/ca.key" -out "$dir/ca.pem" -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=$1" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$san" > "$dir/ext.cnf"
openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
  -extfile "$dir/ext.cnf" -out "$dir/server.pem" 2>/dev/null
