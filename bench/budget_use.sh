#!/usr/bin/env bash
# How much of a `train --budget` is used: one run per budget on a store
# (whole processes, measured by /usr/bin/time), each line the budget, the
# wall time and its share, and the plan as trained. A budget is to end
# between 90% and 100% of itself. Run it on an idle machine.
#
#   bench/budget_use.sh -s STORE [-b "40 85 150"] [-S SEED]
#   env: SG_BUILD (build)
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
store=
budgets="40 85 150"
seed=1
while getopts "s:b:S:" opt; do
  case $opt in
    s) store=$OPTARG ;;
    b) budgets=$OPTARG ;;
    S) seed=$OPTARG ;;
    *) exit 2 ;;
  esac
done
[ -n "$store" ] || { echo "usage: $0 -s STORE [-b BUDGETS] [-S SEED]" >&2; exit 2; }
sg_scratch bench-budget
for b in $budgets; do
  sg_time "$work/time" "$SG_BIN" train --store "$store" -o "$work/v.txt" \
    --budget "${b}s" --seed "$seed" 2>"$work/err" || { cat "$work/err"; exit 1; }
  wall=$(sg_wall "$work/time")
  plan=$(grep -o "sgns, dim [0-9]*, [0-9.]* epochs\|glove[^,]*, dim [0-9]*, [0-9.]* epochs" \
    "$work/err" | head -1 || true)
  changed=$(grep -o "the plan was changed to [0-9.]* epochs" "$work/err" || true)
  awk -v b="$b" -v w="$wall" -v p="$plan" -v c="$changed" \
    'BEGIN { printf "budget %6.1f s: %6.2f s wall, %5.1f%%; planned %s%s\n", b, w, 100 * w / b, p,
             c == "" ? "" : "; " c }'
  rm -f "$work"/v.txt*
done
