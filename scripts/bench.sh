#!/usr/bin/env bash
# khal's bench harness: prints ONE JSON summary on stdout (progress on stderr),
# the input of scripts/gates.py (.ci/proof) and scripts/perf-doc.py.
#
#   scripts/bench.sh            # everything, the time benches (cargo bench) too
#   scripts/bench.sh --quick    # without the time benches (what CI runs)
#
# Host figures are callgrind instruction counts (Ir), deterministic: each
# kernel of tests/src/bin/khal_ir is counted alone (its inclusive cost,
# scripts/ir.sh) and divided by its operation count. Every khal figure has
# its C-style reference in the same run. Then the thumbv7em disassembly of
# examples/firmware's fw-probe (scripts/access-probe.sh), the executed
# instructions per call under QEMU (scripts/target-count.sh) and the .text of
# the firmware images of examples/ (scripts/fw-size.sh).
# Build outputs are found where cargo puts them (CARGO_TARGET_DIR honoured).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
QUICK=0
[[ "${1:-}" == "--quick" ]] && QUICK=1
log() { echo "[bench] $*" >&2; }
source scripts/cargo-exe.sh

command -v valgrind >/dev/null || { log "valgrind is required (apt-get install valgrind)"; exit 1; }

log "building the callgrind driver (release)"
BIN=$(cargo_exe_path khal_ir --release -p khal-tests --bin khal_ir)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# ir <scenario> <kernel>: the kernel's Ir per operation.
source scripts/ir.sh
python3 scripts/cg-kernel-test.py
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }

log "callgrind: NQ drain beside the C-style consumers (1, 8, 64, 1024 entries per call)"
NQ="{"
sep=""
for b in 1 8 64 1024; do
  NQ="$NQ$sep\"$b\":{\"phase\":$(ir "nq:phase:dmabuf:$b" nq_drain),\"iter\":$(ir "nq:iter:dmabuf:$b" nq_iter)"
  NQ="$NQ,\"c_style\":$(ir "nq:cref:dmabuf:$b" c_ref),\"c_phase\":$(ir "nq:cphase:dmabuf:$b" c_phase)"
  NQ="$NQ,\"phase_static\":$(ir "nq:phase:static:$b" nq_drain)}"
  sep=","
done
NQ="$NQ}"

log "callgrind: idle polls (two polls per iteration minus one)"
idle() { sub "$(ir "nq:${1}2:$2:1" "$3")" "$(ir "nq:$1:$2:1" "$3")"; }
IDLE="{\"khal\":$(idle idle dmabuf nq_idle),\"khal_static\":$(idle idle static nq_idle)"
IDLE="$IDLE,\"c_style\":$(idle cidle dmabuf c_idle),\"c_phase\":$(idle cpidle dmabuf cphase_idle)}"

log "callgrind: an access through a resolved CSR window against a raw one"
CSR="{"
sep=""
for op in read write; do
  CSR="$CSR$sep\"$op\":{\"window\":$(ir "csr:window:$op" "csr_win_$op"),\"raw\":$(ir "csr:raw:$op" "csr_raw_$op")}"
  sep=","
done
CSR="$CSR}"

log "callgrind: a typed register access against a raw one"
REG="{"
sep=""
for op in read write; do
  REG="$REG$sep\"$op\":{\"typed\":$(ir "reg:typed:$op" "typed_$op"),\"raw\":$(ir "reg:raw:$op" "raw_$op")}"
  sep=","
done
REG="$REG}"

log "thumbv7em register access (disassembly of examples/firmware's fw-probe)"
# The method's own check: the raw store's probe is one instruction.
PROBE=$(bash scripts/access-probe.sh | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("raw_write", {}).get("instructions") != 1:
    sys.exit("access-probe: the raw store is not one instruction: the probe method is broken")
print(json.dumps({k: v["instructions"] for k, v in d.items()}))')

log "executed instructions per call on thumbv7em and riscv32 (QEMU trace of ontarget/khal-tcount)"
TCOUNT=$(bash scripts/target-count.sh --check)

log "firmware images: .text and its largest functions"
FW=$(bash scripts/fw-size.sh)

TIMEB="{}"
if [[ $QUICK == 0 ]]; then
  log "time benches (cargo bench -p khal-tests): each prints one JSON line"
  TIMEB="{"
  sep=""
  for b in tests/benches/*.rs; do
    name=$(basename "$b" .rs)
    line=$(cargo bench -p khal-tests --bench "$name" 2>/dev/null | grep -E '^\{' | tail -1 || true)
    TIMEB="$TIMEB$sep\"$name\":${line:-null}"
    sep=","
  done
  TIMEB="$TIMEB}"
fi

cat <<JSON
{
  "commit": "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)",
  "nq_ir_per_entry": $NQ,
  "idle_poll_ir": $IDLE,
  "csr_window_ir_per_access": $CSR,
  "register_ir_per_access": $REG,
  "thumbv7em_access_instructions": $PROBE,
  "target_instructions_per_call": $TCOUNT,
  "firmware": $FW,
  "time_benches": $TIMEB
}
JSON
