#!/usr/bin/env python3
"""Write the seed corpora of the fuzz targets (fuzz/corpus/<target>/seed-*).

Each seed encodes, in the byte format the target reads (see khal_fuzz::Input:
little-endian, fields read front to back), the values of the unit and
integration tests: the CSR tests' two adjacent windows and their
start / end-4 / end-3 probes, the NQ tests' rings (tail and phase mode, the
faults: all-ones tail, misaligned tail, tail past the ring), the INTC tests'
vectors 7/8, periods 15/16, blocks 55/56. Run: `python3 fuzz/seeds.py`.
"""
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def u8(v): return struct.pack("<B", v & 0xFF)
def u16(v): return struct.pack("<H", v & 0xFFFF)
def u32(v): return struct.pack("<I", v & 0xFFFFFFFF)
def u64(v): return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def write(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


# ---- csr_regions ---------------------------------------------------------
def window(start, length, dev):
    # bool=1 -> raw u64 start; len selector 3 -> raw u64; dev bool=0 -> raw u64
    return u8(1) + u64(start) + u8(3) + u64(length) + u8(0) + u64(dev)


def probe(win, kind, delta=0):
    # pick >= 32 -> window `win`; kind 0 start, 1 end-4, 2 end-3, 3 end, 4 start-1
    return u8(32 + win) + u8(kind) + u8(delta)


two = u8(2) + window(0x1100, 0x100, 0x8000) + window(0x1000, 0x100, 0x0)
# Sorted table: index 0 is the window inserted first in the model list
# (0x1100), index 1 is 0x1000.
ops = b""
ops += u8(0) + probe(1, 0)                 # read start
ops += u8(1) + probe(1, 1) + u32(2)        # write end-4
ops += u8(1) + probe(1, 2) + u32(3)        # write end-3: refused
ops += u8(0) + probe(1, 3)                 # read end (next window's start)
ops += u8(0) + probe(1, 4)                 # start-1: no region
ops += u8(2) + u8(3) + probe(1, 1, 0xF8) + probe(1, 1) + probe(0, 0) + u32(1) + u32(2) + u32(3)  # straddling array
ops += u8(4) + probe(0, 0) + u8(4)         # axi_write 4 words
ops += u8(4) + probe(1, 0, 4) + u8(64)     # burst one dword too long
ops += u8(5) + probe(1, 0) + u8(3)         # mem_read_buf
write("csr_regions", "two-windows", two + ops)
write("csr_regions", "overlaps", u8(5) + window(0x100, 0x100, 0) + window(0x80, 0x81, 0)
      + window(0x1FF, 0x101, 0) + window(0x200, 0x100, 0) + window(0x10, 3, 0)
      + u8(0) + probe(0, 1) + u8(0) + probe(1, 2))
write("csr_regions", "wrap", u8(2) + window(0x10, 0x10, 0xFFFFFFFFFFFFFFFB)
      + window(0xFFFFFFFFFFFFFF00, 0xF0, 0xFFFFFFFFFFFFFF00) + u8(0) + probe(1, 1) + u8(4) + probe(1, 1) + u8(9))

# ---- nq_consumer ---------------------------------------------------------
def nq_header(flavour_single, index, entries, mode_phase, polls, device=False, max_batch=None):
    h = u8(1 if flavour_single else 0) + u8(index) + u8(entries - 1) + u8(200)  # size = entries*16
    h += u8(16)  # 16 extra bytes after the ring (must never be touched)
    h += u8(1 if mode_phase else 0) + u8(polls)
    h += (u8(1) + u8(max_batch)) if max_batch is not None else u8(0)
    if not mode_phase:
        h += u8(1 if device else 0)
    return h


def entries_phase(first, count, phase):
    """op 4: the device writes `count` entries from slot `first`, phase bit `phase`."""
    out = b""
    for i in range(count):
        e = bytearray(16)
        e[0] = i
        e[3] = 0x80 if phase else 0
        out += u8(4) + u16((first + i) * 16) + u8(16) + bytes(e)
    return out


def tails(*vals):
    b = u8(5) + u8(len(vals) - 1)
    for v in vals:
        b += u8(0) + u32(v)
    return b


drain = lambda n: u8(0) + u8(n)
write("nq_consumer", "phase-3-wraps", nq_header(False, 0, 8, True, 2) + u8(7)
      + entries_phase(0, 8, 1) + drain(8) + entries_phase(0, 8, 0) + drain(3) + drain(8)
      + entries_phase(0, 8, 1) + u8(2) + u8(5) + u8(2) + drain(79))
write("nq_consumer", "tail-faults", nq_header(False, 3, 4, False, 3) + u8(7)
      + tails(0xFFFFFFFF) + drain(4) + tails(0x18) + drain(4) + tails(0x40) + drain(4)
      + tails(0x30) + entries_phase(0, 3, 1) + drain(4) + u8(3))
write("nq_consumer", "tail-overrun", nq_header(True, 0, 16, False, 1, device=True, max_batch=2)
      + tails(0x80) + entries_phase(0, 4, 1) + drain(16) + drain(16) + u8(6) + drain(1))
write("nq_consumer", "odd-size", u8(0) + u8(0) + u8(0) + u8(1) + u16(0x18) + u8(0) + u8(1) + u8(0) + u8(0))

# ---- intc_nq_args ---------------------------------------------------------
# init: base byte (>=16 -> Some), num_queues via idx (selector 2 -> u8 % 12), bp, uart
init_ok = u8(200) + u8(2) + u8(10) + u8(2) + u8(0) + u32(0)
blocks = (u8(2) + u8(55) + u32(0x1000)) + (u8(1) + u8(0) + u32(0x2000)) + (u8(2) + u8(3) + u32(0x3000)) + (u8(0) + u32(56) + u32(0))
vec = lambda op, v: u8(op) + u8(2) + u8(v)
ops = vec(0, 7) + vec(0, 8) + vec(1, 7) + vec(1, 9) + vec(2, 15) + vec(2, 16) + vec(3, 7) + vec(3, 8)
ops += u8(4) + u8(2) + u8(55) + u8(2) + u8(3) + u8(2) + u8(63) + u8(2) + u8(31) + u8(2)   # mask_interrupt on block 55
ops += u8(4) + u8(2) + u8(4) + u8(2) + u8(0) + u8(2) + u8(0) + u8(2) + u8(0) + u8(0)      # block 4: no base
ops += u8(5) + u8(2) + u8(9) + u8(2) + u8(7) + u8(2) + u8(7)                                # set_notific_queue_base ok
ops += u8(5) + u8(2) + u8(9) + u8(2) + u8(8) + u8(2) + u8(0)                                # block 8 refused
ops += u8(6) + u8(2) + u8(2) + u8(7) + u8(2) + u8(3) + u8(1) + u8(7) + u8(2) + u8(4) + u8(0)
ops += u8(10) + u8(2) + u8(9) + u8(0) + u8(4) + u16(64) + u8(1) + u8(1) + u8(0)            # NQ cfg ok
ops += u8(10) + u8(2) + u8(10) + u8(0) + u8(4) + u16(64) + u8(1) + u8(1) + u8(0)           # index 10 refused
write("intc_nq_args", "unit-values", init_ok + blocks + ops)
write("intc_nq_args", "init-refused", u8(0) + u8(2) + u8(11) + u8(2) + u8(3) + u32(7))

# ---- decode ---------------------------------------------------------------
for i, (arch, addr) in enumerate([(0, 0x30535000), (1, 0x8_0000_0000), (2, 0x8000_0000_0000), (2, 0xFFFF_FFFF_FFFF_FFFF), (1, 0)]):
    write("decode", "addr-%d" % i, u8(arch) + u8(0) + u8(1) + u64(addr) + u16(i) + b"0x30535000")
for w in range(1, 4):
    write("decode", "window-%d" % w, u8(w % 3) + u8(w) + u8(1) + u64(0x10C + 3 * 40) + u16(0) + b"12_345")
write("decode", "near-base", u8(2) + u8(0) + u8(0) + u16(3) + u32(0xFFFFFFFC) + u16(1) + b"0xZZ")
