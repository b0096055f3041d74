#!/usr/bin/env bash
# Thin wrapper: runs jsonl_shards_test.py with the system Python (stdlib only).
# Usage: jsonl_shards_test.sh BINARY DATA_DIR
set -euo pipefail

if [[ ! -x /usr/bin/python3 ]]; then
    echo "SKIP: /usr/bin/python3 not found" >&2
    exit 77
fi

exec /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/jsonl_shards_test.py" "$@"
