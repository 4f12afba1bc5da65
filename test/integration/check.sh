# Sourced by integration test scripts: `check NAME COMMAND...` runs the
# command and prints "ok: NAME" or "FAILED: NAME", setting fail=1 on
# failure.
check() { # NAME COMMAND...
  local name=$1
  shift
  if "$@"; then echo "ok: $name"; else echo "FAILED: $name"; fail=1; fi
}
