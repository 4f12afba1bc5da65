# Sourced first by the tests that change the machine's configuration
# (update-alternatives, /etc/iptables, installed packages): re-runs the
# test, with its arguments, in a private mount namespace where /etc, /usr,
# /var and /run are overlays over the machine's. Whatever the test changes
# lands in a temporary upper directory and disappears with the namespace,
# so the machine is left untouched however the test ends, killed included.
# Skips (status 77) without root, mount namespaces or overlayfs.
if [ -z "${FASTRESTORE_SANDBOX:-}" ]; then
  if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null ||
     ! grep -qw overlay /proc/filesystems; then
    echo "SKIP: needs root, mount namespaces and overlayfs"
    exit 77
  fi
  FASTRESTORE_SANDBOX=$(mktemp -d /tmp/fastrestore-sandbox.XXXXXX)
  export FASTRESTORE_SANDBOX
  trap 'rm -rf "$FASTRESTORE_SANDBOX"' EXIT
  unshare -m --propagation private bash -c '
    set -e
    for d in etc usr var run; do
      mkdir -p "$FASTRESTORE_SANDBOX/upper/$d" "$FASTRESTORE_SANDBOX/work/$d"
      mount -t overlay overlay \
        -o "lowerdir=/$d,upperdir=$FASTRESTORE_SANDBOX/upper/$d,workdir=$FASTRESTORE_SANDBOX/work/$d" "/$d"
    done
    exec bash "$0" "$@"' "$0" "$@"
  exit $?
fi
