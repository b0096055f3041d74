#!/usr/bin/env bash
# Builds the Debian package: a portable build (x86-64-v2, not this machine's
# CPU: the package runs on any amd64 Debian 12) with the distributed ingest
# (Open MPI's library a dependency, its mpirun recommended), `cmake --install`
# laid out under /usr, and CPack's .deb with the library packages
# dpkg-shlibdeps finds, with the files of debian/ (the copyright file) in
# /usr/share/doc/streamglove/, where Debian looks for a package's copyright.
# The library and headers (`cmake --install`'s dev component) are not in it.
#   tools/package.sh [BUILD_DIR]   (default build-package); prints the .deb's path
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-package}
SG_BUILD_TARGETS="streamglove streamglove_cuda _streamglove man" tools/build.sh "$dir" \
  -DCMAKE_BUILD_TYPE=Release -DSG_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v2 -DSG_MPI=ON \
  -DBUILD_TESTING=OFF >&2
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
