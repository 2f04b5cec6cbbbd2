#!/bin/bash
# tally.sh RESDIR: passed / failed / skipped through the layer per MPI over the chunks'
# TAP files, and each failure with the plain rerun's result for that name
d=$1
for m in mpich ompi; do
  l=$(cat $d/${m}*-layer.tap 2>/dev/null); p=$(cat $d/${m}*-plain.tap 2>/dev/null)
  [ -n "$l" ] || continue
  printf '%s: %d passed, %d failed, %d skipped (%d chunks)\n' $m "$(grep '^ok' <<<"$l" | grep -vc '# SKIP')" \
    "$(grep -c '^not ok' <<<"$l")" "$(grep -c '^ok .*# SKIP' <<<"$l")" "$(ls $d/${m}*-layer.tap | wc -l)"
  grep '^not ok' <<<"$l" | sed 's/^not ok [0-9]* - //; s/ *#.*//; s|^\./||' | while read -r name np; do
    if [ -z "$np" ]; then echo "  $name: does not build against this MPI"; continue; fi
    pr=$(grep -E "^(not )?ok [0-9]* *- \./$name $np( |\$)" <<<"$p" | sed 's/ - .*//' | tr '\n' ',' )
    echo "  $name $np: layer FAIL, plain: ${pr:-not rerun}"
  done
done
