#!/usr/bin/env bash
# Register access cost on thumbv7em-none-eabihf, from the disassembly of the
# probe functions of examples/firmware/src/bin/fw-probe.rs (release, LTO): prints one
# JSON object on stdout, instructions per probe, prologue/epilogue excluded.
#
#   scripts/access-probe.sh           # build the firmware, print the counts
#   scripts/access-probe.sh --check   # also fail unless a bound register's
#                                     # write and read (mmio::bound BoundReg)
#                                     # are as many instructions as the raw
#                                     # store, and the raw store is one
#
# A probe's "access" is every instruction of its body except the frame
# set-up and return the target adds around any call (`push {r7, lr}`,
# `mov r7, sp`, `pop {r7, pc}`, `bx lr`): what is left is what an inlined
# access costs at its call site.
set -euo pipefail
cd "$(dirname "$0")/.."
CHECK=0
[[ "${1:-}" == "--check" ]] && CHECK=1
log() { echo "[access-probe] $*" >&2; }

# An objdump that knows Thumb-2: rustup's llvm-tools, else the system's
# llvm-objdump, else binutils-arm-none-eabi.
OBJDUMP=""
for c in "$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-objdump" \
         "$(command -v llvm-objdump || true)" "$(command -v arm-none-eabi-objdump || true)"; do
  if [[ -n "$c" && -x "$c" ]]; then OBJDUMP=$c; break; fi
done
[[ -n "$OBJDUMP" ]] || { log "no objdump for Thumb-2 (rustup component add llvm-tools)"; exit 1; }

log "building examples/firmware's fw-probe (thumbv7em-none-eabihf, release)"
source scripts/cargo-exe.sh
# The probes are arch-independent; the facade needs one arch on a firmware build.
ELF=$(cd examples && cargo_exe_path fw-probe --release --target thumbv7em-none-eabihf \
  -p khal-example-firmware --features cayman --bin fw-probe)

"$OBJDUMP" -d --no-show-raw-insn "$ELF" | python3 -c '
import json, re, sys
check = sys.argv[1] == "1"
funcs, cur = {}, None
for line in sys.stdin:
    m = re.match(r"^[0-9a-f]+ <(khal_probe_\w+)>:", line)
    if m:
        cur = m.group(1); funcs[cur] = []; continue
    if cur is None: continue
    if not line.strip():
        cur = None; continue
    m = re.match(r"^\s*[0-9a-f]+:\s+(\S+)\s*(.*?)\s*$", line)
    if m:
        funcs[cur].append((m.group(1) + " " + re.sub(r"\s+", " ", m.group(2))).strip())
frame = re.compile(r"^(push(\.w)?\s+\{r7, lr\}|mov\s+r7, sp|pop(\.w)?\s+\{r7, (pc|lr)\}|bx\s+lr)")
out = {}
for name, ins in sorted(funcs.items()):
    body = [i for i in ins if not frame.match(i)]
    out[name[len("khal_probe_"):]] = {"instructions": len(body), "body": body}
gated = ["reg_write", "reg_read"]
print(json.dumps(out, indent=1))
if check:
    bad = 0
    missing = [g for g in gated + ["raw_write"] if g not in out]
    if missing:
        print("missing probes: %s" % missing, file=sys.stderr); sys.exit(1)
    raw = out["raw_write"]["instructions"]
    for g in gated:
        n = out[g]["instructions"]
        ok = n == raw
        bad += not ok
        print("%-28s %2d instr  %s" % (g, n, "ok (= raw %d)" % raw if ok else "FAILED (raw %d)" % raw), file=sys.stderr)
    if raw != 1:
        print("raw reference is not one store: the probe method is broken", file=sys.stderr); bad += 1
    sys.exit(1 if bad else 0)
' "$CHECK"
