# Sourced by scripts/test. run_in_session SECONDS COMMAND...: runs COMMAND in a session of its own
# and ends it after SECONDS. Whether COMMAND passes, fails or overruns, every process still in that
# session (and so every descendant that did not start a session of its own) is killed and named on
# standard error. `timeout` alone was not enough: it kills its child's process group, and SwiftPM
# starts the test process in a group of its own, so a killed `swift test` left its test process
# running, with two aasad children, for 30 minutes.
# Returns COMMAND's status, or 137 when it overran. Nothing of it holds the caller's output open
# afterwards (a first version's watchdog `sleep` did, and a `| tee` waited for it).
run_in_session() {
  local seconds=$1; shift
  # timeout leads the session (setsid execs it in place: a background job is no group leader), so
  # the session's id is its pid; it ends COMMAND's own group when SECONDS pass (status 137).
  setsid timeout --signal=KILL "$seconds" "$@" &
  local sid=$!
  # Ctrl-C or a TERM to the script reaches the session too (it has left the terminal's group).
  trap 'pkill -KILL -s "$sid" 2>/dev/null; exit 130' INT TERM
  local status=0
  wait "$sid" || status=$?
  trap - INT TERM
  # What is left: processes of the session, not zombies waiting for a parent that is gone.
  local left; left=$(ps -e -o pid=,sid=,stat= | awk -v sid="$sid" '$2 == sid && $3 !~ /^Z/ { print $1 }')
  if [ -n "$left" ]; then
    echo "run_in_session: ended what $1 left running:" >&2
    # shellcheck disable=SC2086 # one pid a word
    ps -o pid=,args= -p $(echo $left | tr ' ' ',') | cut -c1-160 | sed 's/^/  /' >&2 || true
    pkill -KILL -s "$sid" || true
  fi
  return $status
}

# The check scripts/test runs first: a command that starts a grandchild in a process group of its
# own (as SwiftPM starts the test process) and overruns leaves nothing behind.
run_in_session_self_test() {
  local tag="3$RANDOM.$RANDOM"
  local status=0
  run_in_session 2 python3 -c "
import subprocess, time
subprocess.Popen(['sleep', '$tag'], process_group=0)
time.sleep(600)" 2>/dev/null || status=$?
  if [ "$status" != 137 ]; then echo "run_in_session: an overrun was not reported ($status)" >&2; return 1; fi
  if pgrep -f "sleep $tag" >/dev/null; then
    echo "run_in_session: the grandchild in its own process group was left running" >&2
    pkill -f "sleep $tag"
    return 1
  fi
  echo "run_in_session: an overrunning command and its grandchild in a group of its own were both ended"
}
