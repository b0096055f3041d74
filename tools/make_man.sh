#!/usr/bin/env bash
# Writes streamglove's man page (roff) from its own --help texts, so the
# page says what the binary does: tools/make_man.sh BINARY OUTPUT.
set -euo pipefail
bin=$1
out=$2
version=$("$bin" --version | awk '{print $2}')

# The subcommands a --help text lists (two-space-indented names under "Subcommands:").
subcommands() {
  "$bin" "$@" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}'
}
# A --help text as preformatted roff: backslashes escaped, no line read as a request.
help_block() {
  echo ".nf"
  "$bin" "$@" --help | sed -e 's/\\/\\e/g' -e 's/^[.'"'"']/\\\&&/'
  echo ".fi"
}

{
  echo ".TH STREAMGLOVE 1 \"\" \"streamglove $version\" \"User Commands\""
  echo ".SH NAME"
  echo "streamglove \\- GloVe and skip-gram word embeddings for corpora larger than RAM"
  echo ".SH SYNOPSIS"
  echo ".B streamglove embed"
  echo "INPUT... \\-o VECTORS [\\-\\-budget 10m]"
  echo ".br"
  echo ".B streamglove"
  echo "SUBCOMMAND [OPTIONS]"
  echo ".SH DESCRIPTION"
  help_block
  echo ".SH COMMANDS"
  for sub in $(subcommands); do
    nested=$(subcommands "$sub")
    if [ -z "$nested" ]; then
      echo ".SS $sub"
      help_block "$sub"
    else
      for leaf in $nested; do
        echo ".SS $sub $leaf"
        help_block "$sub" "$leaf"
      done
    fi
  done
  echo ".SH FILES"
  echo "The documentation in /usr/share/doc/streamglove: README.md and docs/ (formats, architecture,"
  echo "benchmarks, skip-gram, distributed ingest, GPU)."
} >"$out"
