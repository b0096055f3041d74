#!/usr/bin/env bash
# Builds the Debian package: a portable build (x86-64-v2, not this machine's
# CPU: the package runs on any amd64 Debian 12) with the distributed ingest
# (Open MPI's library a dependency, its mpirun recommended), `cmake --install`
# laid out under /usr, and CPack's .deb with the library packages
# dpkg-shlibdeps finds.
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
(cd "$dir" && cpack -G DEB >&2)
ls "$dir"/streamglove_*.deb
