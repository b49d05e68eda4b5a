#!/usr/bin/env python3
"""Count the instructions of one probe call by single-stepping QEMU through
its gdbstub (GDB remote serial protocol), independent of target-count.sh's
exec trace.

    scripts/step-count.py <elf> <marker> <probe> <drive> <port> [calls]

(the elf: what `cargo build --profile tcount --target <target> --bin khal-tcount`
builds in ontarget/, where cargo reports it;
e.g. tcm_drain1 tcp_drain tcount_drive 23457 for the one-new-entry drain)

Breaks at <marker>, then at <probe>'s entry (the `calls`-th call after the
marker), then steps until the PC is back inside <drive>; prints the count of
executed instructions (the probe's entry to its return, inclusive) and the
list of PCs.
"""
import socket, subprocess, sys, time

elf, marker, probe, drive, port = sys.argv[1:6]
calls = int(sys.argv[6]) if len(sys.argv) > 6 else 1
syms = {}
for l in subprocess.run(["nm", "-S", elf], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 4:
        syms[f[3]] = (int(f[0], 16) & ~1, int(f[1], 16))
arm = "thumb" in elf
qemu = (["qemu-system-arm", "-M", "mps2-an386"] if arm else ["qemu-system-riscv32", "-M", "virt", "-bios", "none"])
q = subprocess.Popen(qemu + ["-nographic", "-monitor", "none", "-semihosting-config", "enable=on,target=native",
                             "-kernel", elf, "-S", "-gdb", "tcp::%s" % port],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1.0)
s = socket.create_connection(("127.0.0.1", int(port)))
buf = b""


def send(cmd):
    global buf
    pkt = b"$" + cmd.encode() + b"#" + ("%02x" % (sum(cmd.encode()) & 0xFF)).encode()
    s.sendall(pkt)
    while True:
        while b"#" not in buf or len(buf) < buf.index(b"#") + 3:
            buf += s.recv(4096)
        i = buf.index(b"$") if b"$" in buf else None
        if i is None:
            buf = b""
            continue
        j = buf.index(b"#", i)
        data = buf[i + 1:j].decode()
        buf = buf[j + 3:]
        s.sendall(b"+")
        return data


def pc():
    # ARM: register 15 (pc); RISC-V: register 32 (pc). Little-endian hex.
    r = send("g")
    i = 15 if arm else 32
    return int.from_bytes(bytes.fromhex(r[8 * i:8 * i + 8]), "little")


def run_to(addr, times=1):
    k = "Z1,%x,%d" % (addr, 2 if arm else 2)
    assert send(k) == "OK", "breakpoint"
    for _ in range(times):
        send("c")
    send("z1,%x,%d" % (addr, 2 if arm else 2))


try:
    run_to(syms[marker][0])
    run_to(syms[probe][0], calls)
    d0, d1 = syms[drive][0], syms[drive][0] + syms[drive][1]
    assert pc() == syms[probe][0]
    n, pcs = 0, []
    while True:
        pcs.append(pc())
        send("s")
        n += 1
        p = pc()
        if d0 <= p < d1:
            break
        if n > 100000:
            raise SystemExit("runaway")
    print(n)
    print(" ".join("%x" % p for p in pcs))
finally:
    q.kill()
