#!/usr/bin/env python3
"""Write docs/PERFORMANCE.md from one `scripts/bench.sh` JSON summary.

    scripts/bench.sh > /tmp/bench.json
    python3 scripts/perf-doc.py /tmp/bench.json "<notes on the machine>" [misses.md] > docs/PERFORMANCE.md

`misses.md` (optional): a prose section on where the misses come from,
written for the run at hand, inserted before the JSON.

Every number in the document comes from that one run; the verdicts are
computed here from the targets below (issue 12 and the anchors' section 7).
"""
import datetime
import json
import sys

j = json.load(open(sys.argv[1]))
machine = sys.argv[2] if len(sys.argv) > 2 else "the project's shared 2-core machine"
ir = j["callgrind_ir_per_op"]
side = j["nq_ir_per_entry_by_batch"]
idle = j["nq_idle_poll_ir_per_call"]
probe = j["thumbv7em_access_instructions"]
nq = j["nq_mmio_counts"]
tm = j["nq_drain_time"]
fw = j["firmware_text_bytes"]
csr = ir["csr_lookup"]
tb = j.get("time_benches", {})


def f(v, d=1):
    return "—" if v is None else ("%.*f" % (d, v))


def verdict(ok):
    return "met" if ok else "**not met**"


out = []
w = out.append
w("# Performance: the latest figures\n")
w("Produced by, on a fresh clone:\n")
w("```sh\nscripts/bench.sh > /tmp/bench.json            # one JSON summary (progress on stderr)\n"
  "python3 scripts/perf-doc.py /tmp/bench.json > docs/PERFORMANCE.md\n"
  "scripts/bench.sh --quick                      # without the cargo-bench time benches (what CI runs)\n"
  "scripts/access-probe.sh                       # thumbv7em instruction counts alone\n"
  "scripts/target-count.sh                       # executed instructions per call on thumbv7em / riscv32 alone\n```\n")
w("Figures below: commit `%s`, %s, %s. Instruction counts are exact and "
  "deterministic; time figures are ratios of interleaved medians, never absolute "
  "times. Targets: issue 12 and the anchors "
  "(`shared/design/ring-and-reliability-anchors.md` §7).\n"
  % (j["commit"], datetime.date.today().isoformat(), machine))

w("## How it measures\n")
w("- **Instruction counts (Ir)** come from valgrind's callgrind. "
  "`tests/src/bin/khal_ir` holds one `#[inline(never)]` kernel per figure "
  "(`kernels.rs`, names `ir_*`); `scripts/bench.sh` runs the binary once per "
  "scenario under `valgrind --tool=callgrind` and takes the kernel's inclusive Ir "
  "(the calls into the functions named `*ir_<kernel>*`, an outlined closure included; "
  "`scripts/ir.sh`, `scripts/cg-kernel.py`), so only the kernel is counted, and divides by "
  "the kernel's operation count (10 000 register accesses, lookups or idle polls; "
  "the entries of one 4096-entry ring). Setup is outside the kernel.")
w("- **NQ side by side** (`khal_ir nq:<mode>:<backend>:<batch>`): one 4096-entry ring "
  "filled by the device's first pass and drained whole, `batch` entries per call "
  "(`max_batch = batch`): `phase` = `NqRing::drain` in phase mode; `tail` = the same in "
  "tail mode (4095 entries published: a full ring reads as empty through the tail); "
  "`drain_iter` = `NqRing::drain_iter`, every item copied out; **C-style reference** = "
  "`ir_c_ref`, what a C driver writes: per call one tail read through the same `Mmio` "
  "window the engine uses, a plain per-entry struct copy with a masked index (no "
  "bounds, phase or fault checks), one head write per batch. Backends: khal-std's "
  "`DmaBuf` (host) and khal-core's `StaticDma` (the firmware backend over a "
  "`static_dma!` buffer), both `dma::words::AtomicWords` (relaxed atomic words, sound "
  "when another thread writes the ring); and, for issue 14 item 1, the pre-issue-14 "
  "`DmaBuf` (`refs.rs`: volatile byte scan, one plain `memcpy` per run; unsound under "
  "threads) as `volatile`.")
w("- **Idle poll**: after the ring is drained, 10 000 phase-mode `drain` calls with "
  "nothing new (`ir_nq_idle`), and the same loop making two calls per iteration "
  "(`ir_nq_idle2`): the difference divided by 10 000 is one poll without the "
  "kernel's loop (counter, compare, branch, accumulate), which is reported apart.")
w("- **Register access on thumbv7em** (`scripts/access-probe.sh`): instructions of "
  "the probe functions of `firmware/src/bin/fw-probe.rs` in the release (LTO) "
  "image, read from the disassembly, the frame set-up and return excluded.")
w("- **Exact MMIO counts** come from the `Counting` backend (`khal_ir counts`: three "
  "full wraps of a 4096-entry ring in phase mode).")
w("- **Time**: `khal_ir time` drains a full ring and `memcpy`s the same 64 KiB "
  "(glibc, `copy_from_slice`), 21 interleaved repetitions, ratio of the medians "
  "(`memcpy time / drain time`: the drain's throughput as a fraction of memcpy's); "
  "and, for issue 14 item 1, 101 repetitions each timing in turn a full-ring drain "
  "through `DmaBuf`, the same through the pre-issue-14 copy and a `memcpy` of the "
  "same bytes (both rings refilled untimed), ratios of the medians. "
  "Each `tests/benches/*.rs` prints one JSON line, collected under `time_benches`.")
w("- **Firmware sizes**: `.text` of the panic-never images (`firmware/`, "
  "thumbv7em-none-eabihf, `opt-level = \"s\"`, LTO), by `size -A`.\n")

w("### The memcpy reference under callgrind (an artifact, and its replacement)\n")
w("glibc's `memcpy` of 64 KiB runs `__memcpy_avx_unaligned_erms`, which uses "
  "`rep movsb` at that size. callgrind counts every iteration of a `rep` "
  "instruction as one instruction, so the 64 KiB copy counts 65 536 Ir: **%s Ir per "
  "16-byte entry, one per byte**, while the CPU moves the bytes in a few wide "
  "transfers. That figure is therefore not a reference for Ir. The bench now also "
  "counts `ir_copy_sse`, a copy loop of 16-byte SSE2 loads and stores (four per "
  "iteration) that callgrind counts as the CPU runs it: **%s Ir per entry**, the "
  "instruction cost of a real memcpy. Throughput against memcpy is measured in "
  "time only (glibc's real memcpy, interleaved medians).\n"
  % (f(ir["nq_drain_per_entry"]["memcpy_per_entry"]), f(ir["nq_drain_per_entry"]["sse_copy_per_entry"], 2)))

w("## NQ consumers side by side (Ir per drained entry, one run)\n")
w("| entries per call | phase | phase, default `max_batch` | tail | `drain_iter` | C-style reference | C over raw pointers: phase poll | C over raw pointers: tail poll | phase, `StaticDma` | phase, default `max_batch`, `StaticDma` | tail, `StaticDma` | `drain_iter`, `StaticDma` | phase, pre-issue-14 copy |")
w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for b in ["1", "8", "64", "1024"]:
    r = side[b]
    w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        b, f(r["phase"]), f(r.get("phasedef")), f(r["tail"]), f(r["iter"]), f(r["cref"]),
        f(r.get("c_raw_phase")), f(r.get("c_raw_tail")),
        f(r["phase_static"]), f(r.get("phasedef_static")), f(r["tail_static"]), f(r["iter_static"]), f(r.get("phase_volatile"))))
w("")
if all(side[b].get("c_raw_phase") is not None and side[b].get("c_raw_tail") is not None
       for b in ["1", "8", "64", "1024"]):
    def vs(k, c):
        # khal's figure against a C one at every size: "35.0 / 27.0 (1.30×)".
        return ", ".join("%s per call %s / %s (%.2f×)" % (b, f(side[b][k]), f(side[b][c]),
                                                         side[b][k] / side[b][c])
                         for b in ["1", "8", "64", "1024"])
    def where(k, c):
        # The sizes at which khal's figure is at or below the C one, and above.
        le = [b for b in ["1", "8", "64", "1024"] if side[b][k] <= side[b][c]]
        gt = [b for b in ["1", "8", "64", "1024"] if side[b][k] > side[b][c]]
        if not gt:
            return "at or below it at every size"
        if not le:
            return "above it at every size"
        return "at or below it at %s per call, above it at %s" % (", ".join(le), ", ".join(gt))
    w("\"C over raw pointers\" are the third checker's C references (`khal_ir` `craw.rs`, "
      "written as C firmware writes them) over the same ring memory and register buffer: "
      "the registers through raw volatile pointers (`readl` / `writel`), so they pay no "
      "address check, where the \"C-style reference\" column, issue 12's reference, goes "
      "through the same `Mmio` window as khal (its gates stay on it). The **phase poll** "
      "tests each entry's phase bit (one volatile load), fences, copies the entry as a "
      "struct, advances the head and flips the expected phase at the wrap, and writes the "
      "head once per non-empty call; the **tail poll** reads the tail once per call, copies "
      "`(tail/16 - head) & mask` entries and writes the head once. Neither checks the "
      "tail, the entry's bounds or the head slot as khal does. What they show: what the "
      "window check costs C (the tail poll at 1 per call: %s over raw pointers, %s through "
      "`Mmio`); khal's phase drain against the C phase poll (khal / C): %s: %s (khal tests "
      "a run, then copies it in bulk; the C poll pays a test and a struct copy per entry, "
      "and khal's one-entry call pays its checks); khal's tail drain against the C tail "
      "poll: %s: %s (khal reads and checks the tail, waits for the last entry's phase and "
      "writes the head through a checked slot).\n"
      % (f(side["1"]["c_raw_tail"]), f(side["1"]["cref"]), vs("phase", "c_raw_phase"),
         where("phase", "c_raw_phase"), vs("tail", "c_raw_tail"), where("tail", "c_raw_tail")))
w("\"phase\" is a ring configured with `max_batch` equal to the entries per call "
  "(`max_batch(1)` at 1); \"default `max_batch`\" is a ring that never sets it (128) "
  "drained with an `out` of that many entries (so at 1024 it takes 128 per call).\n")
w("Idle poll (phase mode, nothing new): **%s Ir per poll** (`DmaBuf`), %s (`StaticDma`), "
  "without the bench's loop; with it %s and %s (the loop: %s Ir). "
  "MMIO accesses per idle poll: %s.\n" % (
      f(idle["dmabuf"]), f(idle["static"]), f(idle.get("dmabuf_with_bench_loop")),
      f(idle.get("static_with_bench_loop")), f(idle.get("bench_loop")), nq["mmio_accesses_per_idle_poll"]))

arr = j.get("nq_tail_one_arrival_per_call_ir_per_entry")
if isinstance(arr, dict):
    w("Tail mode at one arrival per call (`nq:tailarr` / `nq:crefarr`: an empty tail-mode "
      "ring, per call the device writes one entry and publishes its tail, not counted, then "
      "one call): `NqRing::drain` through an `out` of 1 **%s Ir per entry** (`StaticDma` %s) "
      "against the C-style reference's poll %s in the same run: %.2f× (target ≤ 1.3×: %s). "
      "Each call reads the tail (checked), tests the entry's phase (its arrival), copies it "
      "and writes the head once; the full-ring `tail` column above reads the tail once for "
      "many calls.\n" % (f(arr["tail"]), f(arr["tail_static"]), f(arr["cref"]),
                          arr["tail"] / arr["cref"], verdict(arr["tail"] <= 1.3 * arr["cref"])))
    if arr.get("c_raw_tail") is not None:
        w("The same arrivals through the C tail poll over raw pointers (`nq:crawarr`, "
          "no window check): **%s Ir per entry**; khal's drain is %.2f× that (the Mmio "
          "C-style poll %.2f×).\n" % (f(arr["c_raw_tail"]), arr["tail"] / arr["c_raw_tail"],
                                         arr["cref"] / arr["c_raw_tail"]))

snd = tm.get("sound_dmabuf_vs_pre_issue14")
if isinstance(snd, dict):
    w("### The sound `DmaBuf` against the pre-issue-14 copy (issue 14 item 1)\n")
    w("`DmaBuf` became sound under threads (every access a relaxed atomic of an aligned "
      "8-byte word). The same run measures it against the copy it replaced (volatile "
      "byte scan, Acquire fence, one plain `memcpy` per run, copied phases checked) and "
      "against `memcpy` of the same bytes. Time: medians of %s interleaved full-ring "
      "drains; a ratio below 1 means the sound copy is faster.\n" % snd.get("reps"))
    w("| entries per call | Ir/entry, sound `DmaBuf` | Ir/entry, the same copy with plain loads | Ir/entry, pre-issue-14 copy | time, sound / pre-issue-14 | time, sound / `memcpy` |")
    w("| --- | --- | --- | --- | --- | --- |")
    for b in ["1", "8", "64", "1024"]:
        t = snd.get(b, {})
        w("| %s | %s | %s | %s | %s | %s |" % (b, f(side[b]["phase"]), f(side[b].get("phase_plain")), f(side[b].get("phase_volatile")),
                                             f(t.get("dmabuf_vs_volatile"), 3), f(t.get("dmabuf_vs_memcpy"), 2)))
    w("")
    w("\"The same copy with plain loads\" (`refs.rs`, `PlainRing`, unsound under threads) is "
      "`DmaBuf`'s one-pass loop with `ptr::read` instead of relaxed atomics: a relaxed "
      "aligned 8-byte atomic load is a plain `mov` on x86-64, so the atomics themselves "
      "cost no instruction (the plain version's loop is not shorter).")
    w("The pre-issue-14 copy's Ir at 64 and 1024 per call include glibc's `rep movsb` "
      "(one Ir per byte under callgrind, see above): its time column is the fair "
      "comparison. What the sound copy cannot do: move an entry as one 16-byte access "
      "(no 16-byte atomics on stable Rust), so each entry is two 8-byte loads and "
      "stores where a vectorised `memcpy` moves 16 or 32 bytes at a time.\n")

by = tm.get("dmabuf_drain_throughput_vs_memcpy_by_batch", {})
line = ("Drain throughput as a fraction of glibc memcpy of the same bytes (time, `DmaBuf`, "
        "phase mode, 21 interleaved reps): %s at the default 128 per call." % f(tm["drain_throughput_vs_memcpy"], 3))
if by:
    line += " By entries per call: " + ", ".join("%s → %s" % (k, f(v, 3)) for k, v in by.items()) + "."
w(line + "\n")

# Issue 12 targets.
p1, p64 = side["1"], side["64"]
rows = [
    ("phase `drain`, 1 entry per call, Ir/entry", "%s (C-style %s)" % (f(p1["phase"]), f(p1["cref"])),
     "≤ C-style and ≤ 60", p1["phase"] <= p1["cref"] and p1["phase"] <= 60),
    ("phase drain, 1 entry per call, default max_batch, Ir/entry",
     "%s (C-style %s)" % (f(p1.get("phasedef")), f(p1["cref"])),
     "≤ C-style", p1.get("phasedef") is not None and p1["phasedef"] <= p1["cref"]),
    ("phase `drain`, 64 per call, Ir/entry", "%s (C-style %s)" % (f(p64["phase"]), f(p64["cref"])),
     "≤ C-style", p64["phase"] <= p64["cref"]),
    ("idle poll, Ir per poll (the bench's loop apart)", "%s (with the loop %s)" % (f(idle["dmabuf"]), f(idle.get("dmabuf_with_bench_loop"))), "≤ 20", idle["dmabuf"] <= 20),
    ("`drain_iter` vs `drain`, 64 per call (Ir/entry)", "%s vs %s = %s×" % (f(p64["iter"]), f(p64["phase"]), f(p64["iter"] / p64["phase"], 2)),
     "≤ 2×", p64["iter"] <= 2 * p64["phase"]),
    ("register access through a bound handle held in a struct, thumbv7em (instructions)",
     "%d (write), %d (read); block + const register: %d / %d" % (probe["held_reg_write"], probe["held_reg_read"], probe["held_block_write"], probe["held_block_read"]),
     "≤ 2", max(probe["held_reg_write"], probe["held_reg_read"], probe["held_block_write"], probe["held_block_read"], probe["held_block_array_write"]) <= 2),
]
cay = fw.get("fw-cayman") if isinstance(fw, dict) else None
rows.append(("`fw-cayman` `.text` (bytes)", "—" if cay is None else "%d" % cay, "≤ 8192", cay is not None and cay <= 8192))
# Issue 12's CSR row, per `csr_read` call (khal_ir csr.rs): the default
# lookup (the cell index, 8 N cells) on every layout of at most 8 windows,
# the two built against cells apart; then the binary search and the loop
# kernel, which do not meet it.
cpc = ir.get("csr_per_call")
if isinstance(cpc, dict):
    against = ("c3", "p8")
    small = [k for k in ("fw2_cap4", "s3", "b4", "c5", "r5", "c6", "r6", "c7", "p7", "b8", "8b", "8m", "c8", "t8") if k in cpc]
    worst = max(small, key=lambda k: cpc[k]["default_over_raw_add"])
    rows.append(("CSR lookup over a raw add, per `csr_read` call, the **default** lookup (cell index), every layout of at most 8 windows the bench and the checkers have (%d), the two built against cells apart" % len(small),
                 "+%s at most (`%s`; +%s on %d of them)" % (f(cpc[worst]["default_over_raw_add"]), worst, f(min(cpc[k]["default_over_raw_add"] for k in small)),
                                                              sum(1 for k in small if cpc[k]["default_over_raw_add"] <= 8.0)),
                 "≤ +10", all(cpc[k]["default_over_raw_add"] <= 10 for k in small)))
    rows.append(("the same, the two layouts built against cells (`c3`: three windows in one cell; `p8`: eight a power of two apart)",
                 " / ".join("+" + f(cpc[k]["default_over_raw_add"]) for k in against if k in cpc) + " (binary search " +
                 " / ".join("+" + f(cpc[k]["binary_search_over_raw_add"]) for k in against if k in cpc) + ")",
                 "≤ +10", all(cpc[k]["default_over_raw_add"] <= 10 for k in against if k in cpc)))
    rows.append(("the same, `RegionTable<N, BinarySearch>` (no index; what the firmware images name), 8 windows / `Csr<_, 4>` of 2",
                 "+%s / +%s" % (f(cpc["b8"]["binary_search_over_raw_add"]), f(cpc["fw2_cap4"]["binary_search_over_raw_add"])),
                 "≤ +10", cpc["b8"]["binary_search_over_raw_add"] <= 10))
f4 = (j.get("checker_cases") or {}).get("fourth")
if isinstance(f4, dict) and "c8:4" in f4:
    rows.append(("the same in a driver's bring-up routine (the fourth checker: 4 / 8 dependent accesses to CAYMAN's 8 TPB windows per call, over raw pointers; default lookup)",
                 "+%s / +%s per access (binary search +%s / +%s; a C linear scan %s / %s Ir against khal's %s / %s)" % (
                     f(f4["c8:4"]["default"] - f4["c8:4"]["raw"]), f(f4["c8:8"]["default"] - f4["c8:8"]["raw"]),
                     f(f4["c8:4"]["binary_search"] - f4["c8:4"]["raw"]), f(f4["c8:8"]["binary_search"] - f4["c8:8"]["raw"]),
                     f(f4["c8:4"]["c_scan"]), f(f4["c8:8"]["c_scan"]), f(f4["c8:4"]["default"]), f(f4["c8:8"]["default"])),
                 "≤ +10", max(f4["c8:4"]["default"] - f4["c8:4"]["raw"], f4["c8:8"]["default"] - f4["c8:8"]["raw"]) <= 10))
if isinstance(f4, dict) and all("window" in v for v in f4.values()):
    wo = {k: v["window"] - v["raw"] for k, v in f4.items()}
    worst = max(wo, key=wo.get)
    rows.append(("the same routine through windows resolved once (`Csr::window`: each access tests its `CsrWindow` and adds the translation), every layout and routine length of the fourth checker (%d cases, `p8` and the random `r8s4` / `r64` included)" % len(wo),
                 "+%s at most (`%s`; +%s at K = 4 on `c8`)" % (f(wo[worst]), worst, f(wo.get("c8:4", float("nan")))),
                 "≤ +10", all(v <= 10 for v in wo.values())))
rows.append(("the same in the loop kernel (10 000 `csr_read` in a loop against a loop of raw adds the compiler unrolls 4x), 8 windows, cell index",
             "+%s (%s vs %s)" % (f(csr["over_raw_add_8"]), f(csr["windows_8"]), f(csr["raw_add"])),
             "≤ +10", csr["over_raw_add_8"] <= 10))
# The same claims on the targets' own instructions (scripts/target-count.sh:
# executed instructions per call, the probe's frame and return included, C
# references in the same image).
tcr = j.get("target_instructions_per_call")
if isinstance(tcr, dict) and all(isinstance(tcr.get(t), dict) for t in ("thumbv7em", "riscv32imac")):
    def tv(k):
        return [tcr[t]["instructions_per_call"][k]["per_call"] for t in ("thumbv7em", "riscv32imac")]
    def pair(v):
        return " / ".join(f(x, 0) if x == int(x) else f(x) for x in v)
    d1, ct, cp = tv("drain1"), tv("c_tail1"), tv("c_phase1")
    rows.append(("phase `drain`, 1 entry per call, `out` of 1, StaticDma, default max_batch, on thumbv7em / riscv32 (executed instructions per call)",
                 "%s (C-style tail %s, C phase %s)" % (pair(d1), pair(ct), pair(cp)),
                 "≤ C-style", all(a <= b for a, b in zip(d1, ct))))
    il, c1 = tv("idle1"), tv("c_one_idle1")
    rows.append(("idle poll on thumbv7em / riscv32 (executed instructions per call, the call's frame included)",
                 "%s (C take-one %s)" % (pair(il), pair(c1)), "≤ 20", all(a <= 20 for a in il)))
    cw, rw = tv("csr_write"), tv("raw_write")
    bsw = tv("csr_write_bs") if "csr_write_bs" in tcr["thumbv7em"]["instructions_per_call"] else None
    rows.append(("`csr_write` hit, `Csr<_, 4>` of 2 windows, default lookup (cell index), over a raw store, on thumbv7em / riscv32 (executed instructions per call)",
                 "%s (%s vs %s; binary search %s; C linear scan %s)" % (" / ".join("+" + pair([a - b]) for a, b in zip(cw, rw)), pair(cw), pair(rw),
                                                                       pair(bsw) if bsw else "—", pair(tv("c_csr_write"))),
                 "≤ +10", all(a - b <= 10 for a, b in zip(cw, rw))))
    if "csr_block_write" in tcr["thumbv7em"]["instructions_per_call"]:
        bw, ww = tv("csr_block_write"), tv("csr_window_write")
        bww = tv("csr_bound_window_write") if "csr_bound_window_write" in tcr["thumbv7em"]["instructions_per_call"] else None
        rows.append(("the same register write resolved once, on thumbv7em / riscv32: a constant register of a block bound through the table (`Csr::bind_block`), over a raw store (executed instructions per call)",
                     "%s (%s vs %s; an address through a window bound in the `VolatileWindow`, `Csr::bind_window`, %s; through a `CsrWindow` %s)" % (
                         " / ".join("+" + pair([a - b]) for a, b in zip(bw, rw)), pair(bw), pair(rw), pair(bww) if bww else "—", pair(ww)),
                     "≤ +10", all(a - b <= 10 for a, b in zip(bw, rw))))
w("## Issue 12 targets\n")
w("| figure | measured | target | verdict |")
w("| --- | --- | --- | --- |")
for name, m, t, ok in rows:
    w("| %s | %s | %s | %s |" % (name, m, t, verdict(ok)))
w("")

chk = j.get("checker_cases")
if chk:
    tr, il, c6, c17 = (chk["trickle_1_per_poll_ir_per_entry"], chk["idle_poll_out1"],
                       chk["csr_6_close_pairs"], chk["csr_16_vs_17_windows"])
    cref = tr["c_style_out16"]
    w("## The independent checker's cases (where the figures above do not carry over)\n")
    w("An independent re-measurement with its own cases (`tests/src/bin/khal_ir/ver.rs`, "
      "`scripts/bench.sh` `checker_cases`). **Trickle**: the device publishes one entry, "
      "the consumer drains, repeated over the ring (the device's writes are not counted: the "
      "kernel's calls of `ir_verdev_*` are subtracted), khal and the C-style poll in the same "
      "loop, so compare within the table, not with the side-by-side figures above (its loop "
      "costs more). Idle through an `out` of one: the same `idle2 - idle` difference as "
      "above. CSR `r6`: 6 windows in two close pairs and two loners over a 60 GiB span "
      "(uniform, and 90% of the accesses in the second window of a pair).\n")
    w("| case | measured | reference | claim it tests | verdict |")
    w("| --- | --- | --- | --- | --- |")
    w("| trickle, `out` of 16, default `max_batch` (DmaBuf) | %s | C-style %s | 1 per call ≤ C-style | %s |"
      % (f(tr["phase_out16_default_max_batch"]), f(cref), verdict(tr["phase_out16_default_max_batch"] <= cref)))
    w("| trickle, `out` of 16 (StaticDma) | %s | C-style %s | 1 per call ≤ C-style | %s |"
      % (f(tr["phase_out16_static"]), f(cref), verdict(tr["phase_out16_static"] <= cref)))
    w("| trickle, `out` of 1 (DmaBuf) | %s | C-style %s | 1 per call ≤ C-style | %s |"
      % (f(tr["phase_out1"]), f(cref), verdict(tr["phase_out1"] <= cref)))
    if "phase_out1_static" in tr:
        w("| trickle, `out` of 1 (StaticDma) | %s | C-style %s | 1 per call ≤ C-style | %s |"
          % (f(tr["phase_out1_static"]), f(cref), verdict(tr["phase_out1_static"] <= cref)))
    w("| trickle, `drain_iter` of up to 16 (DmaBuf) | %s | `drain` %s | — | %.2f× `drain` |"
      % (f(tr["drain_iter_16"]), f(tr["phase_out16_default_max_batch"]),
         tr["drain_iter_16"] / tr["phase_out16_default_max_batch"]))
    w("| idle poll through an `out` of 1, DmaBuf / StaticDma | %s / %s | — | idle ≤ 20 | %s |"
      % (f(il["dmabuf"]), f(il["static"]), verdict(max(il["dmabuf"], il["static"]) <= il["target_max"])))
    w("| CSR `r6`, `CellIndex` (128 cells), uniform / hot in one window, over the raw add (loop kernel) | +%s / +%s | raw add %s | ≤ 8 windows ≤ +10 | %s |"
      % (f(c6["over_raw_add"]), f(c6["over_raw_add_hot"]), f(c6["raw_add"]),
         verdict(max(c6["over_raw_add"], c6["over_raw_add_hot"]) <= c6["target_over_raw_add_max"])))
    if "default_6_slots" in c6:
        d6, d8, d8h = (c6[k] - c6["raw_add"] for k in ("default_6_slots", "default_8_slots", "default_8_slots_hot"))
        w("| CSR `r6` through the binary search, a table of 6 slots / of 8 (uniform / hot), over the raw add (loop kernel) | +%s / +%s / +%s | raw add %s | ≤ 8 windows ≤ +10 | %s at 6 slots, %s at 8 |"
          % (f(d6), f(d8), f(d8h), f(c6["raw_add"]), verdict(d6 <= 10), verdict(max(d8, d8h) <= 10)))
    step = c17["windows_17"] / c17["windows_16"]
    w("| CSR 16 / 17 windows, cell index (Ir per lookup) | %s / %s | binary search %s / %s | no step past 16 | %s (%+.0f%%) |"
      % (f(c17["windows_16"]), f(c17["windows_17"]), f(c17.get("windows_16_binary_search", 0)),
         f(c17.get("windows_17_binary_search", 0)), verdict(step <= 1.02), 100.0 * (step - 1)))
    w("")
    w("Where they come from: a phase-mode `drain` is one `DmaMemory::take_new_at` (issue 12): "
      "the idle test is one load of the entry's phase word (the word backends keep it for the "
      "copy), and with one entry pending the entry after it is tested under the same bounds "
      "before any run is set up, so the trickle through an `out` of 16 pays two tests, one "
      "copy and one head write (it paid the run copy's set-up, about 27 instructions, before). "
      "What it still pays over the `out` of 1 and over the C-style poll: the second test "
      "(room for two in `out`, one compare with `multi_below`, the ring's last slot and "
      "`max_batch > 1` computed once per ring, the entry's bounds, its load and phase test: "
      "about 10 Ir, 14 before session 6), which the C-style poll does not need (its one tail "
      "read tells it how many); and, against the C-style poll, the bounds check of the entry, "
      "the ring-end test of the head write and the checked head slot, which it does not do. "
      "The idle poll through an `out` of one "
      "is the same path's test as through any `out`. "
      "The CSR cases go through `RegionTable<N, CellIndex>`: a cell "
      "owns two entries and one compare against the second's key picks the region, so the "
      "second window of a close pair costs what the first does (before issue 12's cell "
      "rework each cell named two regions to test in turn, and the second of a pair paid a "
      "second test: +12.3 / +16.5); the index has no capacity limit (cells it cannot "
      "resolve take the binary search), so nothing changes at 17 windows. The binary "
      "search figures are the default lookup's (`RegionTable<N>`), one step more at 17.\n")

sec = (chk or {}).get("second")
if sec:
    q, il2, cs = sec["nq_ir_per_entry"], sec["idle_poll_ir"], sec["csr_write_ir"]

    def nq3(n, ring=4096, be="dmabuf"):
        key = "%s:%d:%d:%d" % (be, ring, n, n)
        return q["phase:" + key], q["cphase:" + key], q["ctail:" + key]

    w("## The second checker's cases (own kernels, references in the same run)\n")
    w("`tests/src/bin/khal_ir/chk.rs`, `scripts/bench.sh` `checker_cases.second`. One drain call per "
      "arrival of `n` entries through an `out` of `n` at the default `max_batch` (the device's "
      "writes are not counted: the kernel's calls of `ir_chkdev_*` are subtracted); two C-style "
      "references in the same loop: **C tail** (one tail read, masked copy, one head write: the "
      "bench's reference) and **C phase** (what a C driver does in phase mode: test the head "
      "entry's phase bit, copy, flip the expected phase at the wrap, one head write, no register "
      "read; a compiler fence, no `dmb`). Compare within a row; the loop differs from the "
      "side-by-side table's. CSR: `csr_write` (a store at the translated address) through "
      "`RegionTable<N, CellIndex>` (128 cells), the binary search and the default "
      "(`CellIndex<N>`), against the raw add and the same store over the same addresses "
      "(before this session a backend that discarded the address).\n")
    w("| case | khal | reference(s) | claim it tests | verdict |")
    w("| --- | --- | --- | --- | --- |")
    for n in (1, 2, 3, 8):
        k, cp, ct = nq3(n)
        # Equal within 0.05 Ir/entry (the loops' entry and exit) counts as met.
        w("| phase `drain`, %d per call (DmaBuf) | %s | C tail %s, C phase %s | ≤ C-style at the sizes users run%s | %s vs C tail, %s vs C phase |"
          % (n, f(k), f(ct), f(cp), " (≤ 60 at 1)" if n == 1 else "",
             verdict(k <= ct + 0.05), verdict(k <= cp + 0.05)))
    st = q["phase:static:4096:1:1"]
    w("| phase `drain`, 1 per call, StaticDma | %s | C tail %s | ≤ 60 at 1 | %s |" % (f(st), f(nq3(1)[2]), verdict(st <= 60)))
    if "phase:dmabuf:4096:16:1" in q:
        # The trickle in this loop: one arrival per call through an `out`
        # of 16 (the C phase driver tests the next entry too, as khal does).
        tk, ts = q["phase:dmabuf:4096:16:1"], q["phase:static:4096:16:1"]
        tcp, tct = q["cphase:dmabuf:4096:16:1"], q["ctail:dmabuf:4096:16:1"]
        w("| trickle: 1 per call through an `out` of 16 (DmaBuf / StaticDma) | %s / %s | C tail %s, C phase %s | ≤ C-style at the sizes users run | %s vs C tail, %s vs C phase |"
          % (f(tk), f(ts), f(tct), f(tcp), verdict(tk <= tct + 0.05), verdict(tk <= tcp + 0.05)))
    k8, cp8, ct8 = nq3(1, ring=8)
    w("| ring of 8 entries, 1 per call (a wrap every 8) | %s (StaticDma %s) | C tail %s, C phase %s; no wrap %s | a wrap costs nothing per entry | %s |"
      % (f(k8), f(q["phase:static:8:1:1"]), f(ct8), f(cp8), f(nq3(1)[0]), verdict(k8 <= nq3(1)[0] + 1)))
    tl = q["tail:dmabuf:4096:1:1"]
    w("| tail-mode `drain`, 1 per call | %s (ring of 8: %s) | C tail %s | ≤ 1.3× C tail (the side-by-side's tail at 1 is a full ring: one tail read serves 4095 calls) | %s (%.2f×) |"
      % (f(tl), f(q["tail:dmabuf:8:1:1"]), f(nq3(1)[2]), verdict(tl <= 1.3 * nq3(1)[2]), tl / nq3(1)[2]))
    for n in (2, 8):
        key = "tail:dmabuf:4096:%d:%d" % (n, n)
        if key in q:
            w("| tail-mode `drain`, %d per call | %s | C tail %s | — | %.2f× C tail |"
              % (n, f(q[key]), f(nq3(n)[2]), q[key] / nq3(n)[2]))
    i1, i8 = q["iter:dmabuf:4096:1:1"], q["iter:dmabuf:4096:8:8"]
    w("| `drain_iter`, 1 / 8 per call | %s / %s | `drain` %s / %s | ≤ 2× `drain` (issue: at 64) | %.2f× / %.2f× (%s at 8) |"
      % (f(i1), f(i8), f(nq3(1)[0]), f(nq3(8)[0]), i1 / nq3(1)[0], i8 / nq3(8)[0], verdict(i8 / nq3(8)[0] <= 2)))
    aw1, aw128, mid = (il2["phase:static:4096:4096:out1"], il2["phase:static:4096:4096:out128"],
                       il2["phase:static:4096:5:out1"])
    w("| idle poll right after a wrap, StaticDma, `out` of 128 / of 1 | %s / %s | mid-ring %s; DmaBuf `out` of 1 %s; C phase %s, C tail %s | idle ≤ 20 | %s / %s |"
      % (f(aw128), f(aw1), f(mid), f(il2["phase:dmabuf:4096:4096:out1"]), f(il2["cphase:static:4096:4096:out1"]),
         f(il2["ctail:static:4096:4096:out1"]), verdict(aw128 <= 20), verdict(aw1 <= 20)))
    if "tail:static:4096:4096:out1" in il2:
        # Tail mode's idle poll: the tail read says nothing is pending.
        ti = il2["tail:static:4096:4096:out1"]
        w("| tail-mode idle poll (the tail read finds nothing), StaticDma / DmaBuf | %s / %s | C tail %s | — (one tail read either way) | %.2f× C tail |"
          % (f(ti), f(il2["tail:dmabuf:4096:4096:out1"]), f(il2["ctail:static:4096:4096:out1"]),
             ti / il2["ctail:static:4096:4096:out1"]))
    names = {"c3:u": "8 windows, 3 of them in 0x140 bytes", "p8:u": "8 windows at 0 and 2^16, 2^20 ... 2^40",
             "g16:u": "16 windows, uneven sizes and gaps", "g16:h13": "the same, 90% in window 13",
             "m8:u": "8 windows 64 KiB apart, all hits"}
    for key, name in names.items():
        c = cs[key]
        lim = "≤ 8 windows ≤ +10" if not key.startswith("g16") else "no step past 8 (+8.0 elsewhere)"
        dflt = c.get("default", c["cell_index"])
        w("| CSR %s: default (`CellIndex<N>`) / `CellIndex` / binary search over the raw add | +%s / +%s / +%s | raw add %s | %s | %s |"
          % (name, f(dflt - c["raw_add"]), f(c["cell_index"] - c["raw_add"]), f(c["binary_search"] - c["raw_add"]), f(c["raw_add"]), lim,
             verdict(dflt - c["raw_add"] <= 10)))
    m50, m100 = cs["m8:m50"], cs["m8:m100"]
    w("| CSR misses (the error path): 50%% / 100%% outside every window, cell index | %s / %s Ir per write | binary search %s / %s; hits %s | — | a refused write costs about %.0f Ir |"
      % (f(m50["cell_index"]), f(m100["cell_index"]), f(m50["binary_search"]), f(m100["binary_search"]),
         f(cs["m8:u"]["cell_index"]), m100["cell_index"]))
    w("")
    w("On the targets' own instructions (thumbv7em, riscv32) the same paths are counted per call "
      "under QEMU, with C-style references in the same image: see \"Executed instructions on "
      "thumbv7em / riscv32\" below.\n")

BEFORE3 = {
    "csr:b8:u": 17.244,
    "phase:dmabuf:4096:1:1": 44.022,
    "cphase:dmabuf:4096:1:1": 35.009,
    "ctail:dmabuf:4096:1:1": 35.009,
    "phase:static:4096:1:1": 48.022,
    "phase:dmabuf:4096:16:b": 31.005,
    "iter:dmabuf:4096:16:b": 90.042,
    "tail:dmabuf:4096:16:b": 88.805,
    "cphase:dmabuf:4096:16:b": 27.38,
    "ctail:dmabuf:4096:16:b": 20.384,
    "phase:dmabuf:4096:4:b": 33.947,
    "cphase:dmabuf:4096:4:b": 26.474,
    "ctail:dmabuf:4096:4:b": 22.347,
    "phase:static:64:16:b": 36.002,
    "cphase:static:64:16:b": 27.411,
    "ctail:static:64:16:b": 20.384,
    "phase:static:64:4:b": 38.836,
    "cphase:static:64:4:b": 26.505,
    "ctail:static:64:4:b": 22.347,
    "phase:static:64:1:1": 48.806,
    "phase:static:64:16:1": 62.244,
    "phase:dmabuf:64:16:1": 59.228,
    "cphase:static:64:1:1": 35.04,
    "ctail:static:64:1:1": 35.009,
    "phase:dmabuf:4096:16:1": 58.028,
    "cphase:dmabuf:4096:16:1": 41.009,
    "ctail:dmabuf:4096:16:1": 35.009,
    "phase:dmabuf:4096:16:2": 45.53,
    "cphase:dmabuf:4096:16:2": 29.509,
    "ctail:dmabuf:4096:16:2": 29.009,
    "phase:dmabuf:4096:16:3": 33.676,
    "cphase:dmabuf:4096:16:3": 25.675,
    "ctail:dmabuf:4096:16:3": 20.676,
    "phase:dmabuf:4096:16:8": 18.906,
    "cphase:dmabuf:4096:16:8": 20.884,
    "ctail:dmabuf:4096:16:8": 12.884,
    "tail:dmabuf:4096:16:1": 232.01,
    "tail:dmabuf:4096:16:2": 121.01,
    "tail:dmabuf:4096:16:4": 65.51,
    "ctail:dmabuf:4096:16:4": 18.259,
    "tail:static:64:16:1": 218.525,
    "iter:dmabuf:4096:16:1": 189.025,
    "iter:dmabuf:4096:1:1": 142.009,
    "iter:static:64:16:1": 200.025,
    "pair:phase:dmabuf:4096:16:b": 34.743,
    "pair:cphase:dmabuf:4096:16:b": 30.839,
    "pair:ctail:dmabuf:4096:16:b": 24.412,
    "pair:phase:static:64:16:b": 40.288,
    "pair:cphase:static:64:16:b": 30.869,
    "pair:ctail:static:64:16:b": 24.412,
    "pair:phase:static:64:16:1": 71.741,
    "pair:cphase:static:64:16:1": 48.535,
    "pair:ctail:static:64:16:1": 44.505,
    "idle:tail:dmabuf:4096": 117.0,
    "idle:ctail:dmabuf:4096": 9.0,
    "idle:phase:static:64": 17.0,
    "idle:cphase:static:64": 12.0,
    "idle:phase:dmabuf:4096": 17.0,
    "idle:tail:static:64": 117.0,
    "csr:fw2:u": 15.251,
    "csr:fw2:z": 15.251,
    "csr:s3:u": 14.251,
    "csr:s3:z": 14.251,
    "csr:c5:u": 17.064,
    "csr:c5:z": 17.148,
    "csr:c6:u": 17.918,
    "csr:c6:z": 18.45,
    "csr:c7:u": 17.529,
    "csr:c7:z": 17.217,
    "csr:c8:u": 17.244,
    "csr:c8:z": 17.105,
    "miss:fw2": 76.003,
    "miss:c8": 82.95,
    "arr:fw2": 34.252,
    "arr:c8": 34.877,
}

THIRD_NOTES = (
    "Reading it: the figures above this section meet their own references; here the C "
    "references have no `Mmio` window check, and the shapes differ, so compare within a "
    "row. Measured at 287be6c against 228306c (the before column):\n\n"
    "- **Phase drain**: through an `out` of 16 at one arrival per call 58.0 -> 55.0 and "
    "on the ring of 64 62.2 -> 59.4 (session 6's second-entry limits and wrap commit), but "
    "no shape here reaches a C poll except 8 per call against C phase. Session 6's 2 per "
    "call win (30.0 in the second checker's loop) is for an `out` of exactly two: through "
    "an `out` of 16 two arrivals cost 46.0 (45.5 before). The tail-mode one-entry path "
    "(5c4d612, `drain` is inlined into the caller's loop) added 1.0 Ir per entry to every "
    "phase-mode DmaBuf shape of this loop (1 per call through an `out` of 1 44.0 -> 45.0, "
    "8 per call 18.8 -> 19.8, bursty 30.5 -> 31.5, measured at its parent e05c8f5 and at "
    "5c4d612); the side-by-side figures did not move.\n"
    "- **Tail mode**: one arrival per call 232.0 -> 69.0 (a one-entry path, hosts only: "
    "on thumbv7em the same call still executes 204 instructions, the idle poll 147 -> 88); "
    "two arrivals per call take the general path, 189 Ir per call (94.5 per entry), where "
    "one costs 69.\n"
    "- **CSR**: the decision tree (8b24edb, 5 to 32 slots) moved the 5 to 8-window layouts "
    "from +17.1..+18.5 to +14.7..+16.1 over the raw add; 2 and 3 windows are unchanged "
    "(+15.3 / +14.3; da2fbe7's written-out steps for up to 4 slots changed no host figure). The first checker's `r6` at 6 slots, +9.7 through that kernel (287be6c); this table's 6-window layout `c6` is +14.7 / +14.9. The `csr_lookup_8s` kernel's +10.8 on the `b8` layout is +16.0 "
    "here: that kernel discards the translated address and its raw add pays a "
    "`black_box`; of this table's gap about 2.2 Ir is loop shape (the raw add's loop is "
    "unrolled 4×: 0.75 Ir of loop per access against khal's 3.0), so no reading of it "
    "reaches +10. A refused access tests the two candidate regions now (hosts): 76.0 -> "
    "64.0 on `fw2`, 83.0 -> 72.7 on `c8`, where the C scan's miss is only its scan.\n"
    "- **thumbv7em, re-checked independently** (`scripts/step-count.py`): single-stepping the `khal-tcount` image "
    "under QEMU through its gdbstub (a breakpoint at the scenario's marker, then at the "
    "probe, then one `s` per instruction until the PC is back in `tcount_drive`) gives the "
    "counter's figures exactly at 470da1d (54, 65, 29, 96, 107; C phase 43, C tail 37) and "
    "at 287be6c (one new entry 51, trickle through 16 61, idle 28, wrap 105, tail mode one "
    "entry 204, tail idle 88; csr_write 96 at 8b24edb, 80 after da2fbe7).\n")

third = (chk or {}).get("third")
if third:
    # The third checker's figures at the start of session 6 (commit 228306c,
    # scripts/bench.sh --quick): the "before" column. Everything else in the
    # table is the run at hand.
    before3 = BEFORE3
    t3q, t3p, t3i, t3c, t3a = (third["nq_ir_per_entry"], third["pair_ir_per_entry"],
                               third["idle_poll_ir"], third["csr_read_ir"],
                               third["csr_write_array_ir_per_register"])

    def b3(key):
        v = before3.get(key)
        return "—" if v is None else f(v)

    def vs(k, refs):
        # met when khal is at or below the reference (0.05 Ir for the loops' ends)
        return ", ".join("%s vs %s (%+.1f)" % (verdict(k <= r + 0.05), n, k - r) for n, r in refs)

    w("## The third checker's cases (own kernels; before = session 6 start, now = this run)\n")
    w("`tests/src/bin/khal_ir/chk3.rs`, `scripts/bench-third.sh` (`checker_cases.third`). One "
      "drain call per poll; before each poll the device writes that poll's entries and "
      "publishes the tail (not counted: the kernel's calls of `ir_k3dev_*` are subtracted). "
      "**Bursty**: the arrivals per poll are 0, 0, 3, 0, 1, 5, then a fixed pseudo-random "
      "pattern over {0 ×6, 1 ×3, 2 ×2, 3 ×2, 5, 8, 12} (2.4 per poll on average; 1800 polls, "
      "the empty ones included, so an entry pays its share of the idle polls). The khal "
      "consumers use the ring's default `max_batch`. The references are written as a C "
      "firmware engineer writes them, in the same loop: **C tail** (one `readl` of the tail, "
      "`(tail/16 - head) & mask` entries, a struct copy each, one `writel` of the head) and "
      "**C phase** (per entry a volatile load of dword 0 and its bit 31 against the expected "
      "phase, a compiler fence, the struct copy, the phase flipped at the wrap; one `writel`), "
      "both through raw register pointers: unlike the two earlier checkers' references they "
      "do not go through khal's `Mmio` window check, which a C driver does not have (at "
      "228306c, one entry per call through an `out` of 1: khal 44.0 in both checkers' loops; "
      "these C tail / C phase 35.0 / 35.0, the second checker's 51.0 / 44.0). What khal checks that they do not: every entry "
      "copy's offset against the memory's bounds, the head slot, in tail mode the tail's "
      "alignment, range and direction and the arrival of the last entry's phase. The CSR "
      "cases read through a backend whose access is one volatile load at the translated "
      "address (the existing `csr_lookup` kernels use a backend that discards it, so there "
      "the translation is dead code), against the raw add (the same load at `p - delta`, no "
      "`black_box`) and a C lookup (a linear scan of `{start, end, device_addr}` with "
      "`start <= p <= end - 4` [000 §1]; no alignment check, which khal makes). Layouts from "
      "the arch windows of [FACTS §3.1]: `fw2` the firmware's own table (ENG and PE, 64 KiB, "
      "`Csr<_, 4>`); `s3` SUNDA HBM 0, 1 and the TPB window; `c5` CAYMAN PREPROC ×4 + TPB 0; "
      "`c6` CAYMAN HBM ×4 + PREPROC 0, 1; `c7` / `c8` CAYMAN TPB tiles 0..6 / 0..7 (64 KiB "
      "each: the CAYMAN TPB window size is not traced). Hits `u` uniform, `z` uneven (the "
      "middle window about half, each further one half the last).\n")
    w("| case | before | now | reference(s), now | claim it tests | verdict |")
    w("| --- | --- | --- | --- | --- | --- |")

    def nqrow(name, key, claim, refs=None, extra=""):
        k = t3q[key]
        be, ring, out, pat = key.split(":")[1:]
        refs = refs if refs is not None else [
            ("C tail", t3q["ctail:%s:%s:%s:%s" % (be, ring, out, pat)]),
            ("C phase", t3q["cphase:%s:%s:%s:%s" % (be, ring, out, pat)])]
        w("| %s | %s | %s | %s%s | %s | %s |"
          % (name, b3(key), f(k), ", ".join("%s %s" % (n, f(r)) for n, r in refs), extra, claim, vs(k, refs)))

    le = "≤ C-style at the sizes users run"
    nqrow("bursty, `out` of 16, DmaBuf, ring 4096", "phase:dmabuf:4096:16:b", le)
    nqrow("bursty, `out` of 4, DmaBuf, ring 4096", "phase:dmabuf:4096:4:b", le)
    nqrow("bursty, `out` of 16, StaticDma, ring of 64 (the firmware's)", "phase:static:64:16:b", le)
    nqrow("bursty, `out` of 4, StaticDma, ring of 64", "phase:static:64:4:b", le)
    if "phase:dmabuf:4096:1:1" in t3q:
        nqrow("1 per call through an `out` of 1 (DmaBuf; the second checker's shape: its khal 44.0, C tail 51.0, C phase 44.0 at 228306c)",
              "phase:dmabuf:4096:1:1", "trickle ≤ C-style (≤ 60)")
    for n in (1, 2, 3, 8):
        nqrow("%d per call through an `out` of 16 (DmaBuf)" % n, "phase:dmabuf:4096:16:%d" % n,
              "≤ C-style at 1, 2, 3, 8 per call (≤ 60 at 1)" if n > 1 else "trickle ≤ C-style (≤ 60)")
    c64 = [("C tail", t3q["ctail:static:64:1:1"]), ("C phase", t3q["cphase:static:64:1:1"])]
    nqrow("ring of 64, 1 per call (a wrap every 64), StaticDma, `out` of 1", "phase:static:64:1:1",
          "a wrap costs nothing per entry; ≤ C-style", c64,
          "; no wrap (ring 4096) %s" % f(t3q.get("phase:static:4096:1:1")))
    nqrow("the same through an `out` of 16, StaticDma", "phase:static:64:16:1", "≤ C-style", c64)
    nqrow("the same through an `out` of 16, DmaBuf", "phase:dmabuf:64:16:1", "≤ C-style", c64,
          "; no wrap (ring 4096) %s" % f(t3q["phase:dmabuf:4096:16:1"]))
    ct = lambda n: [("C tail", t3q["ctail:dmabuf:4096:16:%d" % n])]
    for n in (1, 2, 4):
        nqrow("tail mode, %d per call, `out` of 16" % n, "tail:dmabuf:4096:16:%d" % n,
              "tail mode at 1 per call vs C tail" if n == 1 else "tail mode at a few per call vs C tail", ct(n))
    nqrow("tail mode, 1 per call, ring of 64, StaticDma", "tail:static:64:16:1", "tail mode vs C tail",
          [("C tail", t3q["ctail:static:64:1:1"])])
    nqrow("tail mode, bursty, `out` of 16", "tail:dmabuf:4096:16:b", "tail mode vs C tail",
          [("C tail", t3q["ctail:dmabuf:4096:16:b"])])
    d1 = t3q["phase:dmabuf:4096:16:1"]
    nqrow("`drain_iter` of up to 16, 1 per call", "iter:dmabuf:4096:16:1", "`drain_iter` at 1 per call (≤ 2× `drain`)",
          [("2× `drain`", 2 * d1)], " (`drain` %s: %.2f×)" % (f(d1), t3q["iter:dmabuf:4096:16:1"] / d1))
    d1s = t3q["phase:static:64:16:1"]
    nqrow("`drain_iter` of up to 16, 1 per call, ring of 64, StaticDma", "iter:static:64:16:1",
          "`drain_iter` at 1 per call (≤ 2× `drain`)", [("2× `drain`", 2 * d1s)],
          " (`drain` %s: %.2f×)" % (f(d1s), t3q["iter:static:64:16:1"] / d1s))
    db = t3q["phase:dmabuf:4096:16:b"]
    nqrow("`drain_iter` of up to 16, bursty", "iter:dmabuf:4096:16:b", "≤ 2× `drain`",
          [("2× `drain`", 2 * db)], " (`drain` %s: %.2f×)" % (f(db), t3q["iter:dmabuf:4096:16:b"] / db))
    for key, name in (("phase:dmabuf:4096:16:b", "two rings polled alternately, bursty, DmaBuf, ring 4096"),
                      ("phase:static:64:16:b", "two rings polled alternately, bursty, StaticDma, ring of 64"),
                      ("phase:static:64:16:1", "two rings polled alternately, 1 per call each, StaticDma, ring of 64")):
        rest = key.split(":", 1)[1]
        refs = [("C tail", t3p["ctail:" + rest]), ("C phase", t3p["cphase:" + rest])]
        k = t3p[key]
        w("| %s | %s | %s | %s | %s | %s |" % (name, b3("pair:" + key), f(k),
          ", ".join("%s %s" % (n, f(r)) for n, r in refs), le, vs(k, refs)))
    for key, name, ref in (("phase:static:64", "idle poll, ring of 64 after a wrap, StaticDma", "cphase:static:64"),
                           ("phase:dmabuf:4096", "idle poll, ring 4096 after a wrap, DmaBuf", "cphase:static:64"),
                           ("tail:dmabuf:4096", "tail-mode idle poll, DmaBuf", "ctail:dmabuf:4096"),
                           ("tail:static:64", "tail-mode idle poll, ring of 64, StaticDma", "ctail:dmabuf:4096")):
        k, r = t3i[key], t3i[ref]
        claim = "idle ≤ 20" if key.startswith("phase") else "—"
        ok = verdict(k <= 20) + " (≤ 20)" if key.startswith("phase") else "%.1f× C" % (k / r)
        w("| %s | %s | %s | C %s %s | %s | %s |" % (name, b3("idle:" + key), f(k), ref.split(":")[0][1:], f(r), claim, ok))
    for lay in ("fw2", "s3", "c5", "c6", "c7", "c8"):
        for m in ("u", "z"):
            key = "%s:%s" % (lay, m)
            c = t3c[key]
            over = c["khal"] - c["raw_add"]
            bo = before3.get("csr:" + key)
            w("| CSR `csr_read`, default lookup, `%s`, %s hits: over the raw add | %s | +%s (%s) | raw add %s, C linear scan %s | ≤ 8 windows ≤ +10 | %s (+%s); %s vs C scan |"
              % (lay, "uniform" if m == "u" else "uneven", "—" if bo is None else "+" + f(bo), f(over), f(c["khal"]),
                 f(c["raw_add"]), f(c["c_linear"]), verdict(over <= 10), f(over), verdict(c["khal"] <= c["c_linear"] + 0.05)))
    if "b8:u" in t3c:
        c = t3c["b8:u"]
        w("| CSR `csr_read`, default lookup, the `csr_lookup_8s` kernel's own layout (8 × 64 KiB, 1 MiB apart), uniform: over the raw add | %s | +%s (%s) | raw add %s, C linear scan %s; that kernel +%s (%s vs its raw add %s) | ≤ 8 windows ≤ +10 | %s (+%s) |"
          % ("+" + f(before3["csr:b8:u"]), f(c["khal"] - c["raw_add"]), f(c["khal"]), f(c["raw_add"]), f(c["c_linear"]),
             f(csr["windows_8_binary_search"] - csr["raw_add"]), f(csr["windows_8_binary_search"]), f(csr["raw_add"]),
             verdict(c["khal"] - c["raw_add"] <= 10), f(c["khal"] - c["raw_add"])))
    for lay in ("fw2", "c8"):
        c, hit = t3c[lay + ":miss"], t3c[lay + ":u"]["khal"]
        w("| CSR refused `csr_read` (outside every window), `%s` | %s | %s | C linear scan %s; khal hit %s | — | %.1f× C, %.1f× a hit |"
          % (lay, b3("miss:" + lay), f(c["khal"]), f(c["c_linear"]), f(hit), c["khal"] / c["c_linear"], c["khal"] / hit))
    for lay in ("fw2", "c8"):
        c = t3a[lay]
        w("| CSR `csr_write_array` of 8 dwords in one window, `%s` (Ir per register) | %s | %s | C %s, raw %s | — | %.1f× C |"
          % (lay, b3("arr:" + lay), f(c["khal"]), f(c["c"]), f(c["raw"]), c["khal"] / c["c"]))
    w("")
    w(THIRD_NOTES)

if isinstance(f4, dict):
    w("## The fourth checker's CSR routines (own kernels, references in the same run)\n")
    w("`tests/src/bin/khal_ir/chk4.rs` (`checker_cases.fourth`): one `#[inline(never)]` call is a "
      "driver's bring-up routine of `K` straight-line accesses to different windows, a read and "
      "then a write whose value depends on the reads so far, the first refused access ending "
      "it (`?`), the `Csr` behind `&` (`K` = 1: one read alone). References in the same run: "
      "the same routine over raw pointers with a fixed translation, and over a C linear scan "
      "of the region table ([000 §1] `find_region_for`, then the `[start, end - 4]` check). "
      "Every call's answer is checked against a linear model, and `k4chk:<layout>` checks every "
      "lookup at capacities 2 to 256 against it. Ir per access; `r8s4` and `r64` are random "
      "layouts of 8 and 64 windows, `p8` one built to defeat a cell index. Why a routine costs "
      "more per access than one read alone: each access's miss path is a call inside the "
      "routine, so the routine saves callee-saved registers on entry (about 14 Ir a call), "
      "which one read alone, whose miss is a tail call, does not.\n")
    w("The window column: each access through the `CsrWindow` of its window, resolved before the "
      "call (`Csr::window`, as an engine holds its block): the window test and the translation "
      "in line, and a refusal built in line, so the routine calls nothing and saves nothing.\n")
    w("| layout, K | default (cell index) | over raw | binary search | over raw | window (`Csr::window`) | over raw | raw pointers | C linear scan |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for k, v in f4.items():
        win = v.get("window")
        w("| `%s` | %s | +%s | %s | +%s | %s | %s | %s | %s |" % (k, f(v["default"]), f(v["default"] - v["raw"]), f(v["binary_search"]),
                                                                f(v["binary_search"] - v["raw"]),
                                                                f(win) if win is not None else "—",
                                                                ("+" + f(win - v["raw"])) if win is not None else "—",
                                                                f(v["raw"]), f(v["c_scan"])))
    w("")
f5 = (j.get("checker_cases") or {}).get("fifth")
if isinstance(f5, dict):
    w("## The fifth checker's CSR windows (own kernels, references in the same run)\n")
    w("`tests/src/bin/khal_ir/chk5.rs` (`checker_cases.fifth`), written apart from chk4.rs: an "
      "engine holding three `CsrWindow`s as fields brings itself up through `&self` (a "
      "read-modify-write, a status poll of at most 8, writes from the reads; one call in four "
      "times out) against a raw base pointer per block and against `csr_read` / `csr_write`; "
      "`K` chained accesses each through its own window (`K` = 16: windows indexed in a loop, "
      "neither form unrolled), with one call in 8 refused (`miss8`); 16 registers filled in a "
      "loop through one window. Layouts: `e3` identity regions, `odd` lengths of 4k + 2 bytes "
      "and translations 2 mod 4, `top` regions in the last 36 KiB of the 64-bit space. Ir per "
      "access (a refused access counted); every answer checked against a model.\n")
    w("| case | window | raw pointers | window over raw | other |")
    w("| --- | --- | --- | --- | --- |")
    for k, v in f5.items():
        if k.startswith("eng:"):
            w("| engine, `%s` | %s | %s | +%s | through `csr_read` / `csr_write` %s |" % (
                k[4:], f(v["window"]), f(v["raw"]), f(v["window"] - v["raw"]), f(v["csr"])))
        elif k.startswith("chain:"):
            w("| K = %s chained, `%s` | %s | %s | +%s | one call in 8 refused: %s |" % (
                k.split(":")[2], k.split(":")[1], f(v["window"]), f(v["raw"]), f(v["window"] - v["raw"]), f(v["window_miss8"])))
        elif k == "fill16":
            w("| 16 registers filled through one window | %s | %s | +%s | `write_burst` %s; a count from the caller: %s vs raw %s |" % (
                f(v["window"]), f(v["raw"]), f(v["window"] - v["raw"]), f(v["burst"]), f(v["window_n"]), f(v["raw_n"])))
    w("")
w("## Register access on thumbv7em (instructions per access, from the disassembly)\n")
w("| probe | instructions | what they are |")
w("| --- | --- | --- |")
desc = {
    "raw_write": "raw `write_volatile` through a pointer (the reference): `str`",
    "reg_write": "`BoundReg::write`, handle in a register: `str`",
    "reg_read": "`BoundReg::read`, handle in a register: `ldr`",
    "held_reg_write": "`BoundReg` held in a struct: load the pointer, `str`",
    "held_reg_read": "`BoundReg` held in a struct: load the pointer, `ldr`",
    "held_block_write": "`BoundBlock` held in a struct, `write(CTRL, v)`: load the block pointer, `str [p, #0xb8]` (the offset check folded)",
    "held_block_read": "`BoundBlock` held in a struct, `read(CTRL)`: load the block pointer, `ldr [p, #0xb8]`",
    "held_block_array_write": "`BoundBlock::at(HEAD, 3)` then `write`: the index check folded, `str [p, #0x184]`",
    "mmio_window_write": "for comparison, the address-based `Mmio` path (`CTRL.write(&window, base, v)`, its `Result` dropped): a call of the window's check-and-store (`VolatileWindow::store`, out of line on bare metal and shared by every access of an image: 64-bit subtract with borrow, high-word test, rotate + bound compare and the `str`, about 12 instructions, not counted here; the probe drops the result, so the call is a tail call), where a site that keeps the result also sets up the address and tests the returned `bool`",
}
for k in ["raw_write", "reg_write", "reg_read", "held_reg_write", "held_reg_read", "held_block_write", "held_block_read", "held_block_array_write", "mmio_window_write"]:
    if k in probe:
        w("| `%s` | %d | %s |" % (k, probe[k], desc[k]))
w("")
w("What remains per access through a bound handle: the access itself, plus one load "
  "of the handle's pointer when the handle lives in memory (an engine struct); in a "
  "loop the compiler keeps that pointer in a register, leaving the single `ldr`/`str`. "
  "The window and offset checks ran once, at `bind_block` / `reg` / `at` / `bind`.\n")

tc = j.get("target_instructions_per_call")
w("## Executed instructions on thumbv7em / riscv32 (per call, QEMU trace)\n")
if not isinstance(tc, dict):
    w("Not measured in this run (`scripts/target-count.sh` did not run).\n")
else:
    w("`scripts/target-count.sh` (in `scripts/bench.sh`, gated in `.ci/proof`): the image "
      "`ontarget/src/tcount.rs` (`khal-tcount`, built like the firmware: `opt-level = \"s\"`, LTO, "
      "one codegen unit) runs under QEMU (%s) with one instruction per translation block and an "
      "execution trace (`-d exec,nochain`), thumbv7em on `-M mps2-an386` (Cortex-M4F), riscv32imac "
      "on `-M virt`. Each probe is an `#[inline(never)]` function called through a function pointer; "
      "a call counts every instruction executed from the probe's entry to the first instruction back "
      "in the driver: the probe's frame (push / pop, return), its body and every out-of-line function "
      "it calls (`VolatileWindow::store`, `lookup_translate`, ...). Exact: every call of a scenario "
      "counts the same (min = max), except where noted. The C-style references are compiled into the "
      "same image, written over raw pointers as a C driver is (their entries `[u32; 4]`, aligned; "
      "`c_phase`: test the head entry's phase bit, copy, flip the expected phase at the wrap, one head "
      "store per non-empty poll, a compiler fence and no barrier instruction; `c_tail`: one tail "
      "register load, masked copy, one head store; C take-one: the leanest phase poll, at most one "
      "entry, no `out` slice; C `csr_write`: a linear scan of the 2 registered "
      "regions for `start <= p <= end - 4`, one store to `device_addr + (p - start)`, no alignment "
      "or window test). khal: `NqRing::drain` in phase mode, "
      "`StaticDma`, the default `max_batch`, a 64-entry ring (the firmware's; 8 entries for the wrap). "
      "Commit `%s`.\n" % (", ".join(sorted({v["qemu"] for v in tc.values() if isinstance(v, dict)})), tc.get("commit", "?")))
    tgts = [t for t in ("thumbv7em", "riscv32imac") if isinstance(tc.get(t), dict)]
    rows = [
        ("phase `drain`, one new entry, `out` of 1, mid-ring", "drain1", ["c_one1", "c_phase1", "c_tail1"]),
        ("phase `drain`, one new entry, `out` of 1, taking the ring's last slot (the wrap)", "drain1_wrap", ["c_phase1_wrap"]),
        ("phase `drain`, one new entry, `out` of 16 (a trickle)", "trickle16", ["c_phase_trickle16", "c_tail_trickle16"]),
        ("idle poll (nothing new), `out` of 1", "idle1", ["c_one_idle1", "c_phase_idle1", "c_tail_idle1"]),
        ("idle poll (nothing new), `out` of 16", "idle16", ["c_phase_idle1", "c_tail_idle1"]),
        ("tail-mode `drain`, one new entry (the tail register moved), `out` of 1", "tail1", ["c_tail1"]),
        ("tail-mode `drain`, nothing new, `out` of 1", "tail_idle1", ["c_tail_idle1"]),
        ("`csr_write` hit, `Csr<_, 4>`, 2 regions, the default lookup", "csr_write", ["c_csr_write", "raw_write"]),
        ("`Mmio::write32` through a `CsrWindow` (`Csr::window`), the window held by reference", "csr_window_write", ["c_csr_write", "raw_write"]),
        ("`Mmio::write32` through a CSR window bound in the `VolatileWindow` (`Csr::bind_window`), held by reference", "csr_bound_window_write", ["c_csr_write", "window_write"]),
        ("a constant register of a block bound through the table (`Csr::bind_block`), held by reference", "csr_block_write", ["raw_write"]),
        ("`Mmio::write32` through the `VolatileWindow` (the address path)", "window_write", ["raw_write"]),
        ("the fifth checker: a read-modify-write of a constant register of a CSR block (`Csr::bind_block`) held in a struct", "k5_block_rmw", ["k5_raw_rmw"]),
        ("the fifth checker: a read through a `CsrWindow` at `start + 0x10`", "k5_window_read", ["window_write"]),
        ("the fifth checker: phase `drain`, one new entry, `out` of 1, the notification engine on a `CsrWindow`", "k5_drain1_win", ["drain1"]),
        ("the fifth checker: the same ring's idle poll", "k5_idle1_win", ["idle1"]),
        ("`BoundReg::write`, the handle held by reference", "bound_write", ["raw_write"]),
    ]
    names = {"c_phase1": "C phase", "c_tail1": "C tail", "c_phase1_wrap": "C phase",
             "c_phase_trickle16": "C phase", "c_tail_trickle16": "C tail",
             "c_phase_idle1": "C phase", "c_tail_idle1": "C tail", "raw_write": "raw store",
             "c_csr_write": "C `csr_write`", "window_write": "`VolatileWindow` write", "k5_raw_rmw": "raw read-modify-write", "drain1": "the ring on the window itself", "idle1": "the ring on the window itself", "c_one1": "C take-one", "c_one_idle1": "C take-one"}
    w("| probe | " + " | ".join("%s: khal | %s: reference(s) | %s: khal / reference" % (t, t, t) for t in tgts) + " |")
    w("| --- |" + " --- | --- | --- |" * len(tgts))
    for label, k, refs in rows:
        cells = []
        for t in tgts:
            sc = tc[t]["instructions_per_call"]
            v = sc.get(k)
            if v is None:
                cells += ["—", "—", "—"]
                continue
            kv = "%d" % v["max"] if v["min"] == v["max"] else "%s (%d to %d)" % (f(v["per_call"]), v["min"], v["max"])
            def one(v):
                return "%d" % v["max"] if v["min"] == v["max"] else "%s (%d to %d)" % (f(v["per_call"]), v["min"], v["max"])
            rv = ", ".join("%s %s" % (names[r], one(sc[r])) for r in refs if r in sc)
            ratio = " / ".join("%.2f×" % (v["per_call"] / sc[r]["per_call"]) for r in refs if r in sc)
            cells += [kv, rv, ratio]
        w("| %s | %s |" % (label, " | ".join(cells)))
    w("")
    w("Where the instructions of one call go (the first call of each scenario, by function):\n")
    w("| probe | " + " | ".join(tgts) + " |")
    w("| --- |" + " --- |" * len(tgts))
    for label, k, refs in rows:
        cells = []
        for t in tgts:
            v = tc[t]["instructions_per_call"].get(k, {})
            by = v.get("first_call_by_function", {})
            cells.append(", ".join("`%s` %d" % (fn, n) for fn, n in by.items()) or "—")
        w("| %s | %s |" % (label, " | ".join(cells)))
    w("")
    w("Every count includes the probe's own frame and return (the raw store's probe is the frame, "
      "the store and the return). A C-style reference here is a function of the same shape "
      "(a slice `out`, state in memory), not a hand-tuned loop; on thumbv7em khal's drain also pays "
      "a `dmb` (the Acquire fence the sound `DmaMemory` contract needs) that the C-style references "
      "do not.\n")

w("## CSR lookup (`csr_read`, Ir per access)\n")
if isinstance(cpc, dict):
    w("Per call (issue 12's row; `tests/src/bin/khal_ir/csr.rs`): one `#[inline(never)]` `csr_read` "
      "per access, returning its `Result<u32>`, against one raw add and the same load returning "
      "`Ok`, over a backend that loads at the translated address (masked into a 64 KiB buffer, so "
      "the translation is computed as a real access computes it). 10 000 addresses per layout, "
      "each window as likely as another, a random dword in its first 1 MiB. The default lookup "
      "is `CellIndex<N>` (`8 N` cells); the binary search is `RegionTable<N, BinarySearch>`.\n")
    w("| layout | windows | default (cell index) | over the raw add | binary search | over the raw add |")
    w("| --- | --- | --- | --- | --- | --- |")
    names = {"fw2_cap4": ("the firmware's 2 windows in a `Csr<_, 4>`", 2), "s3": ("SUNDA HBM 0, 1 and TPB", 3),
             "b4": ("4 × 64 KiB, 1 MiB apart", 4), "c5": ("CAYMAN PREPROC 0..3 and TPB 0", 5), "r5": ("5 random", 5),
             "c6": ("CAYMAN HBM 0..3, PREPROC 0, 1", 6), "r6": ("6 in two close pairs over 60 GiB", 6),
             "c7": ("CAYMAN TPB 0..6", 7), "p7": ("7 a power of two apart (1 to 64 MiB)", 7),
             "b8": ("8 × 64 KiB, 1 MiB apart", 8), "8b": ("8 irregular (1 KiB to 1 MiB, adjacent or 4 MiB apart, misaligned translations)", 8),
             "8m": ("8 in two mesh halves 2^47 apart", 8), "c8": ("CAYMAN TPB 0..7", 8), "t8": ("8 tiny adjacent (1 KiB)", 8),
             "c3": ("**built against cells**: three in one cell", 6), "p8": ("**built against cells**: a power of two apart (2^16 to 2^40)", 8),
             "b16": ("16 × 64 KiB", 16), "g16": ("16 uneven (4 KiB to 1 MiB)", 16), "b64": ("64 × 64 KiB", 64)}
    for k, v in cpc.items():
        if not isinstance(v, dict) or "default" not in v or "raw_add" not in v:
            continue
        label, n = names.get(k, (k, "?"))
        w("| `%s`: %s | %s | %s | +%s | %s | +%s |" % (k, label, n, f(v["default"]), f(v["default_over_raw_add"]), f(v["binary_search"]), f(v["binary_search_over_raw_add"])))
    if "miss_b8" in cpc:
        w("| a refused access (outside every window), `b8` | 8 | %s | — | %s | — |" % (f(cpc["miss_b8"]["default"]), f(cpc["miss_b8"]["binary_search"])))
    w("")
    w("What one accepted access through the default is, on x86-64: 15 instructions against "
      "the raw add's 7. Both have the same six (the backend's buffer pointer, the mask, the load, "
      "the two stores of the `Result`, the return); where the raw add subtracts once, the lookup "
      "has nine: load the multiplier, multiply, shift (the cell); copy the address, subtract the "
      "entry's key, rotate right by 2, compare with its span, branch "
      "(`t = (p - key).rotate_right(2) < span`: the bounds `[start, end - 4]` and the translated "
      "address's alignment in one compare); add the entry's `delta` (the translation). An access "
      "its cell leads to the next entry pays one more test (5 instructions); one its cell does "
      "not resolve tail-calls the cold miss path, which runs the binary search and then "
      "the exact answer. The binary search is "
      "2 steps for 4 slots, a decision tree of constant probes for 5 to 32, a loop past 32. "
      "Before this change the default was the binary search, the table an `Option` tested "
      "on every access, a miss a call that kept a frame on the fast path, and the translation "
      "`dev + 4t`: per call +19 to +21 at 4 to 8 windows for either lookup, measured in this "
      "kernel at the change's start.\n")
w("The loop kernel (`ir_csr_lookup`): `csr_read` on 10 000 valid addresses in a random order "
  "(a fixed LCG) over the same loading backend, counting the accepted ones, against "
  "`ir_raw_translate`, the same loads at `p - 0`, a loop the compiler unrolls four times "
  "with nothing to test (its 4.75 Ir per access is 4 instructions and a quarter of the "
  "loop's 3). Before this session the backend answered 0 without using the address and "
  "the raw add went through `black_box`, which made both figures about 5 Ir kinder to khal "
  "(the third checker's finding).\n")
w("| windows | Ir | over the raw add |")
w("| --- | --- | --- |")
for n, key in (("4, binary search", "windows_4"),
               ("8, binary search (`csr_lookup_8s`)", "windows_8_binary_search"),
               ("8, `CellIndex` (128 cells)", "windows_8"), ("8, irregular, `CellIndex` (`csr_lookup_8b`)", "windows_8_irregular"),
               ("8, two mesh halves, `CellIndex` (`csr_lookup_8m`)", "windows_8_mesh"),
               ("64, `CellIndex` (`csr_lookup_64c`)", "windows_64_cell_index"),
               ("64, binary search (`csr_lookup_64s`)", "windows_64_binary_search"),
               ("256, binary search", "windows_256"),
               ("256, `CellIndex` (`csr_lookup_256c`)", "windows_256_cell_index")):
    if key in csr:
        w("| %s | %s | +%s |" % (n, f(csr[key]), f(csr[key] - csr["raw_add"])))
w("| raw add (the same addresses, one subtract and the load) | %s | — |" % f(csr["raw_add"]))
w("")
w("Measured and not kept (earlier sessions, in the bench's loop kernel then): a "
  "breadth-first (Eytzinger) layout, plain branches instead of `select_unpredictable`, a "
  "cell of two candidates at `2c` and `2c + 1`, a branch choosing the entry, a "
  "breadth-first step `i = 2i + (sep < a)`, the loop with its last step as a carry, a "
  "branch-free second level of the tree. This session: the cell index's one compare "
  "choosing between entries `c` and `c + 1` (`i = c + (p >= key[c + 1])`, 3 instructions "
  "more than testing entry `c` first on every ordinary layout: +11 per call); 16 cells "
  "for 8 windows, and 4 cells a slot (`8b` +9.6, `r6` +10.5 with `4 N` cells; the default has `8 N`).\n")


w("## Earlier targets (anchors §7), still measured\n")
w("| figure | measured | target | verdict |")
w("| --- | --- | --- | --- |")
rw, rr, ra = ir["register_write"], ir["register_read"], ir["register_array_write"]
w("| typed register write vs raw `write_volatile` (Ir/op, x86-64) | %s vs %s = **%s** | ≤ 1.01 | %s |" % (f(rw["typed"], 3), f(rw["raw"], 3), f(rw["typed_vs_raw"], 3), verdict(rw["typed_vs_raw"] <= 1.01)))
w("| typed register read vs raw (Ir/op) | %s vs %s = **%s** | ≤ 1.01 | %s |" % (f(rr["typed"], 3), f(rr["raw"], 3), f(rr["typed_vs_raw"], 3), verdict(rr["typed_vs_raw"] <= 1.01)))
w("| typed array register (`HEAD.at(3)`) write vs raw | %s vs %s = **%s** | ≤ 1.01 | %s |" % (f(ra["typed"], 3), f(ra["raw"], 3), f(ra["typed_vs_raw"], 3), verdict(ra["typed_vs_raw"] <= 1.01)))
nd = ir["nq_drain_per_entry"]
w("| NQ drain, Ir per entry (phase, default 128 per call, `DmaBuf`) | **%s** | ≤ 20 | %s |" % (f(nd["dmabuf"]), verdict(nd["dmabuf"] <= 20)))
w("| the same with a `DmaMemory` implementing only the required methods | %s | — | what a minimal backend costs |" % f(nd["word_ring"]))
w("| NQ drain throughput vs memcpy (time, `DmaBuf`, 128 per call) | **%s** | ≥ 0.25 | %s |" % (f(tm["drain_throughput_vs_memcpy"], 3), verdict(tm["drain_throughput_vs_memcpy"] >= 0.25)))
w("| MMIO reads per drained entry, phase mode | **%s** (%d entries, 3 wraps) | 0 | %s |" % (nq["mmio_reads_per_entry_phase_mode"], nq["drained"], verdict(nq["mmio_reads_per_entry_phase_mode"] == 0)))
w("| head writes per non-empty drain | **%s** (%d drains) | 1 | %s |" % (nq["head_writes_per_nonempty_drain"], nq["nonempty_drains"], verdict(nq["head_writes_per_nonempty_drain"] == 1)))
w("| MMIO accesses per idle poll | **%s** | 0 | %s |" % (nq["mmio_accesses_per_idle_poll"], verdict(nq["mmio_accesses_per_idle_poll"] == 0)))
w("| CSR lookup (`csr_read`), Ir per access: 4 / 8 (cell index) / 256 windows | %s / %s / %s; raw add %s | not linear in the windows | %s (256 vs 4: %s×) |" % (
    f(csr["windows_4"]), f(csr["windows_8"]), f(csr["windows_256"]), f(csr["raw_add"]), verdict(csr["ratio_256_vs_4"] <= 3), f(csr["ratio_256_vs_4"], 2)))
if isinstance(tb.get("regs"), dict):
    r = tb["regs"]
    w("| typed vs raw, time (`regs` bench) | write %s, read %s, array %s | 1.00 | %s |" % (
        f(r["typed_vs_raw_write_time"], 3), f(r["typed_vs_raw_read_time"], 3), f(r["typed_array_vs_raw_write_time"], 3),
        verdict(max(r["typed_vs_raw_write_time"], r["typed_vs_raw_read_time"], r["typed_array_vs_raw_write_time"]) <= 1.05)))
if isinstance(tb.get("nq_drain"), dict):
    r = tb["nq_drain"]
    w("| NQ drain throughput vs memcpy, time (`nq_drain` bench, 10^6 notifications) | %s | ≥ 0.25 | %s |" % (
        f(r["throughput_ratio_to_memcpy"], 3), verdict(r["throughput_ratio_to_memcpy"] >= 0.25)))
if isinstance(tb.get("csr"), dict):
    r = tb["csr"]
    w("| CSR lookup, time (`csr` bench): 256 vs 4 windows | %s× (a linear scan: %s×) | not linear | %s |" % (
        f(r["ratio_256_over_4"], 2), f(r["linear_ratio_256_over_4"], 1), verdict(r["not_linear"])))
d = j["dispatch_ir_per_call_static_vs_anyarch"]
w("| static vs `AnyArch`, `get_axi_offset` (Ir/call, CAYMAN) | %s vs %s | ~1 | %s |" % (f(d["get_axi_offset"]["static"]), f(d["get_axi_offset"]["anyarch"]), verdict(d["get_axi_offset"]["anyarch_vs_static"] <= 1.05)))
w("| static vs `AnyArch`, `EVENTS_SEMAPHORES_NT` read-modify-write (Ir/call) | %s vs %s | ~1 | %s |" % (f(d["events_semaphores_nt_rmw"]["static"]), f(d["events_semaphores_nt_rmw"]["anyarch"]), verdict(d["events_semaphores_nt_rmw"]["anyarch_vs_static"] <= 1.05)))
w("")

w("## Firmware images (`.text`, bytes)\n")
memfn = j.get("firmware_mem_fns", {})
if not isinstance(memfn, dict):
    memfn = {}


def memfn_bytes(k):
    m = memfn.get(k)
    return m["bytes"] if isinstance(m, dict) else "—"


if isinstance(fw, dict):
    w("| image | `.text` | of which C memory functions |")
    w("| --- | --- | --- |")
    for k, v in fw.items():
        w("| `%s` | %s | %s |" % (k, v, memfn_bytes(k)))
else:
    w("The firmware build failed in this run: %s." % fw)
w("")
w("Profile (`firmware/Cargo.toml`, what CI builds and what this table measures): "
  "`opt-level = \"s\"`, `lto = true`, `codegen-units = 1`, `panic = \"abort\"`. "
  "`opt-level = \"z\"` links the panic-never proof since issue 12's rework, but saved "
  "only 44 bytes on `fw-cayman` when it was tried (1 384 on `fw-mariana`), so the "
  "profile stays `\"s\"`. \"C memory functions\" are "
  "`memcpy` / `memclr` / `memset` / `memmove` and their `__aeabi_` entry points (`nm`); "
  "no 64-bit division (`__aeabi_uldivmod`, `__udivmoddi4`, `udiv`) is linked in any image.\n")
# Known sources of the calls, by caller (and callee) name.
why = [
    ("read_new_entries_slow", "`Error` values (27 bytes, alignment 1) moved through `?` in the byte-wise slow path (never taken by a ring)"),
    ("drain_iter", "the iterator's 16-entry chunk buffer, zeroed on the stack, then copied into the returned `Drain`"),
    ("main -> __aeabi_memcpy", "moves of the `Drain` iterator (about 280 bytes) in the bring-up"),
    ("main -> __aeabi_memclr4", "the zero fills of 16-entry buffers: the bring-up's drain buffer and the iterator's chunk buffer (`drain_iter`, inlined)"),
    ("main -> __aeabi_memclr8", "the zero fill of the CSR table (`RegionTable<4, BinarySearch>`, built in place; 232 bytes: the images name the binary search, which carries no index) and of the bring-up's 16-entry drain buffer"),
    ("MsixIntc", "the MSI-X handle (about 1.8 KiB: two 56-entry arrays) built in temporaries and moved into `Intc::new`"),
    ("read_new_entries ->", "a byte-copy loop over a loaded word's bytes (`AtomicWords::read`), which LLVM turns into `memcpy`"),
    ("reset ->", "the partial-word merge of `AtomicWords::write` (a byte-copy loop into the word's bytes, turned into `memcpy`)"),
    ("Iterator", "16-byte `NqEntry` moves (alignment 1)"),
]
cay_calls = memfn.get("fw-cayman", {}).get("callers", {}) if isinstance(memfn.get("fw-cayman"), dict) else {}
if cay_calls:
    w("Calls into them in `fw-cayman`, from the disassembly:\n")
    for call, n in cay_calls.items():
        reason = next((r for key, r in why if key in call), "")
        w("- `%s` ×%d%s" % (call, n, (": " + reason) if reason else ""))
    w("")
w("`fw-probe` holds only the access probes. Before issue 12, `fw-cayman` was 11 480 "
  "bytes, 21% of it `memmove`/`memcpy` pulled in by `heapless::Vec::insert` in the "
  "CSR `RegionTable`. The table is now a fixed array whose `insert` moves each region "
  "by one copy, created in place (`Csr::with_empty_table` + `regions_mut`) by one zero "
  "fill, so neither `memmove` nor `memcpy` is linked for it; that fill is 232 bytes "
  "(the cell index is a lookup type the 4-slot table does not name), and the slow "
  "path's `find` is the same branch-free search over the starts as the fast path's "
  "over the keys (118 bytes of code, where `partition_point` took 162). " + (
      "No `memcpy` is linked in `fw-cayman`: `AtomicWords` stores each entry in place, "
      "`drain_iter` reads straight from the ring (no chunk buffer) and `Drain::finish` "
      "borrows the iterator."
      if not any("memcpy" in c for c in cay_calls) else
      "Its calls are listed above.") + " On bare metal (`target_os = \"none\"`) three "
  "checks are single out-of-line functions shared by every call site, where hosts "
  "inline them (so the host figures above are unchanged by it): `VolatileWindow`'s "
  "address check with its access (`store` / `load`: an address-based access is the "
  "address, a call and a test of the returned `bool` / `Option`; bound handles and the "
  "NQ head's `MmioSlot` do not call them), the CSR layer's lookup (`lookup_translate`) "
  "and the NQ run copy (`copy_new`).\n")

if len(sys.argv) > 3:
    w(open(sys.argv[3]).read().rstrip() + "\n")

w("## The JSON summary of that run\n")
w("```json")
w(json.dumps(j, indent=1))
w("```\n")
w("## Adding a figure\n")
w("Add an `#[inline(never)] pub fn ir_<name>` kernel to "
  "`tests/src/bin/khal_ir/kernels.rs` (setup outside it, `N` operations inside), a "
  "scenario arm in `main.rs` that runs it once and prints `ops=<n>`, one "
  "`ir <scenario> <kernel>` line plus its JSON field in `scripts/bench.sh`, and its "
  "row here in `scripts/perf-doc.py`. A time bench in `tests/benches/` joins the "
  "summary by printing one JSON line starting with `{`. A met deterministic target "
  "gets its check in `.ci/proof`.\n")

out_s = "\n".join(out)
sys.stdout.write(out_s)
