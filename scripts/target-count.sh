#!/usr/bin/env bash
# Executed instructions per call of khal's hot paths and of C-style
# references, on the targets' instruction sets: the probe image
# ontarget/src/tcount.rs (`khal-tcount`, built like the firmware: opt-level
# "s", LTO, one codegen unit) runs under QEMU with one instruction per
# translation block and an execution trace (`-d exec,nochain`: one line per
# executed instruction); this script counts, for every call of a probe, the
# instructions from the probe's entry to the first instruction back in the
# driver (`tcount_drive`): the probe's frame, its body and everything it
# calls (another probe's function included: nothing toggles), without the
# caller's call instruction; --check also fails unless every count started
# at a call in tcount_drive and ended right after it (a probe called from a
# helper, or one calling back into the driver, would count something else).
# Deterministic: no timing, no cache, the same count on every run of the
# same image.
#
#   scripts/target-count.sh            # one JSON object on stdout
#   scripts/target-count.sh --check    # also fail unless every scenario the
#                                      # gates read ran its calls, every other
#                                      # one called one probe, and the image
#                                      # reported success
# Knob: TARGET_COUNT_TARGETS (default "thumbv7em-none-eabihf riscv32imac-unknown-none-elf").
set -euo pipefail
cd "$(dirname "$0")/.."
CHECK=0
[[ "${1:-}" == "--check" ]] && CHECK=1
log() { echo "[target-count] $*" >&2; }
source scripts/cargo-exe.sh

if ! command -v qemu-system-arm > /dev/null || ! command -v qemu-system-riscv32 > /dev/null; then
  log "installing qemu-system-arm and qemu-system-misc (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq > /dev/null
  apt-get install -y -qq --no-install-recommends qemu-system-arm qemu-system-misc > /dev/null
fi
if command -v rustup > /dev/null; then
  rustup target add thumbv7em-none-eabihf riscv32imac-unknown-none-elf > /dev/null 2>&1 || true
fi
# One guest instruction per translation block: `-singlestep` (QEMU <= 8.0),
# `-accel tcg,one-insn-per-tb=on` (QEMU >= 8.1).
one_insn() {
  if "$1" -help | grep -q -- '^-singlestep'; then
    echo "-singlestep"
  else
    echo "-accel tcg,one-insn-per-tb=on"
  fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results"
: > "$results"
for target in ${TARGET_COUNT_TARGETS:-thumbv7em-none-eabihf riscv32imac-unknown-none-elf}; do
  short=${target%%-*}
  log "building khal-tcount for $target (profile tcount: opt-level s, LTO)"
  elf=$(cd ontarget && cargo_exe_path khal-tcount --quiet --profile tcount --target "$target" --features cayman --bin khal-tcount)
  trace="$work/$short.trace"
  case "$target" in
    thumbv7em-*) qemu=qemu-system-arm; machine=(-M mps2-an386) ;;
    riscv32*) qemu=qemu-system-riscv32; machine=(-M virt -bios none) ;;
  esac
  log "running it under $qemu ${machine[*]} (one instruction per block, exec trace)"
  # shellcheck disable=SC2046 # one_insn prints the option words
  status=0
  timeout 300 "$qemu" "${machine[@]}" -nographic -monitor none \
    -semihosting-config enable=on,target=native -kernel "$elf" \
    $(one_insn "$qemu") -d exec,nochain -D "$trace" > "$work/$short.out" 2>&1 || status=$?
  nm -S "$elf" > "$work/$short.nm"
  echo "$short $status $work/$short.out $work/$short.nm $trace $("$qemu" --version | head -1 | sed 's/ *(.*//')" >> "$results"
done

COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown) \
python3 - "$results" "$CHECK" <<'PY'
import json, os, re, sys
results, check = sys.argv[1], sys.argv[2] == "1"
CALLS = 8
# The scenarios the gates read -> (probe, calls): what tcount_drive runs
# after each marker; each must be there with exactly these calls. Every
# other marker of the image is reported too, its calls of one probe counted.
expected = {
    "drain1": ("tcp_drain", CALLS), "idle1": ("tcp_drain", CALLS),
    "c_phase1": ("tcp_c_phase", CALLS), "c_one_idle1": ("tcp_c_one", CALLS),
    "raw_write": ("tcp_raw_write", CALLS),
}
out, bad = {"commit": os.environ.get("COMMIT", "unknown")}, []
pc_re = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/[^\]]*\] ?(\S*)")
# A symbol's readable tail: `khal_core::mmio::volatile::VolatileWindow::store`
# from its mangled name (v0 or legacy), for the per-function breakdown.
def short_sym(name):
    if not name.startswith("_ZN"):
        return name
    parts, i = [], 3
    while i < len(name) and name[i].isdigit():
        j = i
        while name[j].isdigit():
            j += 1
        n = int(name[i:j])
        parts.append(name[j:j + n])
        i = j + n
    parts = [q for q in parts if not re.fullmatch(r"h[0-9a-f]{16}", q)]
    tail = "::".join(parts[-2:]) if parts else name
    for a, b in (("$LT$", "<"), ("$GT$", ">"), ("$C$", ","), ("$u20$", " "), ("..", "::"), ("_<impl ", "<impl ")):
        tail = tail.replace(a, b)
    return tail
for line in open(results):
    short, status, outf, nmf, trace, qver = line.split(None, 5)
    syms = {}
    for l in open(nmf):
        f = l.split()
        if len(f) == 4 and f[2] in "tT" and re.match(r"^(tc[mp]_\w+|tcount_drive)$", f[3]):
            syms[f[3]] = (int(f[0], 16) & ~1, int(f[1], 16))
    drive = syms.get("tcount_drive")
    markers = {a: n[4:] for n, (a, _) in syms.items() if n.startswith("tcm_")}
    # Probes by address: the linker folds probes whose code is identical
    # into one function (every name at that address is that call's).
    probes = {}
    for n, (a, _) in sorted(syms.items()):
        if n.startswith("tcp_"):
            probes.setdefault(a, []).append(n)
    calls = {}
    scen, probe, count = None, None, 0
    funcs, first_call = {}, {}
    total, pc, call_pc = 0, None, None
    if drive is None:
        bad.append("%s: no tcount_drive symbol" % short)
        continue
    d0, d1 = drive[0], drive[0] + drive[1]
    for l in open(trace):
        m = pc_re.match(l)
        if not m:
            continue
        total += 1
        last, pc = pc, int(m.group(1), 16)
        if probe is not None:
            if d0 <= pc < d1:
                # The count ends where the probe's call returns to: the
                # instruction after the driver's call (2 or 4 bytes on).
                # Anything else (the probe called from a helper the driver
                # calls, a probe calling back into the driver) would count
                # what is not the probe's, or stop short.
                if not (call_pc is not None and d0 <= call_pc < d1 and 2 <= pc - call_pc <= 4):
                    bad.append("%s %s: %s entered from %s, back in tcount_drive at %#x: not a direct call's return"
                               % (short, scen, probe, "%#x" % call_pc if call_pc is not None else "nowhere", pc))
                calls.setdefault(scen, []).append((probe, count))
                first_call.setdefault(scen, funcs)
                probe = None
            else:
                count += 1
                f = short_sym(m.group(2))
                funcs[f] = funcs.get(f, 0) + 1
            continue
        if pc in markers:
            scen = markers[pc]
        elif pc in probes:
            probe, count, call_pc = "/".join(probes[pc]), 1, last
            funcs = {probe: 1}
    text = open(outf).read()
    if status != "0" or "done" not in text:
        bad.append("%s: the image did not finish cleanly (exit %s): %s" % (short, status, text.strip()[-200:]))
    sc = {}
    # `none`: the marker between scenarios, whose calls set the next one up.
    for name in sorted((set(expected) | set(calls)) - {"none"}):
        got = calls.get(name, [])
        ns = [c for p, c in got]
        probes_seen = sorted({p for p, _ in got})
        if name in expected:
            want_probe, want_calls = expected[name]
            if len(got) != want_calls or any(want_probe not in p.split("/") for p, _ in got):
                bad.append("%s %s: %d calls of %s, expected %d of %s"
                           % (short, name, len(got), probes_seen, want_calls, want_probe))
        elif len(probes_seen) != 1:
            bad.append("%s %s: calls of %s, expected one probe" % (short, name, probes_seen))
        if ns:
            sc[name] = {"probe": probes_seen[0] if len(probes_seen) == 1 else probes_seen,
                        "calls": len(ns), "per_call": round(sum(ns) / len(ns), 2),
                        "min": min(ns), "max": max(ns), "first_call_by_function": first_call.get(name, {})}
    # The method's own check: the raw store's probe is its frame, the store
    # and the return (thumbv7em: push, mov, str, pop; riscv32: sw, ret). A
    # trace of more than one instruction per line would count fewer.
    raw = {"thumbv7em": 4, "riscv32imac": 2}.get(short)
    if raw is not None and sc.get("raw_write", {}).get("max") != raw:
        bad.append("%s: the raw store's probe counts %s, not %d: one trace line is not one instruction"
                   % (short, sc.get("raw_write", {}).get("max"), raw))
    out[short] = {"qemu": qver.strip(), "trace_instructions": total, "instructions_per_call": sc}
print(json.dumps(out, indent=1))
for b in dict.fromkeys(bad):
    print("target-count: " + b, file=sys.stderr)
if check and bad:
    sys.exit(1)
PY
