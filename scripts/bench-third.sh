#!/usr/bin/env bash
# The third checker's cases (tests/src/bin/khal_ir/chk3.rs): prints ONE JSON
# object on stdout, `checker_cases.third` of scripts/bench.sh's summary.
#
#   scripts/bench-third.sh [path/to/khal_ir]   # default: target/release/khal_ir
#
# Each kernel is counted alone by callgrind (scripts/ir.sh: its inclusive
# cost), the device's writes (*ir_k3dev_*) excluded, and divided
# by the scenario's operation count (entries drained, accesses, registers
# written, or N polls). Every khal figure has its references in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-${CARGO_TARGET_DIR:-$PWD/target}/release/khal_ir}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
log() { echo "[bench-third] $*" >&2; }

# The device's writes (*ir_k3dev_*) excluded from every kernel's count.
source scripts/ir.sh
ir3() { ir "$1" "$2" k3dev; }
kern() { case $1 in cphase) echo k3_cphase;; ctail) echo k3_ctail;; iter) echo k3_iter;; *) echo k3_drain;; esac; }
pkern() { case $1 in cphase) echo k3_pair_cphase;; ctail) echo k3_pair_ctail;; *) echo k3_pair_drain;; esac; }
# rows <prefix> <kernel of a consumer> <case>...: one JSON object, each
# case's Ir per entry of `khal_ir <prefix><case>` through the kernel that
# `<kernel of a consumer>` names for the case's consumer (its first field).
rows() {
  local pre=$1 kof=$2 j="{" sep="" s
  shift 2
  for s in "$@"; do
    j="$j$sep\"$s\":$(ir3 "$pre$s" "$("$kof" "${s%%:*}")")"; sep=","
  done
  echo "$j}"
}

log "NQ: bursty arrivals, ring of 64, k per call, tail mode, drain_iter"
NQ=$(rows k3: kern \
  phase:dmabuf:4096:16:b iter:dmabuf:4096:16:b tail:dmabuf:4096:16:b cphase:dmabuf:4096:16:b ctail:dmabuf:4096:16:b \
  phase:dmabuf:4096:4:b cphase:dmabuf:4096:4:b ctail:dmabuf:4096:4:b \
  phase:static:64:16:b cphase:static:64:16:b ctail:static:64:16:b \
  phase:static:64:4:b cphase:static:64:4:b ctail:static:64:4:b \
  phase:static:64:1:1 phase:static:64:16:1 phase:dmabuf:64:16:1 cphase:static:64:1:1 ctail:static:64:1:1 \
  phase:dmabuf:4096:1:1 cphase:dmabuf:4096:1:1 ctail:dmabuf:4096:1:1 phase:static:4096:1:1 \
  phase:dmabuf:4096:16:1 cphase:dmabuf:4096:16:1 ctail:dmabuf:4096:16:1 \
  phase:dmabuf:4096:16:2 cphase:dmabuf:4096:16:2 ctail:dmabuf:4096:16:2 \
  phase:dmabuf:4096:16:3 cphase:dmabuf:4096:16:3 ctail:dmabuf:4096:16:3 \
  phase:dmabuf:4096:16:8 cphase:dmabuf:4096:16:8 ctail:dmabuf:4096:16:8 \
  tail:dmabuf:4096:16:1 tail:dmabuf:4096:16:2 tail:dmabuf:4096:16:4 ctail:dmabuf:4096:16:4 tail:static:64:16:1 \
  iter:dmabuf:4096:16:1 iter:dmabuf:4096:1:1 iter:static:64:16:1)

log "NQ: two rings polled alternately"
PAIR=$(rows k3pair: pkern \
  phase:dmabuf:4096:16:b cphase:dmabuf:4096:16:b ctail:dmabuf:4096:16:b \
  phase:static:64:16:b cphase:static:64:16:b ctail:static:64:16:b \
  phase:static:64:16:1 cphase:static:64:16:1 ctail:static:64:16:1)

log "NQ: idle polls (one poll = two per iteration minus one)"
IDLE="{"
sep=""
for s in tail:dmabuf:4096 ctail:dmabuf:4096 phase:static:64 cphase:static:64 phase:dmabuf:4096 tail:static:64; do
  c=${s%%:*}
  case $c in cphase) k=k3_cidlep;; ctail) k=k3_cidlet;; *) k=k3_idle;; esac
  a=$(ir3 "k3idle:$s:1" $k); b=$(ir3 "k3idle:$s:2" $k)
  IDLE="$IDLE$sep\"$s\":$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", b-a}')"; sep=","
done
IDLE="$IDLE}"

log "CSR: the default lookup on the arch windows, refused accesses, csr_write_array of 8"
CSR="{"
sep=""
for s in fw2:u fw2:z s3:u s3:z c5:u c5:z c6:u c6:z c7:u c7:z c8:u c8:z b8:u fw2:miss c8:miss; do
  CSR="$CSR$sep\"$s\":{\"khal\":$(ir3 "k3csr:$s" k3_csr),\"raw_add\":$(ir3 "k3raw:$s" k3_craw),\"c_linear\":$(ir3 "k3lin:$s" k3_clin)}"; sep=","
done
CSR="$CSR}"
ARR="{"
sep=""
for l in fw2 c8; do
  ARR="$ARR$sep\"$l\":{\"khal\":$(ir3 "k3arr:khal:$l" k3_warr),\"c\":$(ir3 "k3arr:c:$l" k3_cwarr),\"raw\":$(ir3 "k3arr:raw:$l" k3_rwarr)}"; sep=","
done
ARR="$ARR}"

echo "{\"nq_ir_per_entry\":$NQ,\"pair_ir_per_entry\":$PAIR,\"idle_poll_ir\":$IDLE,\"csr_read_ir\":$CSR,\"csr_write_array_ir_per_register\":$ARR}"
