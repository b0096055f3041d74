#!/usr/bin/env bash
# Builds the Debian package: a portable build (x86-64-v2, not this machine's
# CPU: the package runs on any amd64 Debian 12) with the distributed ingest
# (Open MPI's library a dependency, its mpirun recommended), `cmake --install`
# laid out under /usr, and CPack's .deb with the library packages
# dpkg-shlibdeps finds, with the files of debian/ (the copyright file) in
# /usr/share/doc/streamglove/, where Debian looks for a package's copyright.
# The library and headers (`cmake --install`'s dev component) are not in it.
#   tools/package.sh [BUILD_DIR]   (default build-package); prints the .deb's path
#   tools/package.sh --cmake-args  prints the build's configure arguments, one a line
# A new BUILD_DIR is configured without tests; one configured before keeps
# them, so tools/test.sh tests the very build it packages (one build, not two).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake_args=(-DCMAKE_BUILD_TYPE=Release -DSG_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v2 -DSG_MPI=ON)
if [ "${1:-}" = --cmake-args ]; then
  printf '%s\n' "${cmake_args[@]}"
  exit 0
fi
dir=${1:-build-package}
[ -f "$dir/CMakeCache.txt" ] || cmake_args+=(-DBUILD_TESTING=OFF)
SG_BUILD_TARGETS="streamglove streamglove_cuda _streamglove man" tools/build.sh "$dir" \
  "${cmake_args[@]}" >&2
# SG_MPI builds MPI only when CMake finds it: a package without it is refused.
ldd "$dir/streamglove" | grep -q libmpi ||
  { echo "FAIL: $dir/streamglove was built without MPI (install libopenmpi-dev)" >&2; exit 1; }
# An installed directory's destination is relative to the package's root.
debian_dir=$PWD/debian
(cd "$dir" &&
  cpack -G DEB -D "CPACK_INSTALLED_DIRECTORIES=$debian_dir;usr/share/doc/streamglove" >&2)
# A package made per component would leave the installed directory out: refused.
deb=$(ls -t "$dir"/streamglove_*.deb | head -n 1)
dpkg-deb -c "$deb" | grep ' \./usr/share/doc/streamglove/copyright$' >/dev/null ||
  { echo "FAIL: $deb has no /usr/share/doc/streamglove/copyright" >&2; exit 1; }
if dpkg-deb -c "$deb" | grep -E ' \./usr/(include|lib/cmake)/' >/dev/null; then
  echo "FAIL: $deb holds the library's dev component (CMakeLists.txt's CPack settings)" >&2
  exit 1
fi
echo "$deb"
