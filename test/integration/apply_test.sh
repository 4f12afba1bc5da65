#!/usr/bin/env bash
# fastrestore apply: the tables a file names are loaded, and put back as
# they were (counters too) unless the change is confirmed in time. Without
# a terminal it returns at once and `apply --confirm` confirms from
# another process; on a terminal (a pty of script(1)) it asks: "yes"
# keeps, another answer rolls back at once, no answer rolls back at the
# deadline. The rollback runs detached: SIGKILL of the apply's whole
# process group does not stop it. A table changed by another program
# since the load is left as it is (status 4). A file that fails to load
# changes nothing and leaves nothing waiting. IPv4, IPv6 and the bridge on
# nf_tables (one transaction), IPv4 on legacy (a replacement per table).
# Each case in its own network namespace.
#   apply_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
export FASTRESTORE_APPLY_DIR=$tmp/apply
before='-A INPUT -s 192.0.2.9/32 -j ACCEPT'
printf '*filter\n:INPUT DROP [0:0]\n-A INPUT -i lo -j ACCEPT\nCOMMIT\n*raw\n-A PREROUTING -j ACCEPT\nCOMMIT\n' > "$tmp/new.rules"
# In a fresh namespace holding $before (with counters 5 packets, 300
# bytes), runs $1, then prints "status N" and the IPv4 tables (-c).
ns() {
  unshare -n bash -c "printf '*filter\n[5:300] $before\nCOMMIT\n' | '$fr' -c || exit 9
    $1
    echo \"status \$?\"; iptables-nft-save -c | grep -v '^#'" 2>&1
}
lacks() { ! grep -qx -- "$1"; }
# Inside a namespace's commands: waits (up to 60 s) until the watcher of
# every change is done (no pending directory left, only results); the
# deadlines are short, the sanitizers' builds slow.
settle="sleep 1; for i in \$(seq 600); do [ -z \"\$(find '$tmp/apply' -mindepth 1 -type d 2>/dev/null)\" ] && break; sleep 0.1; done"

out=$(ns "'$fr' apply --confirm 1 '$tmp/new.rules' </dev/null; echo \"apply \$?\"; iptables-nft-save; $settle")
check "no terminal: it returns at once, status 0" grep -qx "apply 0" <<< "$out"
check "no terminal: it says how to confirm" grep -q "fastrestore apply --confirm" <<< "$out"
check "no terminal: loaded meanwhile" grep -qx -- "-A INPUT -i lo -j ACCEPT" <<< "$out"
check "not confirmed: the rule before is back, with its counters" \
  grep -qx -- "\[5:300\] $before" <<< "$out"
check "not confirmed: INPUT's policy is back" grep -q "^:INPUT ACCEPT" <<< "$out"
check "not confirmed: the table the file made is emptied" \
  lacks "[0:0] -A PREROUTING -j ACCEPT" <<< "$out"
check "not confirmed: nothing waits any more" \
  test -z "$(ls "$tmp/apply" 2>/dev/null | grep -v result)"

out=$(ns "'$fr' apply --confirm 3 '$tmp/new.rules' </dev/null >/dev/null 2>&1
  '$fr' apply --confirm; echo \"confirm \$?\"; sleep 4")
check "apply --confirm from another process: status 0" grep -qx "confirm 0" <<< "$out"
check "apply --confirm: it says what stays" grep -q "confirmed: .*new.rules stays (IPv4)" <<< "$out"
check "confirmed: the new rules stay past the deadline" \
  bash -c 'grep -q -- "-A INPUT -i lo -j ACCEPT" <<< "$1" && ! grep -q "192.0.2.9" <<< "$1"' _ "$out"
out=$(ns "'$fr' apply --confirm")
check "apply --confirm with nothing waiting: status 1" grep -qx "status 1" <<< "$out"

# SIGKILL of the apply's whole process group (the SSH session dying),
# while apply waits at its prompt on a terminal: the terminal goes, apply
# with it, and the rollback happens all the same.
cat > "$tmp/session.sh" <<SESSION
echo \$\$ > "$tmp/pgid"
sleep 30 | script -qec "sh -c 'echo \\\$\\\$ > $tmp/apid; exec $fr apply --confirm 2 $tmp/new.rules'" /dev/null
SESSION
out=$(ns "setsid bash '$tmp/session.sh' >/dev/null 2>&1 &
  sleep 1; kill -0 \$(cat '$tmp/apid') && echo waiting
  kill -KILL -\$(cat '$tmp/pgid'); sleep 0.5
  ps -o stat= -p \$(cat '$tmp/apid') | grep -qv Z || echo gone
  $settle")
check "SIGKILL of the process group: apply was waiting, and is gone" \
  bash -c 'grep -qx waiting <<< "$1" && grep -qx gone <<< "$1"' _ "$out"
check "SIGKILL of the process group: rolled back all the same" \
  grep -qx -- "\[5:300\] $before" <<< "$out"

# On a terminal: yes keeps, another answer rolls back at once, silence
# rolls back at the deadline.
tty_apply() { # ANSWER-COMMAND SECONDS: apply on a pty, its answer typed
  ns "{ $1; } | script -qec \"'$fr' apply --confirm $2 '$tmp/new.rules'\" /dev/null | tr '\r' '\n' | grep '^fastrestore apply: ' | tail -n 1"
}
out=$(tty_apply "sleep 1; echo yes; sleep 1" 20)
check "terminal, yes: kept, status 0" \
  bash -c 'grep -q "confirmed: .* stays" <<< "$1" && grep -q -- "-A INPUT -i lo -j ACCEPT" <<< "$1"' _ "$out"
start=$(date +%s)
out=$(tty_apply "sleep 1; echo no; sleep 1" 20)
check "terminal, no: rolled back at once" \
  bash -c 'grep -q "rolled back" <<< "$1" && grep -qx -- "\[5:300\] $2" <<< "$1" && [ $(( $(date +%s) - $3 )) -lt 15 ]' _ "$out" "$before" "$start"
out=$(tty_apply "sleep 4" 2)
check "terminal, no answer: rolled back at the deadline" \
  bash -c 'grep -q "not confirmed: rolled back" <<< "$1" && grep -qx -- "\[5:300\] $2" <<< "$1"' _ "$out" "$before"

# Changed by another program since the load: left, status 4.
out=$(ns "'$fr' apply --confirm 2 '$tmp/new.rules' </dev/null >/dev/null 2>&1
  iptables-nft -A INPUT -s 198.51.100.1 -j DROP; $settle; cat $tmp/apply/*.result")
check "changed since the load: left as it is" \
  grep -qx -- "\[0:0\] -A INPUT -s 198.51.100.1/32 -j DROP" <<< "$out"
check "changed since the load: it says why (status 4)" \
  bash -c 'grep -qx 4 <<< "$1" && grep -q "changed since by another program" <<< "$1"' _ "$out"
rm -f "$tmp/apply"/*.result

# A file that does not load: nothing applied, nothing waiting.
printf '*filter\n-A INPUT -j ACCEPT\nCOMMIT\n*nat\n-A POSTROUTING -m nosuchmatch -j ACCEPT\nCOMMIT\n' > "$tmp/bad.rules"
out=$(ns "'$fr' apply --confirm 2 '$tmp/bad.rules' </dev/null")
check "a bad file: the restore's status (2)" grep -qx "status 2" <<< "$out"
check "a bad file: nothing of it applied" grep -qx -- "\[5:300\] $before" <<< "$out"
check "a bad file: nothing waits" test -z "$(ls "$tmp/apply" 2>/dev/null)"
out=$(ns "'$fr' apply --confirm soon '$tmp/new.rules'")
check "--confirm soon: refused, status 2" grep -qx "status 2" <<< "$out"

# IPv6 and the bridge, on nf_tables; IPv4 on legacy.
printf '*filter\n:FORWARD DROP [0:0]\nCOMMIT\n' > "$tmp/new6.rules"
out=$(unshare -n bash -c "ip6tables-nft -A INPUT -j ACCEPT
  '$fr' apply -6 --confirm 1 '$tmp/new6.rules' </dev/null >/dev/null 2>&1
  ip6tables-nft-save | grep -c '^:FORWARD DROP'; $settle; ip6tables-nft-save")
check "IPv6: loaded, then rolled back" \
  bash -c '[ "$(head -n1 <<< "$1")" = 1 ] && grep -qx -- "-A INPUT -j ACCEPT" <<< "$1" && grep -q "^:FORWARD ACCEPT" <<< "$1"' _ "$out"
printf '*filter\n:FORWARD DROP\n-A FORWARD -p ARP -j ACCEPT\nCOMMIT\n' > "$tmp/new.ebrules"
out=$(unshare -n bash -c "ebtables-nft -A FORWARD -p IPv4 -j DROP
  '$fr' apply --bridge --confirm 1 '$tmp/new.ebrules' </dev/null >/dev/null 2>&1
  ebtables-nft-save | grep -c 'ARP'; $settle; ebtables-nft-save")
check "bridge: loaded, then rolled back" \
  bash -c '[ "$(head -n1 <<< "$1")" = 1 ] && grep -qx -- "-A FORWARD -p IPv4 -j DROP" <<< "$1" && grep -q "^:FORWARD ACCEPT" <<< "$1"' _ "$out"
out=$(unshare -n bash -c "iptables-legacy -A INPUT -s 192.0.2.9 -j ACCEPT
  '$fr' apply --legacy --confirm 1 '$tmp/new.rules' </dev/null 2>&1
  iptables-legacy-save | grep -c 'lo -j ACCEPT'; $settle; iptables-legacy-save")
check "legacy: it says a replacement per table" grep -q "legacy: one table replacement each" <<< "$out"
check "legacy: loaded, then rolled back" \
  bash -c 'grep -qx 1 <<< "$1" && grep -qx -- "$2" <<< "$1" && grep -q "^:INPUT ACCEPT" <<< "$1"' _ "$out" "$before"
[ $fail = 0 ] && echo "ok: apply"
exit $fail
