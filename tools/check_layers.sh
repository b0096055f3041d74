#!/usr/bin/env bash
# The folders of src/ depend one way, in the order of the data flow: a file
# may include (#include "folder/...") its own folder, the public headers
# (include/streamglove/) and the folders before its own in LAYERS. A
# subfolder is part of its top folder (src/train/device/ is training's). A
# file at src/'s top belongs to no stage and may include only the public
# headers (its stage's folder is its place). The public headers include only
# each other. The programs beside the library, bench/'s and tools/' C++, may
# include the public headers and any folder of src/; nothing in src/ or
# include/ includes them. Prints every include that breaks this and exits 1;
# run by ctest as style.layers. The files are git's, tracked or new.
#
#   tools/check_layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# A stage's output format and writer come before the stage that writes it:
# store before cooccur, vectors before train.
LAYERS=(util corpus vocab store cooccur phrases vectors train eval plot cli)
rank() {
  local i
  for i in "${!LAYERS[@]}"; do
    [ "${LAYERS[$i]}" = "$1" ] && { echo "$i"; return; }
  done
  echo -1
}
# The C++ files under the given folders, tracked or new (not ignored), that exist.
sources() {
  git ls-files --cached --others --exclude-standard -- "$@" | sort -u |
    grep -E '\.(h|cc|cu)$' | while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done
}
# The folders a file includes from: "a/b.h" -> a.
included() { sed -nE 's/^#include "([a-z_0-9]+)\/.*/\1/p' "$1" | sort -u; }
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
    own_rank=0
  fi
  while IFS= read -r target; do
    [ "$target" = "$own" ] || [ "$target" = streamglove ] && continue
    target_rank=$(rank "$target")
    if [ "$target" = bench ] || [ "$target" = tools ]; then
      echo "$file includes $target/: src/ never includes $target/"
      bad=1
    elif [ "$own" = top ]; then
      echo "$file includes $target/: a file at src/'s top belongs to no stage and may include only" \
        "the public headers (its place is its stage's folder)"
      bad=1
    elif [ "$own" = cli ]; then
      echo "$file includes $target/: src/cli/ may include only the public headers and its own"
      bad=1
    elif [ "$target_rank" = -1 ] || [ "$target_rank" -ge "$own_rank" ]; then
      echo "$file includes $target/: src/$own/ may include only $(
        [ "$own_rank" = 0 ] && echo "the public headers" || echo "${LAYERS[*]:0:$own_rank}")"
      bad=1
    fi
  done < <(included "$file")
done < <(sources src)
while IFS= read -r file; do
  if included "$file" | grep -qv '^streamglove$'; then
    echo "$file: a public header includes a folder of src/"
    bad=1
  fi
done < <(sources include)
while IFS= read -r file; do
  while IFS= read -r target; do
    [ "$target" = streamglove ] && continue
    if [ "$(rank "$target")" = -1 ]; then
      echo "$file includes $target/: ${file%%/*}/ may include only the public headers and the folders of src/"
      bad=1
    fi
  done < <(included "$file")
done < <(sources bench tools)
[ "$bad" = 0 ] && echo "ok: src/ folders depend one way (${LAYERS[*]}); src/cli/ uses the public headers;" \
  "bench/ and tools/ use the public headers and src/"
exit "$bad"
