#!/usr/bin/env bash
# What fastrestore tells an operator around a load, each case in a private
# network namespace: --stats=json prints one JSON object a COMMIT on
# standard error (table, lines, status, rules, bytes, each phase's time),
# also for the block that fails (status "failed", with the exit status and
# the error, also when the kernel refuses blocks held to go together), and
# "held" or "tested" for blocks sent later or not at all;
# diff --json prints the changes as one JSON object (chains, policies,
# rules with their chain and position; an error as JSON too), with diff's
# exit statuses; a load that takes over a second shows a progress line on
# a terminal (a pty of script(1)), cleared at the end, and nothing when
# standard error is not a terminal or with -v; --log sends one line a load
# to syslog, read from a /dev/log socket of the test's own, bound in a
# private mount namespace.
#   reporting_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
json() { # FILE PYTHON-EXPRESSION over the list `objs` of FILE's JSON lines
  python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$@"
}
printf '*filter\n:INPUT DROP [0:0]\n-A INPUT -i lo -j ACCEPT\n-A INPUT -p tcp --dport 22 -j ACCEPT\nCOMMIT\n*nat\n-A POSTROUTING -o eth0 -j MASQUERADE\nCOMMIT\n' > "$tmp/good.rules"
unshare -n "$fr" --stats=json "$tmp/good.rules" 2> "$tmp/stats"
check "--stats=json: an object a COMMIT, each a line" json "$tmp/stats" \
  'len(objs) == 2 and [o["table"] for o in objs] == ["filter", "nat"]'
check "--stats=json: rules, lines, bytes, status" json "$tmp/stats" \
  'objs[0]["rules"] == 2 and objs[0]["first_line"] == 1 and objs[0]["last_line"] == 5 and objs[0]["bytes"] > 0 and objs[0]["status"] == "sent"'
check "--stats=json: each phase's time" json "$tmp/stats" \
  'all(isinstance(objs[0][k], float) for k in ("read_ms", "extensions_ms", "batch_ms", "kernel_ms", "total_ms")) and objs[0]["kernel_ms"] > 0'
check "--stats=json: nothing else on standard error" \
  test "$(grep -vc '^{' "$tmp/stats")" = 0
printf '*filter\n-A INPUT -j ACCEPT\nCOMMIT\n*nat\n-A POSTROUTING -m nosuchmatch -j ACCEPT\nCOMMIT\n' > "$tmp/bad.rules"
unshare -n "$fr" --stats=json "$tmp/bad.rules" 2> "$tmp/stats"
st=$?
check "--stats=json, a failing block: the exit status stays ($st)" test $st = 2
check "--stats=json, a failing block: its object says failed, and why" json "$tmp/stats" \
  'objs[0]["status"] == "sent" and objs[1]["table"] == "nat" and objs[1]["status"] == "failed" and objs[1]["exit_status"] == 2 and "nosuchmatch" in objs[1]["error"]'
check "--stats=json, a failing block: the error message still follows" \
  grep -q "nosuchmatch" <(grep -v '^{' "$tmp/stats")
unshare -n "$fr" --stats=json --test "$tmp/good.rules" 2> "$tmp/stats"
check "--stats=json --test: tested" json "$tmp/stats" 'all(o["status"] == "tested" for o in objs)'
unshare -n "$fr" --stats=json --all-or-nothing "$tmp/good.rules" 2> "$tmp/stats"
check "--stats=json --all-or-nothing: held" json "$tmp/stats" 'all(o["status"] == "held" for o in objs)'
# The kernel refuses the held group: the block its error names fails.
printf '*filter\n-A INPUT -j ACCEPT\nCOMMIT\n*mangle\n-A INPUT -j MASQUERADE\nCOMMIT\n' > "$tmp/refused.rules"
unshare -n "$fr" --stats=json --all-or-nothing "$tmp/refused.rules" 2> "$tmp/stats"
st=$?
check "--stats=json --all-or-nothing, refused by the kernel: status 4 ($st)" test $st = 4
check "--stats=json --all-or-nothing, refused by the kernel: the block it names failed" json "$tmp/stats" \
  '[o["status"] for o in objs] == ["held", "held", "failed"] and objs[2]["table"] == "mangle" and objs[2]["first_line"] == 4 and objs[2]["exit_status"] == 4 and "nothing was changed" in objs[2]["error"]'
unshare -n "$fr" --stats=json --incremental "$tmp/good.rules" 2> "$tmp/stats"
check "--stats=json --incremental: how the block went" json "$tmp/stats" \
  'objs[0]["incremental"] in ("changes", "replacement", "nothing") and "added" in objs[0]'
out=$(unshare -n "$fr" --stats "$tmp/good.rules" 2>&1)
check "--stats (text) as before" grep -q '^fastrestore: stats: \*filter (lines 1-5): 2 rules;' <<< "$out"
out=$(unshare -n "$fr" --stats=yaml "$tmp/good.rules" 2>&1)
check "--stats=yaml: refused" grep -q "stats takes text or json" <<< "$out"

# diff --json: the changes, with diff's statuses.
unshare -n sh -c "'$fr' '$tmp/good.rules' &&
  printf '*filter\n:INPUT ACCEPT [0:0]\n:new - [0:0]\n-A INPUT -i lo -j ACCEPT\n-A INPUT -s 192.0.2.1/32 -j DROP\nCOMMIT\n' |
  '$fr' diff --json -; echo \"status \$?\"" > "$tmp/diff" 2>&1
check "diff --json: one object, status 1" \
  bash -c 'test "$(grep -c "^{" "$1")" = 1 && grep -qx "status 1" "$1"' _ "$tmp/diff"
check "diff --json: chains, policies, rules with chain and position" json "$tmp/diff" \
  'objs[0]["changed"] and [t["table"] for t in objs[0]["tables"]] == ["filter"] and objs[0]["tables"][0]["chains_added"] == ["new"] and objs[0]["tables"][0]["policies"] == [{"chain": "INPUT", "before": "DROP", "after": "ACCEPT"}] and objs[0]["tables"][0]["rules_added"] == [{"chain": "INPUT", "position": 2, "rule": "-A INPUT -s 192.0.2.1/32 -j DROP"}] and objs[0]["tables"][0]["rules_removed"] == [{"chain": "INPUT", "position": 2, "rule": "-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT"}]'
out=$(unshare -n sh -c "'$fr' '$tmp/good.rules' && '$fr' diff --json '$tmp/good.rules'; echo \"status \$?\"" 2>&1)
check "diff --json, no change: changed false, status 0" \
  bash -c 'grep -qx "{\"changed\":false,\"tables\":\[\]}" <<< "$1" && grep -qx "status 0" <<< "$1"' _ "$out"
unshare -n sh -c "'$fr' diff --json '$tmp/bad.rules'; echo \"status \$?\"" > "$tmp/diff" 2>/dev/null
check "diff --json, bad input: an error object, status 2" json "$tmp/diff" \
  'objs[0]["changed"] is False and objs[0]["exit_status"] == 2 and "error" in objs[0]'
check "diff --json, bad input: status 2" grep -qx "status 2" "$tmp/diff"

# The progress line: input that arrives over more than a second, on a
# terminal (script's pty), not on a pipe, not with -v.
echo '*filter' > "$tmp/head.rules"
for i in $(seq 1 10000); do echo "-A INPUT -s 10.$((i / 250)).$((i % 250)).1/32 -j DROP"; done |
  split -l 5000 - "$tmp/part."
cat "$tmp/part.aa" >> "$tmp/head.rules"
cat "$tmp/part.ab" > "$tmp/more.rules"
echo COMMIT >> "$tmp/more.rules"
slow() { # OPTIONS: the load, its input arriving over 1.5 s, on a terminal
  unshare -n script -qec "{ cat '$tmp/head.rules'; sleep 1.5; cat '$tmp/more.rules'; } | '$fr' $1" /dev/null
}
out=$(slow "" | tr '\r' '\n')
check "progress: shown on a terminal for a slow load" \
  grep -q '^fastrestore: [0-9]* lines read, [0-9]* rules, [0-9]* rules/s' <<< "$out"
check "progress: cleared at the end" grep -q $'\e\[K$' <<< "$(slow "")"
slow "-v" > "$tmp/verbose"
check "progress: none with -v" bash -c '! grep -q "lines read" "$1"' _ "$tmp/verbose"
out=$(unshare -n sh -c "{ cat '$tmp/head.rules'; sleep 1.5; cat '$tmp/more.rules'; } | '$fr'" 2>&1)
check "progress: none when standard error is no terminal" test -z "$out"

# --log: one line a load to syslog (/dev/log: a socket of the test's).
cat > "$tmp/syslog.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(10)
with open(sys.argv[2], "w") as out:
    for _ in range(int(sys.argv[3])):
        try:
            out.write(s.recv(4096).decode(errors="replace") + "\n")
        except socket.timeout:
            break
        out.flush()
PY
mkdir -p "$tmp/dev"
unshare -m -n --propagation private bash -c "
  for n in null zero full random urandom tty; do touch '$tmp/dev/'\$n && mount --bind /dev/\$n '$tmp/dev/'\$n; done
  ln -s /proc/self/fd '$tmp/dev/fd'
  python3 '$tmp/syslog.py' '$tmp/dev/log' '$tmp/syslog' 2 & reader=\$!
  while [ ! -S '$tmp/dev/log' ]; do sleep 0.05; done
  mount --bind '$tmp/dev' /dev
  '$fr' --log '$tmp/good.rules'
  '$fr' --log '$tmp/bad.rules' 2>/dev/null
  wait \$reader"
check "--log: a line a load" test "$(grep -c 'fastrestore\[' "$tmp/syslog")" = 2
check "--log: who, which file, which tables, done" \
  grep -q "fastrestore\[[0-9]*\]: uid 0 (root) loaded $tmp/good.rules (IPv4, nf_tables): tables filter, nat, 3 rules: done" "$tmp/syslog"
check "--log: a failed load says why" \
  grep -q "loaded $tmp/bad.rules (IPv4, nf_tables): tables filter, nat, 2 rules: failed with status 2: line 5: .*nosuchmatch" "$tmp/syslog"
[ $fail = 0 ] && echo "ok: reporting"
exit $fail
