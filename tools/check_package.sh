#!/usr/bin/env bash
# Installs the .deb as a user of a fresh Debian 12 would, `apt install
# ./streamglove_*.deb`, in a new minimal Debian 12 root (debootstrap, no
# container), and runs it there: --version, the man page's presence, a small
# `embed` and its neighbours. Any missing dependency fails the install.
#   tools/check_package.sh DEB    (root: debootstrap and chroot; exits 77 without)
set -euo pipefail
deb=$(realpath "$1")
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: installing into a fresh Debian root needs root (debootstrap, chroot)"
  exit 77
fi
mirror=${SG_DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$(mktemp -d "${TMPDIR:-/tmp}/sg-deb-root.XXXXXX")
cleanup() {
  umount "$root/sys" 2>/dev/null || true
  umount "$root/proc" 2>/dev/null || true
  # Never removed through a mount that would not come off.
  if mountpoint -q "$root/sys" || mountpoint -q "$root/proc"; then
    echo "left $root: its /sys or /proc is still mounted"
  else
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT
echo "debootstrap: a minimal Debian 12 in $root"
# The root comes from the network: a mirror out of reach is a skip, said so.
if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1; then
  tail -3 "$root.log"
  rm -f "$root.log"
  echo "SKIP: debootstrap could not make a Debian 12 root from $mirror"
  exit 77
fi
rm -f "$root.log"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"  # Open MPI's hwloc reads the CPU topology there
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
# apt's own warnings (no /dev/pts, no sandbox user) are noise here: shown on failure only.
in_root apt-get update -qq >"$root/tmp/apt.log" 2>&1 || { cat "$root/tmp/apt.log"; exit 1; }
in_root apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" \
  >"$root/tmp/apt.log" 2>&1 || { cat "$root/tmp/apt.log"; echo "FAIL: apt install"; exit 1; }
in_root streamglove --version
[ -f "$root/usr/share/man/man1/streamglove.1.gz" ] || { echo "FAIL: no man page"; exit 1; }
[ -f "$root/usr/share/doc/streamglove/README.md" ] || { echo "FAIL: no README"; exit 1; }
# A small corpus with a planted relation, made by awk (in every Debian root).
in_root awk 'BEGIN { srand(7); for (i = 0; i < 20000; i++) { line = "";
  for (j = 0; j < 12; j++) line = line " w" int(rand() * rand() * 400);
  print line " paris france" (i % 3 ? " rome italy" : "") } }' >"$root/tmp/corpus.txt"
in_root streamglove embed /tmp/corpus.txt -o /tmp/vectors.txt --epochs 2 -q
in_root streamglove neighbors /tmp/vectors.txt paris -k 3 -q
# The distributed ingest, with the mpirun the package recommends: two ranks
# make the store one process makes.
in_root apt-get install -y -qq --no-install-recommends openmpi-bin >"$root/tmp/apt.log" 2>&1 ||
  { cat "$root/tmp/apt.log"; echo "FAIL: apt install openmpi-bin"; exit 1; }
in_root streamglove ingest --store /tmp/one /tmp/corpus.txt --quiet
in_root env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 \
  OMPI_MCA_btl=self,tcp mpirun --oversubscribe -np 2 streamglove ingest --store /tmp/two \
  /tmp/corpus.txt --quiet
in_root sh -c 'streamglove dump --store /tmp/one >/tmp/one.txt'
in_root sh -c 'streamglove dump --store /tmp/two >/tmp/two.txt'
[ -s "$root/tmp/one.txt" ] && cmp -s "$root/tmp/one.txt" "$root/tmp/two.txt" ||
  { echo "FAIL: mpirun -np 2 made another store than one process (or none)"; exit 1; }
echo "ok: $(basename "$deb") installs with apt in a fresh Debian 12 root, runs, embeds, and" \
  "ingests on two MPI ranks as one process does"
