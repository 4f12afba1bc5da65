# Sourced by integration test scripts (after `set -u`, with the fastrestore
# binary as $1): `fr` is that binary, made absolute; the test is skipped
# (status 77, which ctest reports as skipped) unless it runs as root with
# network namespaces; `tmp` is a temporary directory removed at exit; and
# `check NAME COMMAND...` prints "ok: NAME" or "FAILED: NAME", setting
# fail=1 on failure.
fr=$(realpath "$1")
if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
  echo "SKIP: needs root and network namespaces"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
