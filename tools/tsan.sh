#!/usr/bin/env bash
# Runs the unit tests under ThreadSanitizer against a oneTBB built with
# -fsanitize=thread, so that the happens-before edges inside oneTBB's task
# scheduler are visible to TSan (Debian's libtbb is not instrumented, and a
# TSan run against it reports every pipeline hand-off as a race).
#
# oneTBB is built from Debian's own source package of the installed libtbb-dev
# version (apt-get source, with a temporary deb-src list), into
# $SG_TSAN_DEPS (default /var/tmp/streamglove-tsan), outside the project and
# once. This is a documented command, not a CI step: the build needs the
# source download and takes ~10 min on 2 cores.
#
#   tools/tsan.sh [ctest args...]     (default: -L unit)
set -euo pipefail
cd "$(dirname "$0")/.."
project=$PWD
deps=${SG_TSAN_DEPS:-/var/tmp/streamglove-tsan}
prefix=$deps/install
tools/setup.sh

if [ ! -f "$prefix/lib/cmake/TBB/TBBConfig.cmake" ]; then
  version=$(dpkg-query -W -f='${Version}' libtbb-dev)
  upstream=${version%%-*}
  mkdir -p "$deps/apt/lists/partial" "$deps/apt/sources" "$deps/src"
  cat >"$deps/apt/sources/deb-src.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  apt_opts=(-o Dir::Etc::sourcelist=/dev/null -o "Dir::Etc::sourceparts=$deps/apt/sources"
            -o "Dir::State::Lists=$deps/apt/lists")
  apt-get "${apt_opts[@]}" update >/dev/null
  (cd "$deps/src" && apt-get "${apt_opts[@]}" source --download-only "onetbb=$version" >/dev/null 2>&1)
  tar -C "$deps/src" -xf "$deps/src/onetbb_${upstream}.orig.tar.xz"
  source_dir=$deps/src/oneTBB-$upstream
  # Debian's patches, in its series order, so the library matches the headers
  # the project is otherwise built against.
  tar -C "$deps/src" -xf "$deps/src"/onetbb_"${version}".debian.tar.xz
  if [ -f "$deps/src/debian/patches/series" ]; then
    { grep -v '^#' "$deps/src/debian/patches/series" || true; } | while read -r p; do
      [ -z "$p" ] && continue
      patch -d "$source_dir" -p1 -s <"$deps/src/debian/patches/$p"
    done
  fi
  cmake -S "$source_dir" -B "$deps/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTBB_SANITIZE=thread -DTBB_TEST=OFF -DTBB_EXAMPLES=OFF -DTBBMALLOC_BUILD=OFF \
    -DTBB_STRICT=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
  cmake --build "$deps/build" -j2
  cmake --install "$deps/build" >/dev/null
fi

tools/build.sh build-tsan -DCMAKE_BUILD_TYPE=Debug -DSG_TSAN=ON -DTBB_DIR="$prefix/lib/cmake/TBB" \
  -DCMAKE_BUILD_RPATH="$prefix/lib"
if [ $# -eq 0 ]; then set -- -L unit; fi
TSAN_OPTIONS="suppressions=$project/tests/tsan.supp halt_on_error=1 second_deadlock_stack=1" \
  LD_LIBRARY_PATH="$prefix/lib" ctest --test-dir build-tsan --output-on-failure "$@"
