#!/usr/bin/env bash
# sandbox.sh keeps the machine's configuration out of a test's reach: a
# test sourcing it changes update-alternatives and writes into /etc,
# /usr and /var, then is killed (SIGKILL) before it could clean up; the
# machine's alternatives and files are as they were.
#   sandbox_test.sh
set -u
if [ "$(id -u)" != 0 ] || ! command -v update-alternatives > /dev/null; then
  echo "SKIP: needs root and update-alternatives"
  exit 77
fi
fail=0
. "$(dirname "$0")/check.sh"
probe=fastrestore-sandbox-probe-$$
inner=$(mktemp)
trap 'rm -f "$inner"' EXIT
cat > "$inner" <<EOF
set -u
. "$(realpath "$(dirname "$0")")/sandbox.sh"
touch /etc/$probe /usr/$probe /var/$probe
update-alternatives --quiet --set iptables /usr/sbin/iptables-legacy
echo changed
kill -KILL \$\$
EOF
before=$(update-alternatives --query iptables; readlink /etc/alternatives/iptables)
out=$(bash "$inner" 2>&1)
check "the sandboxed test ran and changed things" grep -qx changed <<< "$out"
after=$(update-alternatives --query iptables; readlink /etc/alternatives/iptables)
check "killed, it left the machine's alternatives as they were" test "$before" = "$after"
check "and wrote nothing into /etc, /usr or /var" \
  test ! -e /etc/$probe -a ! -e /usr/$probe -a ! -e /var/$probe
[ $fail = 0 ] && echo "ok: sandbox"
exit $fail
