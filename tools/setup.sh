#!/usr/bin/env bash
# Installs every Debian package streamglove's build, tests and benchmarks need.
# Idempotent: installs only what is missing, so a second run costs a second.
set -euo pipefail

packages=(
  # build
  g++ cmake ninja-build pkg-config
  # libraries
  librocksdb-dev libzstd-dev libtbb-dev libfmt-dev libcli11-dev zlib1g-dev
  libsimdjson-dev libutf8proc-dev libopenblas-dev nlohmann-json3-dev liblzma-dev libbz2-dev libicu-dev
  # tests
  catch2 zstd gzip xz-utils bzip2 python3 bc
  # distributed counting (issue 19): mpirun, mpicxx and MPI's headers
  openmpi-bin libopenmpi-dev
  # cross-checks against independent peers (they install for /usr/bin/python3)
  python3-numpy python3-scipy python3-gensim fasttext
  # the Python module (pybind11, for /usr/bin/python3) and its tests
  pybind11-dev python3-dev python3-pytest
  # fuzzing (libFuzzer ships with clang), the format check, and the CUDA plugin's
  # kernels (clang compiles them to PTX: no CUDA toolkit)
  clang clang-format
  # benchmarks (peak RSS via /usr/bin/time -v; plots by gnuplot)
  time gnuplot-nox
  # the demo's English text (the GNU Collaborative International Dictionary of English)
  dict-gcide
  # the Debian package (CPack runs dpkg-shlibdeps) and its install check in a fresh root
  dpkg-dev fakeroot debootstrap
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
