#!/usr/bin/env bash
# Writes the large-block error case: N valid rules, then one rule the
# kernel refuses, in one COMMIT block (the kernel must reject the whole
# block and the message must name the last rule's line).
#   gen_large_block.sh OUTDIR [N]
set -eu
out=$1
n=${2:-20000}
mkdir -p "$out"
cp "$(dirname "$0")/errors/base4.pre" "$out/"
f="$out/kernel_late_in_large_block_4.rules"
{
  echo "# pre: base4.pre"
  echo "# error-line: $((n + 5))"
  echo "*filter"
  echo ":INPUT ACCEPT [0:0]"
  for ((i = 0; i < n; i++)); do
    echo "-A INPUT -s 10.$((i >> 16 & 255)).$((i >> 8 & 255)).$((i & 255))/32 -p tcp -m tcp --dport $((i % 60000 + 1)) -j ACCEPT"
  done
  echo "-A INPUT -j SNAT --to-source 192.0.2.1"
  echo "COMMIT"
} > "$f"
