#!/usr/bin/env bash
# The folders of src/ depend one way, in the order of the data flow: a file
# may include (#include "folder/...") its own folder, the public headers
# (include/streamglove/) and the folders before its own in LAYERS. A
# subfolder is part of its top folder (src/train/device/ is training's), and
# the files at src/'s top (options.cc) stand above every folder. The public
# headers include only each other. Prints every include that breaks this and
# exits 1; run by ctest as style.layers.
#
#   tools/check_layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# A stage's output format and writer come before the stage that writes it:
# store before cooccur, vectors before train.
LAYERS=(util corpus vocab store cooccur vectors train eval plot cli)
rank() {
  local i
  for i in "${!LAYERS[@]}"; do
    [ "${LAYERS[$i]}" = "$1" ] && { echo "$i"; return; }
  done
  echo -1
}
bad=0
while IFS= read -r file; do
  rel=${file#src/}
  if [[ $rel == */* ]]; then
    own=${rel%%/*}
    own_rank=$(rank "$own")
    if [ "$own_rank" = -1 ]; then
      echo "$file: its folder src/$own/ is not in tools/check_layers.sh's LAYERS"
      bad=1
      continue
    fi
  else
    own=top
    own_rank=${#LAYERS[@]}
  fi
  while IFS= read -r target; do
    [ "$target" = "$own" ] || [ "$target" = streamglove ] && continue
    target_rank=$(rank "$target")
    if [ "$own" = cli ]; then
      echo "$file includes $target/: src/cli/ may include only the public headers and its own"
      bad=1
    elif [ "$target_rank" = -1 ] || [ "$target_rank" -ge "$own_rank" ]; then
      echo "$file includes $target/: src/$own/ may include only $(
        [ "$own_rank" = 0 ] && echo "the public headers" || echo "${LAYERS[*]:0:$own_rank}")"
      bad=1
    fi
  done < <(sed -nE 's/^#include "([a-z_0-9]+)\/.*/\1/p' "$file" | sort -u)
done < <(git ls-files 'src/*.h' 'src/*.cc' 'src/*.cu')
while IFS= read -r file; do
  if sed -nE 's/^#include "([a-z_0-9]+)\/.*/\1/p' "$file" | grep -qv '^streamglove$'; then
    echo "$file: a public header includes a folder of src/"
    bad=1
  fi
done < <(git ls-files 'include/*.h')
[ "$bad" = 0 ] && echo "ok: src/ folders depend one way (${LAYERS[*]}); src/cli/ uses the public headers"
exit "$bad"
