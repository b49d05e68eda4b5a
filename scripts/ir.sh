# shellcheck shell=bash
# `ir`, sourced by scripts/bench.sh (which sets BIN, the khal_ir binary,
# WORK, a scratch directory, and `log`):
#
#   ir <scenario> <kernel> [<device>]
#
# prints the Ir of the kernel per operation (awk float): `khal_ir <scenario>`
# runs once under callgrind collecting from the start; scripts/cg-kernel.py
# takes the inclusive cost of the functions matching *ir_<kernel>* (the
# kernel and anything nested in it, an outlined closure included) minus
# their calls of *ir_<device>_* (the scenario's device writes), or fails
# naming the scenario (see cg-kernel.py: why not --toggle-collect, and what
# it refuses); `ops=` the driver prints divides it.
# IR_CROSSCHECK=1: also count the kernel the old way (--collect-atstart=no
# --toggle-collect) and fail unless both totals are the same integer;
# IR_CROSSCHECK=report: go on, logging the difference
# (IR_CROSSCHECK_LOG=<file>: one line per scenario checked).
# A failure stops the whole script, not only the $(ir ...) subshell: an
# assignment of several substitutions returns the status of the last one.
ir_fail() { log "$*"; kill -TERM "$$"; exit 1; }
IR_KERNEL_PY="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/cg-kernel.py"
ir() {
  local scen=$1 kernel=$2 dev=${3:-} out ops total kglob="*ir_${2}*" dglob=""
  [[ -n "$dev" ]] && dglob="*ir_${dev}_*"
  out=$(valgrind --tool=callgrind --callgrind-out-file="$WORK/cg" "$BIN" "$scen" 2>/dev/null) \
    || ir_fail "$scen: khal_ir failed"
  ops=${out#ops=}
  total=$(python3 "$IR_KERNEL_PY" "$WORK/cg" "$scen" "$kglob" ${dglob:+"$dglob"}) \
    || ir_fail "$scen: no sound kernel total (above)"
  if [[ "${IR_CROSSCHECK:-0}" != 0 ]]; then
    local toggles=(--toggle-collect="$kglob") old
    [[ -n "$dev" ]] && toggles+=(--toggle-collect="$dglob")
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.t" --collect-atstart=no "${toggles[@]}" \
      "$BIN" "$scen" > /dev/null 2>&1 || ir_fail "$scen: khal_ir failed"
    old=$(awk '/^summary:/ {print $2}' "$WORK/cg.t")
    local same="$scen: inclusive $total, toggled $old (kernel $kglob${dglob:+, device $dglob})"
    [[ -n "${IR_CROSSCHECK_LOG:-}" ]] && echo "$same" >> "$IR_CROSSCHECK_LOG"
    [[ "$old" == "$total" || "$IR_CROSSCHECK" == report ]] || ir_fail "$same: not the same"
  fi
  [[ -n "$total" && -n "$ops" && "$ops" -gt 0 ]] || ir_fail "no callgrind total for $scen"
  awk -v t="$total" -v n="$ops" 'BEGIN { printf "%.3f", t / n }'
}
