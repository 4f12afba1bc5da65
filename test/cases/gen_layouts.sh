#!/usr/bin/env bash
# Writes the table-layout cases: blocks whose rules reach the legacy
# kernel laid out in place (each chain's rules in table order) or copied
# (chains filled out of order), with jumps and counters, and one whose
# hundreds of empty chains before the first rules push those rules back.
#   gen_layouts.sh OUTDIR
set -eu
out=$1
mkdir -p "$out"

chains() { # N: N empty user chains e0000...
  for ((i = 0; i < $1; i++)); do printf ':e%04d - [0:0]\n' "$i"; done
}

{ # Built-in chains first, then user chains in name order: in place.
  echo "# args: -c"
  echo "*filter"
  echo ":INPUT DROP [5:100]"
  echo ":FORWARD ACCEPT [0:0]"
  echo ":OUTPUT ACCEPT [7:700]"
  chains 20
  echo ":ma - [0:0]"
  echo ":mb - [0:0]"
  echo "-A INPUT -i lo -j ACCEPT"
  echo "-A INPUT -j ma"
  echo "[3:30] -A OUTPUT -p udp --sport 53"
  for ((i = 0; i < 300; i++)); do
    echo "[$i:$((i * 60))] -A ma -s 10.0.$((i >> 8)).$((i & 255)) -p tcp --dport $((i + 1)) -j e$(printf %04d $((i % 20)))"
  done
  for ((i = 0; i < 300; i++)); do
    echo "-A mb -d 10.1.$((i >> 8)).$((i & 255)) -j $(case $((i % 4)) in 0) echo ACCEPT ;; 1) echo DROP ;; 2) echo RETURN ;; *) echo e0001 ;; esac)"
  done
  echo "-A mb -p tcp"
  echo "COMMIT"
} > "$out/layout_in_order_0.rules"

{ # Chains filled in turn: copied.
  echo "# args: -c"
  echo "*filter"
  echo ":INPUT ACCEPT [0:0]"
  echo ":FORWARD DROP [0:0]"
  echo ":OUTPUT ACCEPT [0:0]"
  echo ":b - [0:0]"
  echo ":a - [0:0]"
  for ((i = 0; i < 600; i++)); do
    case $((i % 4)) in
    0) echo "[1:$i] -A b -s 10.2.$((i >> 8)).$((i & 255)) -j a" ;;
    1) echo "-A a -s 10.3.$((i >> 8)).$((i & 255)) -j ACCEPT" ;;
    2) echo "-A FORWARD -p udp --dport $((i + 1)) -j b" ;;
    *) echo "-A INPUT -d 10.4.$((i >> 8)).$((i & 255))/24 -j RETURN" ;;
    esac
  done
  echo "COMMIT"
} > "$out/layout_interleaved_0.rules"

{ # 600 empty chains sort before the rules' chain: no room left before it.
  echo "*filter"
  echo ":INPUT ACCEPT [0:0]"
  echo ":FORWARD ACCEPT [0:0]"
  echo ":OUTPUT ACCEPT [0:0]"
  chains 600
  echo ":zz - [0:0]"
  echo "-A INPUT -j zz"
  for ((i = 0; i < 500; i++)); do
    echo "-A zz -s 10.5.$((i >> 8)).$((i & 255)) -p tcp -m tcp --sport $((i + 1)):65535 -j e$(printf %04d $((i % 600)))"
  done
  echo "COMMIT"
} > "$out/layout_pushed_back_0.rules"
