#!/usr/bin/env bash
# fastrestore-boot start, on one backend (nft or legacy, chosen as the
# admin does: by where /usr/sbin/iptables points): the snapshot loads when
# it was saved from the text rules as they are now, else the text (the
# source of truth, also when it is older by its time: cp -p, a backup);
# when the first source is truncated, corrupt, of the wrong family or of
# the other backend, or the text is broken, the other source loads, the
# exit status says the boot degraded and a printed line says why; when
# both fail, the tables stay as they were (ON_FAILURE=keep) or the
# fail-closed ruleset loads (ON_FAILURE=drop-input). save keeps every
# ipset beside the rules, and boot makes them before any rule: an
# --optimize'd table boots from its snapshot and from its text alike;
# a family with no tables is not saved over text rules. netfilter-
# persistent's settings (from its defaults file or fastrestore's):
# RESTORE_NOFLUSH adds the text, TEST_RULESET keeps failing text out, save
# writes the text files (0640) and SKIP_SAVE keeps a family's files; flush
# empties both families, then the sets; stop flushes only with
# FLUSH_ON_STOP above 0. The bridge tables are saved (rules.bridge and
# its snapshot), booted and flushed alike, on nf_tables whatever the
# backend. status says what is loaded, what the last start loaded and
# whether the tables changed since, and what a start would load and why
# (broken sources found by a test load); reload loads the saved rules
# again. Each case runs in a private network namespace, with the script's
# paths in a temporary directory.
#   boot_test.sh FASTRESTORE SOURCE_DIR nft|legacy
set -u
src=$(realpath "$2")
backend=$3
. "$(dirname "$0")/common.sh"
boot=$src/packaging/fastrestore-boot
export FASTRESTORE=$fr FASTRESTORE_RULES_DIR=$tmp/etc \
  FASTRESTORE_SNAPSHOT_DIR=$tmp/snap FASTRESTORE_DEFAULTS=$tmp/defaults \
  FASTRESTORE_NP_DEFAULTS=$tmp/np-defaults FASTRESTORE_IPTABLES=$tmp/iptables \
  FASTRESTORE_RUN_DIR=$tmp/run
ln -s "/usr/sbin/iptables-$backend" "$tmp/iptables"
save=iptables-nft-save save6=ip6tables-nft-save legacy=
if [ "$backend" = legacy ]; then
  save=iptables-legacy-save save6=ip6tables-legacy-save legacy=--legacy
fi
mkdir -p "$tmp/etc" "$tmp/snap" "$tmp/good"
lacks() { ! grep -qx -- "$1"; } # LINE: standard input lacks it
text_rule='-A INPUT -s 192.0.2.1/32 -j ACCEPT'
text6_rule='-A INPUT -s 2001:db8::1/128 -j ACCEPT'
snap_rule='-A INPUT -s 198.51.100.7/32 -j DROP'
before_rule='-A INPUT -s 203.0.113.9/32 -j DROP'
printf '*filter\n:INPUT ACCEPT [0:0]\n%s\nCOMMIT\n' "$text_rule" > "$tmp/good/rules.v4"
printf '*filter\n:INPUT ACCEPT [0:0]\n%s\nCOMMIT\n' "$text6_rule" > "$tmp/good/rules.v6"
# Good snapshots of both families, saved from the backend under test.
unshare -n sh -c "printf '*filter\n%s\nCOMMIT\n' '$snap_rule' | '$fr' $legacy &&
  '$fr' save $legacy -4 --binary '$tmp/good/rules.v4.snap' &&
  '$fr' save $legacy -6 --binary '$tmp/good/rules.v6.snap'" > /dev/null 2>&1
check "setup: snapshots saved" test -s "$tmp/good/rules.v4.snap" -a -s "$tmp/good/rules.v6.snap"

# A fresh state: good text and snapshot files, the snapshots saved from
# the text as it is, unless $1 is "text-newer" (the text was edited after
# the save).
reset() {
  rm -f "$tmp/etc"/* "$tmp/snap"/* "$tmp/defaults" "$tmp/np-defaults"
  cp "$tmp/good/rules.v4" "$tmp/good/rules.v6" "$tmp/etc/"
  cp "$tmp/good/rules.v4.snap" "$tmp/good/rules.v6.snap" "$tmp/snap/"
  for v in 4 6; do
    if [ "${1:-}" = text-newer ]; then
      echo "sha256 $(echo edited since | sha256sum | cut -d' ' -f1)"
    else
      echo "sha256 $(sha256sum < "$tmp/etc/rules.v$v" | cut -d' ' -f1)"
    fi > "$tmp/snap/rules.v$v.snap.source"
  done
}
# Runs the boot script in a namespace whose IPv4 filter table holds
# $before_rule; prints its output, "status N" and the IPv4 rules after.
boot() {
  unshare -n sh -c "printf '*filter\n%s\nCOMMIT\n' '$before_rule' | '$fr' $legacy &&
    '$boot' start 2>&1; echo \"status \$?\"; $save | grep -e '^-A' -e '^:INPUT'"
}

reset text-newer
out=$(boot)
check "text newer: it loads" grep -qx -- "$text_rule" <<< "$out"
check "text newer: status 0" grep -qx "status 0" <<< "$out"
check "text newer: names the source and the backend" \
  grep -q "IPv4: loading $tmp/etc/rules.v4 into $backend" <<< "$out"

check "text newer: says the snapshot was not saved from it" \
  grep -q "IPv4: $tmp/snap/rules.v4.snap was not saved from $tmp/etc/rules.v4 as it is now" <<< "$out"

reset
out=$(boot)
check "snapshot saved from the text: it loads" grep -qx -- "$snap_rule" <<< "$out"
check "snapshot saved from the text: status 0" grep -qx "status 0" <<< "$out"
check "snapshot saved from the text: the earlier rules are gone" \
  lacks "$before_rule" <<< "$out"

# Other text copied in with an older time than the snapshot's (cp -p,
# rsync -t, a backup): the text loads all the same.
reset
printf '*filter\n:INPUT ACCEPT [0:0]\n%s\n-A INPUT -s 192.0.2.2/32 -j ACCEPT\nCOMMIT\n' \
  "$text_rule" > "$tmp/etc/rules.v4"
touch -d '1 day ago' "$tmp/etc/rules.v4"
out=$(boot)
check "older text copied in: it loads" grep -qx -- '-A INPUT -s 192.0.2.2/32 -j ACCEPT' <<< "$out"
check "older text copied in: nothing of the snapshot" lacks "$snap_rule" <<< "$out"
check "older text copied in: says why" \
  grep -q "the text is the source of truth" <<< "$out"
check "older text copied in: status 0" grep -qx "status 0" <<< "$out"

# A snapshot with no record of its text (saved by hand): the text loads.
reset
rm "$tmp/snap/rules.v4.snap.source"
out=$(boot)
check "snapshot without its text's digest: the text loads" \
  grep -qx -- "$text_rule" <<< "$out"

# Each damaged snapshot, newer than good text rules: the text loads.
damage() { # KIND FILE
  case $1 in
    truncated) head -c 40 "$2" > "$2.t" && mv "$2.t" "$2" ;;
    corrupt) # one byte of the last rule flipped: its checksum fails
      size=$(stat -c %s "$2")
      printf '\377' | dd of="$2" bs=1 seek=$((size - 9)) conv=notrunc 2>/dev/null ;;
    wrong-family) cp "$tmp/good/rules.v6.snap" "$2" ;;
  esac
  touch "$2"
}
for kind in truncated corrupt wrong-family; do
  reset
  damage $kind "$tmp/snap/rules.v4.snap"
  out=$(boot)
  check "$kind snapshot: the text rules load instead" grep -qx -- "$text_rule" <<< "$out"
  check "$kind snapshot: nothing of the snapshot was applied" \
    lacks "$snap_rule" <<< "$out"
  check "$kind snapshot: says why" \
    grep -q "IPv4: $tmp/snap/rules.v4.snap failed to load.*loading $tmp/etc/rules.v4 instead" <<< "$out"
  check "$kind snapshot: says the boot degraded" \
    grep -q "IPv4: loaded $tmp/etc/rules.v4 (degraded" <<< "$out"
  check "$kind snapshot: status 3" grep -qx "status 3" <<< "$out"
done

# A snapshot of the other backend is refused, and the text loads.
reset
other=--legacy
[ "$backend" = legacy ] && other=
unshare -n sh -c "printf '*filter\n%s\nCOMMIT\n' '$snap_rule' | '$fr' $other &&
  '$fr' save $other -4 --binary '$tmp/snap/rules.v4.snap'" > /dev/null 2>&1
out=$(boot)
check "other backend's snapshot: the text rules load instead" \
  grep -qx -- "$text_rule" <<< "$out"
check "other backend's snapshot: says why" \
  grep -q "snapshot is of" <<< "$out"

# Broken text rules (their second table fails in the kernel's or the
# parser's hands), edited since a good snapshot: the snapshot loads, and
# nothing of the text's first table stays.
reset text-newer
printf '*filter\n:INPUT ACCEPT [0:0]\n%s\nCOMMIT\n*nat\n-A PREROUTING -m nosuchmatch -j ACCEPT\nCOMMIT\n' \
  "$text_rule" > "$tmp/etc/rules.v4"
out=$(boot)
check "broken text: the snapshot loads instead" grep -qx -- "$snap_rule" <<< "$out"
check "broken text: nothing of it stays" \
  lacks "$text_rule" <<< "$out"
check "broken text: names the line" grep -q "rules.v4: line 6" <<< "$out"
check "broken text: says why" \
  grep -q "IPv4: $tmp/etc/rules.v4 failed to load.*loading $tmp/snap/rules.v4.snap instead" <<< "$out"
check "broken text: status 3" grep -qx "status 3" <<< "$out"

# Both sources broken: the tables are left as they were, or (when the
# admin chose it) the fail-closed ruleset loads.
reset text-newer
printf '*filter\n-A INPUT -m nosuchmatch -j ACCEPT\nCOMMIT\n' > "$tmp/etc/rules.v4"
damage truncated "$tmp/snap/rules.v4.snap"
touch -d '1 minute ago' "$tmp/snap/rules.v4.snap"
out=$(boot)
check "both broken: the earlier rules stay" grep -qx -- "$before_rule" <<< "$out"
check "both broken: says so" grep -q "IPv4: ON_FAILURE=keep: the tables are left as they are" <<< "$out"
check "both broken: status 4" grep -qx "status 4" <<< "$out"
check "both broken: IPv6 loaded all the same" \
  grep -q "IPv6: loaded $tmp/etc/rules.v6" <<< "$out"
echo ON_FAILURE=drop-input > "$tmp/defaults"
out=$(boot)
check "both broken, drop-input: input is dropped" grep -q "^:INPUT DROP" <<< "$out"
check "both broken, drop-input: but loopback" grep -qx -- "-A INPUT -i lo -j ACCEPT" <<< "$out"
check "both broken, drop-input: says so" \
  grep -q "IPv4: ON_FAILURE=drop-input: loaded the fail-closed ruleset" <<< "$out"
check "both broken, drop-input: status 4" grep -qx "status 4" <<< "$out"

# The IPv6 rules go to their own family, on the same backend.
reset text-newer
out=$(unshare -n sh -c "'$boot' start >/dev/null 2>&1; $save6")
check "IPv6: the text rules load into $backend" grep -qx -- "$text6_rule" <<< "$out"

# BACKEND= in the defaults file overrides the alternatives.
reset text-newer
[ "$backend" = legacy ] && forced=nft || forced=legacy
echo "BACKEND=$forced" > "$tmp/defaults"
out=$(unshare -n sh -c "'$boot' start 2>&1; iptables-$forced-save")
check "BACKEND=$forced: loads into $forced" grep -qx -- "$text_rule" <<< "$out"

# save writes snapshots of the chosen backend.
rm -f "$tmp/defaults" "$tmp/snap"/*
unshare -n sh -c "'$fr' $legacy < '$tmp/good/rules.v4' && '$boot' save" > /dev/null 2>&1
out=$("$fr" commit -t "$tmp/snap/rules.v4.snap" 2>&1)
[ "$backend" = legacy ] && want="legacy" || want="nf_tables"
check "save: a snapshot of $backend" grep -q "$want" <<< "$out"
check "save: the digest of the text beside it" \
  grep -qx "sha256 $(sha256sum < "$tmp/etc/rules.v4" | cut -d' ' -f1)" \
  "$tmp/snap/rules.v4.snap.source"

# save with no IPv6 tables loaded while rules.v6 holds rules: IPv6 is not
# saved (no empty snapshot to shadow the text), IPv4 is, status 1.
rm -f "$tmp/snap"/*
cp "$tmp/good/rules.v6" "$tmp/etc/rules.v6"
out=$(unshare -n sh -c "'$fr' $legacy < '$tmp/good/rules.v4' && '$boot' save; echo status \$?" 2>&1)
check "save, no IPv6 tables: refused with a message" \
  grep -q "IPv6: no tables are loaded, but $tmp/etc/rules.v6 holds rules" <<< "$out"
check "save, no IPv6 tables: status 1" grep -qx "status 1" <<< "$out"
check "save, no IPv6 tables: no IPv6 snapshot" test ! -e "$tmp/snap/rules.v6.snap"
check "save, no IPv6 tables: the IPv4 snapshot" test -s "$tmp/snap/rules.v4.snap"

# An --optimize'd blocklist (its runs held in fastrestore's ipsets), saved
# as an admin saves: iptables-save into rules.v4, then fastrestore-boot
# save. A fresh namespace boots it from the snapshot, another from the
# text and the saved sets without it: the same rules and sets both times.
if [ "$backend" = nft ]; then
  rm -f "$tmp/etc"/* "$tmp/snap"/*
  awk 'BEGIN { print "*filter"; print ":INPUT ACCEPT [0:0]"
    for (i = 1; i <= 40; i++) printf "-A INPUT -s 198.18.%d.%d/32 -j DROP\n", i % 4, i
    print "-A INPUT -s 203.0.113.1/32 -j ACCEPT"; print "COMMIT" }' >"$tmp/blocklist"
  state() { iptables-nft-save | grep -v '^#'; ipset save | sort; }
  unshare -n sh -c "'$fr' --optimize '$tmp/blocklist' || exit 1
    iptables-nft-save > '$tmp/etc/rules.v4' && '$boot' save >/dev/null 2>&1 || exit 1
    $(declare -f state); state" > "$tmp/saved" 2>&1
  check "optimize: the table holds sets" grep -q -- '-m set --match-set fastrestore-' "$tmp/saved"
  check "optimize: save kept the sets" grep -q '^create fastrestore-' "$tmp/etc/ipsets"
  boots_as_saved() {
    unshare -n sh -c "'$boot' start >/dev/null 2>&1 || exit 1
      $(declare -f state); state" > "$tmp/booted" && diff "$tmp/saved" "$tmp/booted"
  }
  check "optimize: a fresh namespace boots from the snapshot" boots_as_saved
  rm -f "$tmp/snap"/*
  check "optimize: and from the text and the saved sets" boots_as_saved
fi
# netfilter-persistent's settings, from its own defaults file or from
# fastrestore's. IPTABLES_RESTORE_NOFLUSH=yes: the text is added to what
# the tables hold; the snapshot (a replacement) is not loaded.
reset
echo IPTABLES_RESTORE_NOFLUSH=yes > "$tmp/np-defaults"
out=$(boot)
check "RESTORE_NOFLUSH: the text rules are added" grep -qx -- "$text_rule" <<< "$out"
check "RESTORE_NOFLUSH: the rules before stay" grep -qx -- "$before_rule" <<< "$out"
check "RESTORE_NOFLUSH: nothing of the snapshot" lacks "$snap_rule" <<< "$out"
check "RESTORE_NOFLUSH: status 0" grep -qx "status 0" <<< "$out"
# IPTABLES_TEST_RULESET=yes: text that fails its test load is not loaded;
# the snapshot (older) loads instead, or with none the tables stay.
reset text-newer
printf '*filter\n-A INPUT -m nosuchmatch -j ACCEPT\nCOMMIT\n' > "$tmp/etc/rules.v4"
echo IPTABLES_TEST_RULESET=yes > "$tmp/defaults"
out=$(boot)
check "TEST_RULESET: the failed text is not loaded, the snapshot is" \
  grep -qx -- "$snap_rule" <<< "$out"
check "TEST_RULESET: says why" \
  grep -q "IPv4: $tmp/etc/rules.v4 failed its test load (IPTABLES_TEST_RULESET=yes): not loaded" <<< "$out"
rm "$tmp/snap/rules.v4.snap"
out=$(boot)
check "TEST_RULESET, no snapshot: the rules before stay" grep -qx -- "$before_rule" <<< "$out"
check "TEST_RULESET, no snapshot: status 4" grep -qx "status 4" <<< "$out"
# save: the text as iptables-save prints it (mode 0640), the sets; the
# *_SKIP_SAVE settings leave a family's files (or the sets) alone.
reset
rm -f "$tmp/etc"/* "$tmp/snap"/*
out=$(unshare -n sh -c "'$fr' $legacy < '$tmp/good/rules.v4' &&
  '$boot' save >/dev/null 2>&1 && $save | grep -v '^#'")
check "save: rules.v4 is the tables as iptables-save prints them" \
  test "$(grep -v '^#' "$tmp/etc/rules.v4")" = "$out"
check "save: rules.v4 has mode 0640" test "$(stat -c %a "$tmp/etc/rules.v4")" = 640
check "save: rules.v6 too" test -f "$tmp/etc/rules.v6"
rm -f "$tmp/etc"/* "$tmp/snap"/*
printf 'IPTABLES_SKIP_SAVE=yes\nIPSET_SKIP_SAVE=yes\n' > "$tmp/defaults"
echo 'create kept hash:ip' > "$tmp/etc/ipsets"
out=$(unshare -n sh -c "'$fr' $legacy < '$tmp/good/rules.v4' && '$boot' save" 2>&1)
check "SKIP_SAVE: IPv4's files are not written" \
  test ! -e "$tmp/etc/rules.v4" -a ! -e "$tmp/snap/rules.v4.snap"
check "SKIP_SAVE: IPv6's are" test -f "$tmp/etc/rules.v6" -a -f "$tmp/snap/rules.v6.snap"
check "SKIP_SAVE: the sets are left as they were" \
  test "$(cat "$tmp/etc/ipsets")" = 'create kept hash:ip'
check "SKIP_SAVE: says so" grep -q "IPv4: IPTABLES_SKIP_SAVE=yes" <<< "$out"
# flush: every built-in chain accepts, no rule and no user chain is left
# (IPv4 and IPv6), then the sets are destroyed; stop does it only with
# FLUSH_ON_STOP above 0.
rm -f "$tmp/defaults" "$tmp/etc"/*
flushed() { # COMMAND: after it, the tables and sets of a loaded namespace
  unshare -n sh -c "ipset create blocked hash:ip &&
    printf '*filter\n:INPUT DROP [0:0]\n:f2b - [0:0]\n-A INPUT -m set --match-set blocked src -j f2b\n-A f2b -j DROP\nCOMMIT\n*nat\n-A OUTPUT -j RETURN\nCOMMIT\n' | '$fr' $legacy &&
    printf '*filter\n:FORWARD DROP [0:0]\n-A INPUT -j ACCEPT\nCOMMIT\n' | '$fr' $legacy -6 &&
    $1 >/dev/null 2>&1; echo status \$?; $save | grep -v '^#'; $save6 | grep -v '^#'; ipset list -n"
}
out=$(flushed "'$boot' flush")
check "flush: status 0" grep -qx "status 0" <<< "$out"
check "flush: no rules, no user chains, no sets" \
  bash -c '! grep -q -e "^-A" -e "^:f2b" -e "^blocked" <<< "$1"' _ "$out"
check "flush: every built-in chain accepts" \
  bash -c 'grep -q "^:INPUT ACCEPT" <<< "$1" && ! grep "^:" <<< "$1" | grep -qv " ACCEPT "' _ "$out"
out=$(flushed "'$boot' stop")
check "stop, FLUSH_ON_STOP=0: the tables stay" grep -qx -- "-A f2b -j DROP" <<< "$out"
echo FLUSH_ON_STOP=1 > "$tmp/defaults"
out=$(flushed "'$boot' stop")
check "stop, FLUSH_ON_STOP=1: flushed" lacks "-A f2b -j DROP" <<< "$out"
rm -f "$tmp/defaults"

# The bridge tables (ebtables): save writes rules.bridge as ebtables-save
# prints it, and its snapshot; with no bridge tables, no rules.bridge.
rm -f "$tmp/etc"/* "$tmp/snap"/*
bridge_rule='-A FORWARD -p ARP -j DROP'
unshare -n sh -c "'$fr' $legacy < '$tmp/good/rules.v4' && '$boot' save" >/dev/null 2>&1
check "save, no bridge tables: no rules.bridge" test ! -e "$tmp/etc/rules.bridge"
out=$(unshare -n sh -c "ebtables-nft -N bchain && ebtables-nft $bridge_rule &&
  '$fr' $legacy < '$tmp/good/rules.v4' && '$boot' save >/dev/null 2>&1 &&
  ebtables-nft-save | grep -v '^#'")
check "save: rules.bridge is the bridge tables as ebtables-save prints them" \
  test "$(grep -v '^#' "$tmp/etc/rules.bridge")" = "$out"
check "save: rules.bridge has mode 0640" test "$(stat -c %a "$tmp/etc/rules.bridge")" = 640
check "save: the bridge snapshot, with its text's digest" \
  grep -qx "sha256 $(sha256sum < "$tmp/etc/rules.bridge" | cut -d' ' -f1)" \
  "$tmp/snap/rules.bridge.snap.source"
bridge_boot() { # prints start's output, its status and the bridge tables
  unshare -n sh -c "'$boot' start 2>&1; echo \"status \$?\"; ebtables-nft-save | grep -v '^#'"
}
out=$(bridge_boot)
check "bridge: start loads the snapshot" \
  grep -q "bridge: loaded $tmp/snap/rules.bridge.snap" <<< "$out"
check "bridge: its rule and chain" \
  bash -c 'grep -qx -- "$2" <<< "$1" && grep -q "^:bchain " <<< "$1"' _ "$out" "$bridge_rule"
check "bridge: status 0" grep -qx "status 0" <<< "$out"
echo '-A FORWARD -p IPv4 -j ACCEPT' > "$tmp/extra"
sed -i "/^COMMIT/d; \$r $tmp/extra" "$tmp/etc/rules.bridge"
out=$(bridge_boot)
check "bridge, text edited since: the text loads" \
  grep -qx -- '-A FORWARD -p IPv4 -j ACCEPT' <<< "$out"
check "bridge, text edited since: says why" \
  grep -q "bridge: $tmp/snap/rules.bridge.snap was not saved from $tmp/etc/rules.bridge" <<< "$out"
out=$(unshare -n sh -c "ebtables-nft -N bchain && ebtables-nft $bridge_rule &&
  '$boot' flush >/dev/null 2>&1; echo status \$?; ebtables-nft-save | grep -v '^#'")
check "flush: the bridge tables too" \
  bash -c '! grep -q -e "^-A" -e "^:bchain" <<< "$1" && grep -qx "status 0" <<< "$1"' _ "$out"

# status: the tables now, what the last start loaded and whether they
# changed since, what a start would load and why.
reset
rm -rf "$tmp/run"
status_of() { # COMMANDS: status's output after them, in a fresh namespace
  unshare -n sh -c "$1; '$boot' status 2>&1; echo \"status \$?\""
}
out=$(status_of "'$fr' $legacy < '$tmp/good/rules.v4'")
check "status: the tables now" grep -q "IPv4: now: filter 1 rule$" <<< "$out"
check "status: no start yet" \
  grep -q "IPv4: no start has loaded it since the machine started" <<< "$out"
check "status: what a start would load, and why" \
  grep -q "IPv4: a start would load $tmp/snap/rules.v4.snap (saved from $tmp/etc/rules.v4 as it is now)" <<< "$out"
check "status: a family with nothing saved" \
  grep -q "bridge: a start would load nothing: no saved rules" <<< "$out"
check "status: status 0" grep -qx "status 0" <<< "$out"
out=$(status_of "'$boot' start >/dev/null 2>&1")
check "status after start: what it loaded" \
  grep -q "IPv4: start at .*: loaded $tmp/snap/rules.v4.snap; the tables are as it left them" <<< "$out"
out=$(status_of "'$boot' start >/dev/null 2>&1; iptables-$backend -A INPUT -j ACCEPT")
check "status after a change: the tables changed since" \
  grep -q "IPv4: start at .*; the tables have changed since" <<< "$out"
damage corrupt "$tmp/snap/rules.v4.snap"
out=$(status_of true)
check "status, corrupt snapshot: the text would load instead" \
  grep -q "IPv4: a start would load $tmp/etc/rules.v4: $tmp/snap/rules.v4.snap fails its test load" <<< "$out"
printf '*filter\n-A INPUT -m nosuchmatch -j ACCEPT\nCOMMIT\n' > "$tmp/etc/rules.v4"
out=$(status_of true)
check "status, both broken: nothing would load" \
  grep -q "IPv4: a start would load nothing: $tmp/etc/rules.v4 and $tmp/snap/rules.v4.snap both fail" <<< "$out"
# reload: the saved rules again, over what changed since.
reset
out=$(unshare -n sh -c "'$boot' start >/dev/null 2>&1; iptables-$backend -F INPUT
  '$boot' reload >/dev/null 2>&1; echo \"status \$?\"; $save | grep -e '^-A'")
check "reload: the saved rules are back" grep -qx -- "$snap_rule" <<< "$out"
check "reload: status 0" grep -qx "status 0" <<< "$out"
[ $fail = 0 ] && echo "ok: boot ($backend)"
exit $fail
