#!/usr/bin/env bash
# Proves the two-command promise on a machine with none of soak's packages: a minimal Debian 12
# (debootstrap --variant=minbase, plus make) gets a clean clone of the current commit in
# /root/soak and runs `make demo` there as root, in a chroot.
#
#   tools/fresh-debian.sh [--check | --demo-check] [--rebuild | --cold]
#   tools/fresh-debian.sh [--rebuild | --cold] --run DIR COMMAND
#     --check       run `make check` instead of `make demo`
#     --demo-check  `make demo`, then `make check`, as a newcomer does (each timed)
#     --rebuild     debootstrap again instead of using the cached tree
#     --cold        start from nothing, as a newcomer's machine does: debootstrap again,
#                   no downloaded package kept from an earlier run (a private, empty
#                   apt archive), and the kernel's page cache dropped before the command
#     --run       no clone and no make: copy DIR into the fresh tree as /root/work and run
#                 COMMAND there (bash -c, in /root/work); tests/pkg/test_deb.sh installs the
#                 Debian package this way
#
# Needs root (debootstrap, mount, chroot); installs debootstrap with apt when it is missing.
# The bootstrapped tree is kept as build/fresh/bookworm-minbase.tar and unpacked afresh for
# every run, so each run starts from the same clean machine. Downloaded .deb files are kept in
# build/fresh/apt-archives (only the download is cached: every package is still installed by
# the project's own `make`). The Debian mirror is the host's (/etc/apt/sources.list(.d)).
# The chroot shares the host's network (apt works, the demo serves on 127.0.0.1 with ports the
# kernel picks) but has its own PID namespace, so the demo's collectors see only its processes
# and nothing it started outlives it. Output: the command's output (also in
# build/fresh/last-run.log), timings, and the command's exit status as ours.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fresh=$top/build/fresh
tarball=$fresh/bookworm-minbase.tar
root=$fresh/root
goal=demo
rebuild=0 cold=0
run_dir='' run_cmd=''
while [ $# -gt 0 ]; do
  case "$1" in
    --check) goal=check ;;
    --demo-check) goal=demo-check ;;
    --rebuild) rebuild=1 ;;
    --cold) rebuild=1 cold=1 ;;
    --run)
      [ $# -ge 3 ] || { echo "fresh-debian: --run DIR COMMAND" >&2; exit 2; }
      run_dir=$(cd "$2" && pwd) run_cmd=$3
      shift 2 ;;
    -h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fresh-debian: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" -eq 0 ] || { echo "fresh-debian: must run as root (debootstrap, mount, chroot)" >&2; exit 2; }
if [ -z "$run_dir" ]; then
  commit=$(git -C "$top" rev-parse HEAD)
  git -C "$top" diff --quiet HEAD 2>/dev/null ||
    echo "fresh-debian: note: uncommitted changes are not part of the test (it clones $commit)" >&2
fi

# mirror SUITE: the first URI the host's apt sources give for SUITE (one-line and deb822 forms).
mirror() {
  local suite=$1 f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    # deb [options] URI SUITE COMPONENTS...
    awk -v s="$suite" '$1 == "deb" { sub(/\[[^]]*\] */, ""); if ($3 == s) { print $2; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    # A stanza ends at a blank line; keep its first URI when its Suites name SUITE.
    awk -v s="$suite" 'function flush() { if (uri != "" && hit) { print uri; exit } uri = ""; hit = 0 }
      /^[[:space:]]*$/ { flush(); next }
      /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) hit = 1 }
      END { flush() }' "$f"
  done
}
main_mirror=$(mirror bookworm | head -n 1)
main_mirror=${main_mirror:-http://deb.debian.org/debian}
security_mirror=$(mirror bookworm-security | head -n 1)
updates_mirror=$(mirror bookworm-updates | head -n 1)

mounted=()
cleanup() {
  local rc=$? i
  trap - EXIT INT TERM
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" 2>/dev/null ||
      echo "fresh-debian: could not unmount ${mounted[$i]}" >&2
  done
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mnt() { # TARGET MOUNT-ARGS...: mount and remember it for the trap
  local target=$1
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  mounted+=("$target")
}

# Nothing from an earlier run may still be mounted under the tree we are about to delete.
if grep -qE " $root(/| )" /proc/mounts; then
  echo "fresh-debian: something is still mounted under $root (another run?); unmount it first" >&2
  exit 1
fi

mkdir -p "$fresh"
t0=$SECONDS
if [ "$rebuild" -eq 1 ] || [ ! -f "$tarball" ]; then
  if ! command -v debootstrap >/dev/null 2>&1; then
    echo "fresh-debian: installing debootstrap" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2
  fi
  echo "fresh-debian: debootstrap bookworm from $main_mirror" >&2
  rm -rf "$fresh/bootstrap"
  debootstrap --variant=minbase --include=make bookworm "$fresh/bootstrap" "$main_mirror" \
    >"$fresh/debootstrap.log" 2>&1 || {
    tail -n 20 "$fresh/debootstrap.log" >&2
    echo "fresh-debian: debootstrap failed (log: $fresh/debootstrap.log)" >&2
    exit 1
  }
  rm -f "$fresh/bootstrap/var/cache/apt/archives/"*.deb
  tar -C "$fresh/bootstrap" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
  rm -rf "$fresh/bootstrap"
  echo "fresh-debian: bootstrapped in $((SECONDS - t0)) s (cached in $tarball)" >&2
fi

t1=$SECONDS
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$tarball"
{
  echo "deb $main_mirror bookworm main"
  [ -z "$updates_mirror" ] || echo "deb $updates_mirror bookworm-updates main"
  [ -z "$security_mirror" ] || echo "deb $security_mirror bookworm-security main"
} >"$root/etc/apt/sources.list"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# What an installed machine has and a bootstrapped tree lacks: its own name resolves.
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' \
  "$(hostname)" >"$root/etc/hosts"
# As in any chroot, packages' services are not started (Debian's policy-rc.d convention): the
# demo starts its own private servers, and a system PostgreSQL or Jetty started here would
# take ports 5432 and 8080 on the host's network.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
if [ -n "$run_dir" ]; then
  cp -a "$run_dir" "$root/root/work"
  echo "fresh-debian: fresh tree with $run_dir as /root/work in $((SECONDS - t1)) s" >&2
  cd_cmd="cd /root/work && $run_cmd" what=$run_cmd
else
  git clone -q --no-hardlinks "$top" "$root/root/soak"
  git -C "$root/root/soak" checkout -q --detach "$commit"
  echo "fresh-debian: fresh tree with a clone of $commit in $((SECONDS - t1)) s" >&2
  cd_cmd="cd /root/soak && make $goal" what="make $goal"
  if [ "$goal" = demo-check ]; then
    # Each command timed on its own: the check's figure is what a newcomer waits for.
    cd_cmd='cd /root/soak && s=$SECONDS && make demo; rc=$?; echo "fresh-debian: make demo exited with status $rc after $((SECONDS - s)) s"; s=$SECONDS; make check; rc2=$?; echo "fresh-debian: make check exited with status $rc2 after $((SECONDS - s)) s"; [ $rc -eq 0 ] && exit $rc2; exit $rc'
    what="make demo, then make check"
  fi
fi

# The tree's root is a mount point, as / is on a real machine (ip netns exec remounts it).
mnt "$root" --bind "$root"
mnt "$root/proc" -t proc proc
mnt "$root/sys" -t sysfs sysfs
# The cgroup hierarchies, which systemd mounts on a real machine (slurmd needs them); a
# slave, so that unmounting the copies never reaches the host's.
mnt "$root/sys/fs/cgroup" --rbind /sys/fs/cgroup
mount --make-rslave "$root/sys/fs/cgroup"
mnt "$root/dev/pts" --bind /dev/pts
mnt "$root/dev/shm" -t tmpfs -o mode=1777 shm
archives=$fresh/apt-archives
# Cold: an archive of its own, empty, removed afterwards; the cached one is left as it was.
if [ "$cold" -eq 1 ]; then
  archives=$fresh/apt-archives.cold
  rm -rf "$archives"
fi
mkdir -p "$archives/partial"
mnt "$root/var/cache/apt/archives" --bind "$archives"
if [ "$cold" -eq 1 ]; then
  sync
  echo 3 >/proc/sys/vm/drop_caches 2>/dev/null ||
    echo "fresh-debian: note: the page cache could not be dropped (not allowed here)" >&2
fi

echo "fresh-debian: $what in the chroot (as root)" >&2
t2=$SECONDS
# env -i: the environment of a fresh login, none of ours. --kill-child: when we end, so does
# every process of the namespace.
set +e
unshare --pid --fork --kill-child --mount-proc="$root/proc" \
  chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c "$cd_cmd" </dev/null 2>&1 | tee "$fresh/last-run.log"
rc=${PIPESTATUS[0]}
[ "$cold" -eq 0 ] || rm -rf "$fresh/apt-archives.cold"
echo "fresh-debian: $what exited with status $rc after $((SECONDS - t2)) s" \
  "(whole run $((SECONDS - t0)) s)" >&2
exit "$rc"
