#!/usr/bin/env python3
"""The Ir of one khal_ir kernel, from a callgrind output file collected
from the start (no --toggle-collect): its inclusive cost, minus the device
writes it calls. Prints the integer total, or fails (exit 1, a message naming
the scenario) when the call graph does not let that total be taken soundly.

    scripts/cg-kernel.py <callgrind.out> <scenario> <kernel glob> [<device glob>]

Why not `--collect-atstart=no --toggle-collect=<kernel glob>`: a toggle
TOGGLES. A callee whose name also matches (an outlined closure
`ir_k4_khal::{{closure}}`, a kernel `ir_x` calling `ir_x_inner`) switches
collection OFF inside it, and its cost vanishes without a trace: callgrind
writes no call arc whose collected cost is zero, so the output cannot even
show the nesting. Collected from the start, every call arc carries its
inclusive cost, and the kernel's figure is:

  the cost of the arcs INTO the kernel functions (names matching the kernel
  glob) from callers outside the kernel, minus the cost of the arcs from a
  kernel function to a device function (names matching the device glob).

A kernel function called inside the kernel (directly or through a helper) is
part of its cost, as the kernel's source says; where nothing matching is
nested this is exactly what the toggles counted. It fails when:
  - no kernel function was called (a wrong glob, an inlined kernel);
  - a device function is called from inside the kernel other than directly
    by a kernel function (through a helper the arc cannot tell the kernel's
    calls of from the setup's), or a kernel function is called back from a
    helper the setup calls too: the inside and outside costs are mixed;
  - the device cost exceeds the kernel's, or a function matches both globs.
Globs as callgrind's: `*` any run of characters, matched against the whole
demangled name.
"""
import fnmatch
import re
import sys


def parse(path):
    """(names by id, arcs {(caller, callee): inclusive Ir}) of a callgrind file."""
    names, arcs = {}, {}
    npos = 1
    fn = callee = None
    pending = None  # the callee of a `calls=` line, whose cost line comes next
    name_re = re.compile(r"^\((\d+)\)(?: (.*))?$")

    def ident(v):
        m = name_re.match(v)
        if not m:  # no name compression
            names.setdefault(v, v)
            return v
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return m.group(1)

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if pending is not None:
                if line and (line[0].isdigit() or line[0] in "+-*"):
                    fields = line.split()
                    ir = int(fields[npos]) if len(fields) > npos else 0
                    arcs[(fn, pending)] = arcs.get((fn, pending), 0) + ir
                    pending = None
                continue
            if line.startswith("positions:"):
                npos = len(line.split()[1:])
            elif line.startswith("events:"):
                if line.split()[1] != "Ir":
                    sys.exit("cg-kernel: %s: the first event is not Ir" % path)
            elif line.startswith("fn="):
                fn = ident(line[3:])
            elif line.startswith("cfn="):
                callee = ident(line[4:])
            elif line.startswith("calls="):
                pending = callee
    return names, arcs


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    path, scen, kglob = sys.argv[1:4]
    dglob = sys.argv[4] if len(sys.argv) == 5 else None
    names, arcs = parse(path)

    def matches(i, glob):
        return glob is not None and fnmatch.fnmatchcase(names.get(i, i), glob)

    kern = {i for i in names if matches(i, kglob)}
    dev = {i for i in names if matches(i, dglob)}
    both = kern & dev
    kern -= both
    dev -= both
    callees = {}
    for a, b in arcs:
        callees.setdefault(a, set()).add(b)
    # Everything the kernel reaches, not entering the device functions.
    inside, todo = set(kern), list(kern)
    while todo:
        for c in callees.get(todo.pop(), ()):
            if c not in inside and c not in dev:
                inside.add(c)
                todo.append(c)
    helpers = inside - kern
    shared = {h for h in helpers if any(b == h and a not in inside for a, b in arcs)}
    total, device = 0, 0
    bad = ["%s matches both the kernel's and the device's glob" % names.get(i, i) for i in sorted(both)]
    for (a, b), ir in sorted(arcs.items()):
        if b in kern and a not in inside:
            total += ir
        elif b in kern and a in shared:
            bad.append("kernel function %s is called from %s, which the setup calls too"
                       % (names.get(b, b), names.get(a, a)))
        elif b in dev and a in kern:
            device += ir
        elif b in dev and a in helpers:
            bad.append("device function %s is called from %s inside the kernel, not by the kernel itself"
                       % (names.get(b, b), names.get(a, a)))
    if not kern or total == 0:
        bad.append("no function matching %s was called" % kglob)
    if device > total:
        bad.append("the device cost %d exceeds the kernel's %d" % (device, total))
    if bad:
        for b in bad:
            print("cg-kernel: %s (kernel %s%s): %s"
                  % (scen, kglob, ", device %s" % dglob if dglob else "", b), file=sys.stderr)
        sys.exit(1)
    print(total - device)


if __name__ == "__main__":
    main()
