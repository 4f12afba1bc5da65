#!/usr/bin/env bash
# ebtables atomic files: init, rules appended through the file, listed
# from the file, commit, save, commit again, must give what building the same table with
# ebtables-nft gives (ebtables-nft-save and nft list ruleset); a damaged
# file is refused and changes nothing.
#   ebtables_atomic_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
cat > "$tmp/rules" <<'RULES'
-A FORWARD -p IPv4 --ip-src 10.0.0.1 -j ACCEPT
-A FORWARD --among-dst 00:11:22:33:44:55,00:11:22:33:44:66 -j DROP
-A INPUT --log-prefix "x y" --log -j ACCEPT
-A OUTPUT -p ARP --arp-op Request -j DROP
-P FORWARD DROP
-A FORWARD -j ACCEPT
RULES
cat > "$tmp/commands" <<'CMDS'
-A FORWARD -j ACCEPT
-N user
-A user -p IPv4 -j DROP
-P user RETURN
-I FORWARD 1 -j user
-A user --among-src 00:11:22:33:44:55 -j ACCEPT
-I user 2 -p ARP -j ACCEPT
-D user -p IPv4 -j DROP
-N other
-E other renamed
-A renamed -j CONTINUE
-F renamed
-X renamed
-D FORWARD 2
-A nosuch -j ACCEPT
-N user
-P FORWARD DROP
-Z
-A INPUT --bogus
CMDS
unshare -n bash -c '
  set -u
  fr=$1 tmp=$2
  state() { ebtables-nft-save | grep -v "^#"; nft list ruleset | grep -v "^#"; }
  # The built-in chains first, in hook order, as --atomic-init makes them.
  printf "*filter\n:INPUT ACCEPT\n:FORWARD ACCEPT\n:OUTPUT ACCEPT\nCOMMIT\n" |
    ebtables-nft-restore
  while IFS= read -r l; do eval "ebtables-nft $l"; done < "$tmp/rules"
  state > "$tmp/want"
  for o in "" --Ln --Lc; do ebtables-nft -L $o; done > "$tmp/want.list"
  nft flush ruleset
  export EBTABLES_ATOMIC_FILE=$tmp/file
  $fr ebtables --atomic-init || exit 1
  # --atomic-file on the command line works as the environment does.
  $fr ebtables --atomic-file "$tmp/other" --atomic-init || exit 1
  while IFS= read -r l; do eval "$fr ebtables $l" || exit 1; done < "$tmp/rules"
  [ "$(state)" = "" ] || { echo "appending to the file changed the kernel"; exit 1; }
  # -L lists the file as ebtables-nft lists the same table in the kernel.
  for o in "" --Ln --Lc; do $fr ebtables -L $o; done > "$tmp/file.list"
  diff -u "$tmp/want.list" "$tmp/file.list" || exit 1
  $fr ebtables --atomic-commit || exit 1
  state | diff -u "$tmp/want" - || exit 1
  $fr ebtables --atomic-file "$tmp/saved" --atomic-save || exit 1
  for o in "" --Ln --Lc; do $fr ebtables --atomic-file "$tmp/saved" -L $o
  done | diff -u "$tmp/want.list" - || exit 1
  nft flush ruleset
  $fr ebtables --atomic-file "$tmp/saved" --atomic-commit || exit 1
  state | diff -u "$tmp/want" - || exit 1
  # A damaged file: refused, nothing changes.
  head -c 300 "$tmp/file" > "$tmp/cut"
  before=$(state)
  $fr ebtables --atomic-file "$tmp/cut" --atomic-commit 2> "$tmp/err" && exit 1
  grep -q "truncated snapshot" "$tmp/err" || { cat "$tmp/err"; exit 1; }
  $fr ebtables --atomic-file "$tmp/cut" -A INPUT -j DROP 2> "$tmp/err" && exit 1
  grep -q "damaged" "$tmp/err" || { cat "$tmp/err"; exit 1; }
  [ "$(state)" = "$before" ] || { echo "a refused file changed the kernel"; exit 1; }
  # Every other command on a file acts as it acts on the kernel: the same
  # exit statuses, and the committed file equals the table ebtables-nft
  # builds with the same commands.
  nft flush ruleset
  printf "*filter\n:INPUT ACCEPT\n:FORWARD ACCEPT\n:OUTPUT ACCEPT\nCOMMIT\n" |
    ebtables-nft-restore
  : > "$tmp/want.status"
  while IFS= read -r l; do
    eval "ebtables-nft $l" > /dev/null 2>&1
    echo "$? $l" >> "$tmp/want.status"
  done < "$tmp/commands"
  state > "$tmp/want2"
  nft flush ruleset
  $fr ebtables --atomic-file "$tmp/f2" --atomic-init || exit 1
  : > "$tmp/got.status"
  while IFS= read -r l; do
    eval "$fr ebtables --atomic-file $tmp/f2 $l" > /dev/null 2>&1
    echo "$? $l" >> "$tmp/got.status"
  done < "$tmp/commands"
  [ "$(state)" = "" ] || { echo "commands on the file changed the kernel"; exit 1; }
  diff -u "$tmp/want.status" "$tmp/got.status" || exit 1
  $fr ebtables --atomic-file "$tmp/f2" --atomic-commit || exit 1
  state | diff -u "$tmp/want2" - || exit 1
  echo "ok: atomic files"
' _ "$fr" "$tmp"
