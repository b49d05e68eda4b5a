#!/usr/bin/env bash
# khal's bench harness: prints ONE JSON summary on stdout (progress on stderr).
#
#   scripts/bench.sh            # everything (callgrind + firmware sizes + time benches)
#   scripts/bench.sh --quick    # skip the criterion/time benches (cargo bench)
#
# Instruction counts (Ir) come from valgrind's callgrind, which is deterministic
# (the glibc memcpy reference is not: at 64 KiB glibc uses `rep movsb`, which
# callgrind counts as one Ir per byte; `sse_copy_per_entry` is a 16-byte-move
# copy loop callgrind counts as the CPU runs it; see docs/PERFORMANCE.md):
# each measured kernel of tests/src/bin/khal_ir is counted alone (its
# inclusive cost, scripts/ir.sh) and divided by its operation count. Time figures are ratios of medians of interleaved runs,
# measured in the same process. See docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TERM_COLOR=never
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
QUICK=0
[[ "${1:-}" == "--quick" ]] && QUICK=1
log() { echo "[bench] $*" >&2; }

command -v valgrind >/dev/null || { log "valgrind is required (apt-get install valgrind)"; exit 1; }

log "building the callgrind driver (release)"
cargo build --release -p khal-tests --bin khal_ir >&2
BIN="$TARGET_DIR/release/khal_ir"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# ir <scenario> <kernel> [<device>]: Ir of the kernel per operation
# (scripts/ir.sh: the kernel's inclusive cost, its calls of the device's
# writes *ir_<device>_* excluded; fails on a call graph it cannot split).
source scripts/ir.sh
python3 scripts/cg-kernel-test.py
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "null"; else printf "%.3f", a / b }'; }

log "callgrind: registers"
RW=$(ir raw_write raw_write);            TW=$(ir typed_write typed_write)
RR=$(ir raw_read raw_read);              TR=$(ir typed_read typed_read)
RAW=$(ir raw_array_write raw_array_write); TAW=$(ir typed_array_write typed_array_write)
TWO=$(ir typed_write_opaque typed_write_opaque)
log "callgrind: NQ drain"
DD=$(ir nq_drain_dmabuf nq_drain); DW=$(ir nq_drain_word nq_drain); MC=$(ir memcpy memcpy)
SSE=$(ir copy_sse copy_sse)
log "callgrind: NQ side by side (phase / phase at the default max_batch / tail / drain_iter / C-style reference / C over raw pointers; DmaBuf and StaticDma; 1, 8, 64, 1024 per call)"
kernel_of() { case $1 in iter) echo nq_iter;; cref) echo c_ref;; idle) echo nq_idle;; *) echo nq_drain;; esac; }
# add <key> <scenario> <kernel>: `,"<key>":<the kernel's Ir per entry>` onto $row.
add() { row="$row,\"$1\":$(ir "$2" "$3")"; }
SIDE="{"
sep=""
for b in 1 8 64 1024; do
  row="{"
  rsep=""
  for m in phase tail iter cref; do
    v=$(ir "nq:$m:dmabuf:$b" "$(kernel_of $m)")
    row="$row$rsep\"$m\":$v"; rsep=","
  done
  for m in phase tail iter; do
    add "${m}_static" "nq:$m:static:$b" "$(kernel_of $m)"
  done
  # The default max_batch (128) with an out of <b> entries: what a caller
  # who never sets max_batch runs (issue 12; at 1, the one-entry path).
  # The C references over raw pointers (khal_ir craw.rs: the third
  # checker's C phase poll and C tail poll, the registers through raw
  # volatile pointers with no Mmio window check, as C firmware writes them)
  # over the same ring and register buffer: 4096 / 4095 entries.
  add c_raw_phase "nq:crawphase:dmabuf:$b" c_raw_phase
  add c_raw_tail "nq:crawtail:dmabuf:$b" c_raw_tail
  add phasedef "nq:phasedef:dmabuf:$b" nq_drain
  add phasedef_static "nq:phasedef:static:$b" nq_drain
  # The pre-issue-14 DmaBuf (volatile byte scan + plain memcpy; unsound under
  # threads, tests/src/bin/khal_ir/refs.rs): what the sound copy costs against it.
  add phase_volatile "nq:phase:volatile:$b" nq_drain
  # DmaBuf's one-pass copy with plain loads instead of atomics (refs.rs).
  add phase_plain "nq:phase:plain:$b" nq_drain
  SIDE="$SIDE$sep\"$b\":$row}"; sep=","
done
SIDE="$SIDE}"
# Idle: one poll per loop iteration, then two; the difference is one poll
# without the kernel's loop (counter, compare, branch, accumulate).
IDLE_D=$(ir nq:idle:dmabuf:128 nq_idle); IDLE_S=$(ir nq:idle:static:128 nq_idle)
IDLE2_D=$(ir nq:idle2:dmabuf:128 nq_idle); IDLE2_S=$(ir nq:idle2:static:128 nq_idle)
POLL_D=$(awk -v a="$IDLE2_D" -v b="$IDLE_D" 'BEGIN{printf "%.3f", a-b}')
POLL_S=$(awk -v a="$IDLE2_S" -v b="$IDLE_S" 'BEGIN{printf "%.3f", a-b}')
# Tail mode at one arrival per call (issue 12): an empty 4096-entry tail-mode
# ring, per call the device writes one entry and publishes its tail
# (ir_nqdev_write, its calls subtracted), then one NqRing::drain
# through an out of 1 (DmaBuf, StaticDma) or one C-style poll (ir_c_arrive:
# the side-by-side reference's poll); two passes (8192 entries, one wrap).
ARR_T=$(ir nq:tailarr:dmabuf:1 nq_arrive nqdev); ARR_TS=$(ir nq:tailarr:static:1 nq_arrive nqdev)
ARR_C=$(ir nq:crefarr:dmabuf:1 c_arrive nqdev)
# The same arrivals through the C tail poll over raw pointers (craw.rs).
ARR_CR=$(ir nq:crawarr:dmabuf:1 c_raw_arrive nqdev)
ARRIVAL="{\"tail\":$ARR_T,\"tail_static\":$ARR_TS,\"cref\":$ARR_C,\"tail_vs_cref\":$(ratio "$ARR_T" "$ARR_C"),\"target_max_vs_cref\":1.3,\"c_raw_tail\":$ARR_CR,\"tail_vs_c_raw_tail\":$(ratio "$ARR_T" "$ARR_CR")}"
log "callgrind: CSR lookup"
C4=$(ir csr_lookup_4 csr_lookup); C8=$(ir csr_lookup_8 csr_lookup); C256=$(ir csr_lookup_256 csr_lookup); RT=$(ir raw_translate raw_translate)
# Two more 8-window layouts (khal_ir kernels.rs): irregular sizes and gaps
# (8b), two clusters 2^47 apart (8m); random address orders.
C8B=$(ir csr_lookup_8b csr_lookup); C8M=$(ir csr_lookup_8m csr_lookup)
# 8 windows through the default lookup (the binary search, no cell index);
# 64 windows both ways, 256 through the cell index (where the search wins).
C8S=$(ir csr_lookup_8s csr_lookup)
C64C=$(ir csr_lookup_64c csr_lookup); C64S=$(ir csr_lookup_64s csr_lookup); C256C=$(ir csr_lookup_256c csr_lookup)
# Per call (khal_ir csr.rs, issue 12's CSR row): one #[inline(never)]
# csr_read per access, against one raw add and the same load, each returning
# its Result, over a backend that loads at the translated address; the
# default lookup (the cell index) and the binary search on each layout
# (<layout>[_cap<N>]: the table's capacity when not the window count;
# khal_ir csr.rs names the layouts: c3 and p8 were built to defeat a cell
# index); a refused access (every address outside every window).
CSRP="{"
sep=""
for l in fw2:4 s3 b4 c5 r5 c6 r6 c7 p7 b8 8b 8m c8 t8 c3 p8 b16 g16 b64; do
  lay=${l%%:*}; cap=""; key=$lay
  [[ "$l" == *:* ]] && { cap=${l#*:}; key="${lay}_cap$cap"; }
  d=$(ir "csrp:cell:$lay:$cap" csrp_khal); bs=$(ir "csrp:search:$lay:$cap" csrp_khal); r=$(ir "csrp:raw:$lay" csrp_raw)
  CSRP="$CSRP$sep\"$key\":{\"default\":$d,\"binary_search\":$bs,\"raw_add\":$r,\"default_over_raw_add\":$(awk -v a="$d" -v b="$r" 'BEGIN{printf "%.3f", a-b}'),\"binary_search_over_raw_add\":$(awk -v a="$bs" -v b="$r" 'BEGIN{printf "%.3f", a-b}')}"
  sep=","
done
CSRP="$CSRP,\"miss_b8\":{\"default\":$(ir csrp:cell:b8:8:miss csrp_khal),\"binary_search\":$(ir csrp:search:b8:8:miss csrp_khal)},\"target_over_raw_add_max\":10}"
# The independent checker's cases (khal_ir ver.rs): one entry arriving per
# poll (the device's writes, ir_verdev_*, subtracted),
# through an `out` of 16 at the default max_batch, through an `out` of 1, and
# the C-style poll under the same pattern; the idle poll through an `out` of
# one; a 6-window CSR layout with two close pairs in a wide span (uniform,
# and 90% in one window of a pair); 16 and 17 windows.
log "callgrind: checker cases (trickle, idle through an out of one, CSR layouts)"
VT16=$(ir v:phase:dmabuf:4096:16:0:1:0 ver_drain verdev); VT1=$(ir v:phase:dmabuf:4096:1:0:1:0 ver_drain verdev)
VTS16=$(ir v:phase:static:4096:16:0:1:0 ver_drain verdev); VTC=$(ir v:cref:dmabuf:4096:16:1:1:0 ver_cref verdev)
VTS1=$(ir v:phase:static:4096:1:0:1:0 ver_drain verdev)
VTI16=$(ir v:iter:dmabuf:4096:16:0:1:0 ver_iter verdev)
VI1D=$(ir vidle:dmabuf:4096:1:4096 nq_idle); VI1D2=$(ir vidle:dmabuf:4096:1:4096:2 nq_idle)
VI1S=$(ir vidle:static:4096:1:4096 nq_idle); VI1S2=$(ir vidle:static:4096:1:4096:2 nq_idle)
VC6=$(ir vcsr:r6 csr_lookup); VC6H=$(ir vcsr:r6:2 csr_lookup); VR6=$(ir vraw:r6 raw_translate)
# The same r6 through the default lookup (binary search: its decision tree),
# in a table of 6 and of 8 slots (uniform, and hot in window 2 at 8).
VC6S6=$(ir vcsr:r6::6:s csr_lookup); VC6S8=$(ir vcsr:r6::8:s csr_lookup); VC6S8H=$(ir vcsr:r6:2:8:s csr_lookup)
VC16=$(ir vcsr:n16 csr_lookup); VC17=$(ir vcsr:n17 csr_lookup)
# The same 16 / 17 windows through the default lookup (binary search).
VC16S=$(ir vcsr:n16::16:s csr_lookup); VC17S=$(ir vcsr:n17::17:s csr_lookup)
CHECKER="{\"trickle_1_per_poll_ir_per_entry\":{\"phase_out16_default_max_batch\":$VT16,\"phase_out1\":$VT1,\"phase_out16_static\":$VTS16,\"phase_out1_static\":$VTS1,\"drain_iter_16\":$VTI16,\"c_style_out16\":$VTC},\
\"idle_poll_out1\":{\"dmabuf\":$(awk -v a="$VI1D2" -v b="$VI1D" 'BEGIN{printf "%.3f", a-b}'),\"static\":$(awk -v a="$VI1S2" -v b="$VI1S" 'BEGIN{printf "%.3f", a-b}'),\"dmabuf_with_loop\":$VI1D,\"static_with_loop\":$VI1S,\"target_max\":20},\
\"csr_6_close_pairs\":{\"uniform\":$VC6,\"hot_window_2\":$VC6H,\"raw_add\":$VR6,\"over_raw_add\":$(awk -v a="$VC6" -v b="$VR6" 'BEGIN{printf "%.3f", a-b}'),\"over_raw_add_hot\":$(awk -v a="$VC6H" -v b="$VR6" 'BEGIN{printf "%.3f", a-b}'),\"default_6_slots\":$VC6S6,\"default_8_slots\":$VC6S8,\"default_8_slots_hot\":$VC6S8H,\"target_over_raw_add_max\":10},\
\"csr_16_vs_17_windows\":{\"windows_16\":$VC16,\"windows_17\":$VC17,\"windows_16_binary_search\":$VC16S,\"windows_17_binary_search\":$VC17S}}"
# The second checker's cases (khal_ir chk.rs, its own kernels and C-style
# references in the same run): NQ at 1, 2, 3 and 8 per call with one call per
# arrival (device writes excluded: `*ir_chkdev_*`), a ring of 8 wrapping at 1
# per call, tail mode at 1, 2 and 8 per call, drain_iter at 1 per call, one arrival per call
# through an `out` of 16 (the trickle, with both C references: the phase
# driver tests the next entry too), the idle poll right after
# a wrap (StaticDma, an out of 1 and of 128), tail mode's idle poll (the tail
# read finds nothing; StaticDma, DmaBuf); `csr_write` through the cell
# index on layouts the authors did not try (3 windows in 0x140 bytes, windows
# at powers of two apart, 16 windows one hot, misses).
log "callgrind: second checker's cases (NQ per-call sizes, wrap, tail, iter, idle after a wrap; CSR layouts)"
CHK2_NQ="{"
sep=""
for c in phase:dmabuf:4096:1:1 cphase:dmabuf:4096:1:1 ctail:dmabuf:4096:1:1 \
         phase:dmabuf:4096:2:2 cphase:dmabuf:4096:2:2 ctail:dmabuf:4096:2:2 \
         phase:dmabuf:4096:3:3 cphase:dmabuf:4096:3:3 ctail:dmabuf:4096:3:3 \
         phase:dmabuf:4096:8:8 cphase:dmabuf:4096:8:8 ctail:dmabuf:4096:8:8 \
         phase:dmabuf:8:1:1 cphase:dmabuf:8:1:1 ctail:dmabuf:8:1:1 phase:static:8:1:1 phase:static:4096:1:1 \
         tail:dmabuf:4096:1:1 tail:dmabuf:8:1:1 tail:dmabuf:4096:2:2 tail:dmabuf:4096:8:8 iter:dmabuf:4096:1:1 iter:dmabuf:4096:8:8 \
         phase:dmabuf:4096:16:1 phase:static:4096:16:1 cphase:dmabuf:4096:16:1 ctail:dmabuf:4096:16:1; do
  case $c in c*) k=chk_cref;; iter*) k=chk_iter;; *) k=chk_drain;; esac
  CHK2_NQ="$CHK2_NQ$sep\"$c\":$(ir "c:$c" $k chkdev)"; sep=","
done
CHK2_NQ="$CHK2_NQ}"
CHK2_IDLE="{"
sep=""
for c in phase:static:4096:4096:x:1 phase:static:4096:4096:x:128 phase:static:4096:5:x:1 phase:static:8:8:x:1 \
         phase:dmabuf:4096:4096:x:1 cphase:static:4096:4096:x:1 ctail:static:4096:4096:x:1 \
         tail:static:4096:4096:x:1 tail:dmabuf:4096:4096:x:1; do
  a=$(ir "cidle:${c/:x:/:1:}" chk_ chkdev); b=$(ir "cidle:${c/:x:/:2:}" chk_ chkdev)
  CHK2_IDLE="$CHK2_IDLE$sep\"${c/:x:/:out}\":$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", b-a}')"; sep=","
done
CHK2_IDLE="$CHK2_IDLE}"
CHK2_CSR="{"
sep=""
for c in c3:u p8:u g16:u g16:h13 m8:u m8:m50 m8:m100; do
  CHK2_CSR="$CHK2_CSR$sep\"$c\":{\"cell_index\":$(ir "ccsr:$c" chk_csr chkdev),\"binary_search\":$(ir "ccsr:$c:s" chk_csr chkdev),\"default\":$(ir "ccsr:$c:d" chk_csr chkdev),\"raw_add\":$(ir "craw:$c" chk_raw chkdev)}"; sep=","
done
CHK2_CSR="$CHK2_CSR}"
CHECKER="${CHECKER%\}},\"second\":{\"nq_ir_per_entry\":$CHK2_NQ,\"idle_poll_ir\":$CHK2_IDLE,\"csr_write_ir\":$CHK2_CSR}}"
# The third checker's cases (khal_ir chk3.rs, scripts/bench-third.sh): bursty
# arrivals, a ring of 64, k per call through an out of 16, tail mode at 1 / 2 /
# 4 per call and idle, two rings polled alternately, C references through raw
# register pointers; the default CSR lookup on the arch windows, refused
# accesses, csr_write_array of 8 (device writes excluded: `*ir_k3dev_*`).
log "callgrind: third checker's cases (scripts/bench-third.sh)"
THIRD=$(bash scripts/bench-third.sh "$BIN")
CHECKER="${CHECKER%\}},\"third\":$THIRD}"
# The fourth checker's CSR cases (khal_ir chk4.rs): a driver's bring-up
# routine of K dependent accesses to different windows per #[inline(never)]
# call (K = 1: one read alone), through the default Csr<_, N>, the binary
# search, raw pointers with a fixed translation, a C linear scan, and each
# access through the `CsrWindow` of its window resolved before the call
# (`Csr::window`); every answer checked against a linear model. Ir per access.
log "callgrind: fourth checker's CSR routines (chk4.rs)"
FOURTH="{"
sep=""
for l in fw2:4 c8 b8 8b r8s4 p8 r64; do
  lay=${l%%:*}; cap=""; key=$lay
  [[ "$l" == *:* ]] && { cap=":${l#*:}"; key="${lay}_cap${l#*:}"; }
  for k in 1 4 8; do
    FOURTH="$FOURTH$sep\"$key:$k\":{\"default\":$(ir "k4:cell:$lay:$k$cap" k4_khal),\"binary_search\":$(ir "k4:search:$lay:$k$cap" k4_khal),\"raw\":$(ir "k4:raw:$lay:$k$cap" k4_raw),\"c_scan\":$(ir "k4:scan:$lay:$k$cap" k4_scan),\"window\":$(ir "k4:win:$lay:$k$cap" k4_win)}"
    sep=","
  done
done
FOURTH="$FOURTH}"
CHECKER="${CHECKER%\}},\"fourth\":$FOURTH}"
# The fifth checker's CSR window cases (khal_ir chk5.rs, kernels written
# apart from chk4.rs): an engine holding three `CsrWindow`s as fields brings
# itself up through `&self` (a read-modify-write, a bounded status poll,
# writes from the reads; one call in four times out) against a raw base
# pointer per block and against csr_read / csr_write; K = 2 / 3 / 4 / 16
# chained accesses through windows over odd-sized, misaligned-translation
# and top-of-address-space regions against raw pointers with a fixed
# translation, and with one call in 8 refused (miss8); 16 registers filled
# in a loop through one window. Ir per access (a refused access counted).
log "callgrind: fifth checker's CSR windows (chk5.rs)"
FIFTH="{"
sep=""
for l in e3 odd top; do
  FIFTH="$FIFTH$sep\"eng:$l\":{\"window\":$(ir "k5eng:win:$l" k5_eng_win),\"raw\":$(ir "k5eng:raw:$l" k5_eng_raw),\"csr\":$(ir "k5eng:csr:$l" k5_eng_csr)}"
  sep=","
  for k in 2 3 4 16; do
    FIFTH="$FIFTH,\"chain:$l:$k\":{\"window\":$(ir "k5ch:win:$l:$k" k5_ch_win),\"raw\":$(ir "k5ch:raw:$l:$k" k5_ch_raw),\"window_miss8\":$(ir "k5ch:win:$l:$k:miss8" k5_ch_win)}"
  done
done
FIFTH="$FIFTH,\"fill16\":{\"window\":$(ir k5fill:win k5_fill_win),\"raw\":$(ir k5fill:raw k5_fill_raw),\"burst\":$(ir k5fill:burst k5_fill_burst),\"window_n\":$(ir k5fill:winn k5_fill_winn),\"raw_n\":$(ir k5fill:rawn k5_fill_rawn)}}"
CHECKER="${CHECKER%\}},\"fifth\":$FIFTH}"
log "thumbv7em register access (disassembly of firmware/fw-probe)"
PROBE=$(bash scripts/access-probe.sh | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({k: v["instructions"] for k, v in d.items()}))')
log "executed instructions per call on thumbv7em and riscv32 (QEMU trace of ontarget/khal-tcount)"
TCOUNT=$(bash scripts/target-count.sh --check)
log "exact MMIO counts (Counting backend)"
COUNTS=$("$BIN" counts)
log "NQ drain time vs memcpy (21 interleaved reps)"
NQTIME=$("$BIN" time)

log "callgrind: static vs AnyArch dispatch (CAYMAN)"
SA=$(ir dispatch_static_axi dispatch_static_axi); AA=$(ir dispatch_any_axi dispatch_any_axi)
SR=$(ir dispatch_static_rmw dispatch_static_rmw); AR=$(ir dispatch_any_rmw dispatch_any_rmw)
DISPATCH="{\"get_axi_offset\":{\"static\":$SA,\"anyarch\":$AA,\"anyarch_vs_static\":$(ratio "$AA" "$SA")},\
\"events_semaphores_nt_rmw\":{\"static\":$SR,\"anyarch\":$AR,\"anyarch_vs_static\":$(ratio "$AR" "$SR")}}"

log "firmware examples: .text sizes"
FW="{}"
# The C memory functions (memcpy / memmove / memset / memclr and their
# __aeabi_ entry points) linked into each image: their bytes, and which
# functions call them how often (from the disassembly): what a stray struct
# move, byte-copy loop or zero fill costs, and where it comes from.
MEMFN="{}"
OBJDUMP=""
for c in "$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-objdump" \
         "$(command -v llvm-objdump || true)" "$(command -v arm-none-eabi-objdump || true)"; do
  if [[ -n "$c" && -x "$c" ]]; then OBJDUMP=$c; break; fi
done
memfn() {
  local elf=$1
  [[ -n "$OBJDUMP" ]] || { echo null; return; }
  python3 - "$elf" "$OBJDUMP" <<'PY'
import json, re, subprocess, sys
elf, objdump = sys.argv[1], sys.argv[2]
mem = re.compile(r"^(__aeabi_mem\w+|compiler_builtins::mem::\w+|mem(cpy|move|set|cmp))$")
funcs = []
for line in subprocess.run(["nm", "-S", "-C", elf], capture_output=True, text=True, check=True).stdout.splitlines():
    f = line.split(None, 3)
    if len(f) == 4 and f[2] in "tT":
        name = re.sub(r"::h[0-9a-f]{16}$", "", f[3])
        funcs.append((int(f[0], 16) & ~1, int(f[1], 16), name))
def at(a):
    for s, n, name in funcs:
        if s <= a < s + n:
            return name
    return None
size = sum(n for _, n, name in funcs if mem.match(name))
callers = {}
dis = subprocess.run([objdump, "-d", "--no-show-raw-insn", elf], capture_output=True, text=True, check=True).stdout
for m in re.finditer(r"^\s*([0-9a-f]+):\s+bl?(?:\.w)?\s+0x([0-9a-f]+)", dis, re.M):
    src, dst = at(int(m.group(1), 16)), at(int(m.group(2), 16))
    if dst and mem.match(dst) and src and not mem.match(src):
        key = "%s -> %s" % (src, dst)
        callers[key] = callers.get(key, 0) + 1
print(json.dumps({"bytes": size, "callers": dict(sorted(callers.items()))}))
PY
}
if [[ -f firmware/Cargo.toml ]]; then
  if (cd firmware && CARGO_TARGET_DIR="$ROOT/firmware/target" cargo build --release >&2); then
    FW="{"
    MEMFN="{"
    sep=""
    for ex in $(sed -n 's/^name = "\(fw-[a-z]*\)"/\1/p' firmware/Cargo.toml); do
      elf="firmware/target/thumbv7em-none-eabihf/release/$ex"
      [[ -f "$elf" ]] || continue
      text=$(size -A "$elf" | awk '$1 == ".text" {print $2}')
      mem=$(memfn "$elf")
      FW="$FW$sep\"$ex\":${text:-null}"
      MEMFN="$MEMFN$sep\"$ex\":${mem:-null}"
      sep=","
    done
    FW="$FW}"
    MEMFN="$MEMFN}"
  else
    FW='"firmware build failed"'
  fi
fi

TIMEB="{}"
if [[ $QUICK == 0 ]]; then
  log "time benches (cargo bench -p khal-tests): each prints one JSON line"
  TIMEB="{"
  sep=""
  for b in tests/benches/*.rs; do
    name=$(basename "$b" .rs)
    line=$(cargo bench -p khal-tests --bench "$name" 2>/dev/null | grep -E '^\{' | tail -1 || true)
    TIMEB="$TIMEB$sep\"$name\":${line:-\"pending: prints no JSON line yet\"}"
    sep=","
  done
  TIMEB="$TIMEB}"
fi

cat <<JSON
{
  "commit": "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)",
  "callgrind_ir_per_op": {
    "register_write": {"typed": $TW, "raw": $RW, "typed_vs_raw": $(ratio "$TW" "$RW"), "target": 1.00},
    "register_read": {"typed": $TR, "raw": $RR, "typed_vs_raw": $(ratio "$TR" "$RR"), "target": 1.00},
    "register_array_write": {"typed": $TAW, "raw": $RAW, "typed_vs_raw": $(ratio "$TAW" "$RAW"), "target": 1.00},
    "register_write_opaque_window": {"typed": $TWO, "raw": $RW, "typed_vs_raw": $(ratio "$TWO" "$RW")},
    "nq_drain_per_entry": {"dmabuf": $DD, "word_ring": $DW, "memcpy_per_entry": $MC, "sse_copy_per_entry": $SSE, "target_max": 20},
    "csr_per_call": $CSRP,
    "csr_lookup": {"windows_4": $C4, "windows_8": $C8, "windows_256": $C256, "ratio_256_vs_4": $(ratio "$C256" "$C4"), "raw_add": $RT, "over_raw_add_4": $(awk -v a="$C4" -v b="$RT" 'BEGIN{printf "%.3f", a-b}'), "over_raw_add_8": $(awk -v a="$C8" -v b="$RT" 'BEGIN{printf "%.3f", a-b}'), "windows_8_irregular": $C8B, "windows_8_mesh": $C8M, "windows_8_binary_search": $C8S, "windows_64_cell_index": $C64C, "windows_64_binary_search": $C64S, "windows_256_cell_index": $C256C, "over_raw_add_8_binary_search": $(awk -v a="$C8S" -v b="$RT" 'BEGIN{printf "%.3f", a-b}'), "over_raw_add_8_irregular": $(awk -v a="$C8B" -v b="$RT" 'BEGIN{printf "%.3f", a-b}'), "over_raw_add_8_mesh": $(awk -v a="$C8M" -v b="$RT" 'BEGIN{printf "%.3f", a-b}'), "target_over_raw_add_max": 10, "linear_scan_would_be": 64}
  },
  "nq_ir_per_entry_by_batch": $SIDE,
  "nq_tail_one_arrival_per_call_ir_per_entry": $ARRIVAL,
  "nq_idle_poll_ir_per_call": {"dmabuf": $POLL_D, "static": $POLL_S, "dmabuf_with_bench_loop": $IDLE_D, "static_with_bench_loop": $IDLE_S, "bench_loop": $(awk -v a="$IDLE_D" -v b="$POLL_D" 'BEGIN{printf "%.3f", a-b}'), "target_max": 20},
  "thumbv7em_access_instructions": $PROBE,
  "target_instructions_per_call": $TCOUNT,
  "nq_mmio_counts": $COUNTS,
  "nq_drain_time": $NQTIME,
  "dispatch_ir_per_call_static_vs_anyarch": $DISPATCH,
  "firmware_text_bytes": $FW,
  "firmware_mem_fns": $MEMFN,
  "time_benches": $TIMEB,
  "checker_cases": $CHECKER
}
JSON
