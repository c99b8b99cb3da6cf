# Sourced by the scripts that start a throwaway aasad (contract-test, check-monitoring,
# console-test).

# free_port: a TCP port nothing listens on now, chosen by the kernel. A random port from a fixed
# range could already be taken (CI once found none listening in ten seconds: exit 7 from curl,
# and no log to say why).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_ready URL PID LOG: waits up to a minute for URL/health/ready. If aasad exits or never gets
# ready, says which and prints the end of its log, and fails.
wait_ready() {
  local url=$1 pid=$2 log=$3
  for _ in $(seq 600); do
    curl -sf "$url/health/ready" >/dev/null && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "aasad exited before it was ready; its log:" >&2
      tail -n 40 "$log" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "aasad was not ready after a minute; its log:" >&2
  tail -n 40 "$log" >&2
  return 1
}
