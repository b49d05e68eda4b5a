#!/usr/bin/env python3
"""scripts/cg-kernel.py on hand-made callgrind files: the figure where the
kernel nests what matches its glob (what --toggle-collect lost), and each
refusal. Run by scripts/bench.sh before it measures; exit 1 on a mismatch.

    scripts/cg-kernel-test.py
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HEAD = "version: 1\npositions: line\nevents: Ir\n"

# (name, callgrind body, kernel glob, device glob, expected total or None
# for a refusal, a word the refusal must contain)
CASES = [
    # An outlined closure of the kernel: the toggles counted 100 - 40 = 60
    # (collection off inside the closure); its cost is the kernel's.
    ("nested closure", """
fn=(1) main
cfn=(2) k::ir_x
calls=1 0
0 100
fn=(2)
0 60
cfn=(3) k::ir_x::{{closure}}
calls=4 0
0 40
""", "*ir_x*", None, 100, None),
    # A kernel calling a kernel-named inner function through a helper.
    ("nested through a helper", """
fn=(1) main
cfn=(2) k::ir_x
calls=1 0
0 100
fn=(2)
cfn=(4) core::iter::map
calls=1 0
0 50
fn=(4)
cfn=(5) k::ir_x_inner
calls=3 0
0 45
""", "*ir_x*", None, 100, None),
    # The device's writes called by the kernel, and by the setup (not counted).
    ("device excluded", """
fn=(1) main
cfn=(6) k::ir_dev_write
calls=1 0
0 7
cfn=(2) k::ir_x
calls=1 0
0 100
fn=(2)
cfn=(6)
calls=8 0
0 30
""", "*ir_x*", "*ir_dev_*", 70, None),
    # The device reached through a helper inside the kernel: refused.
    ("device under a helper", """
fn=(1) main
cfn=(2) k::ir_x
calls=1 0
0 100
fn=(2)
cfn=(4) k::helper
calls=1 0
0 50
fn=(4)
cfn=(6) k::ir_dev_write
calls=1 0
0 30
""", "*ir_x*", "*ir_dev_*", None, "device function"),
    # A helper the setup calls too calls a kernel closure: refused.
    ("kernel under a shared helper", """
fn=(1) main
cfn=(4) k::helper
calls=1 0
0 20
cfn=(2) k::ir_x
calls=1 0
0 100
fn=(2)
cfn=(4)
calls=1 0
0 50
fn=(4)
cfn=(3) k::ir_x::{{closure}}
calls=2 0
0 15
""", "*ir_x*", None, None, "setup calls too"),
    # A function matching both globs (counted, or subtracted?): refused.
    ("both globs", """
fn=(1) main
cfn=(2) k::ir_x
calls=1 0
0 100
fn=(2)
cfn=(6) k::ir_x_dev_write
calls=1 0
0 30
""", "*ir_x*", "*_dev_*", None, "matches both"),
    # No kernel called (a wrong glob, an inlined kernel): refused.
    ("no kernel", """
fn=(1) main
cfn=(2) k::ir_y
calls=1 0
0 100
""", "*ir_x*", None, None, "no function matching"),
]


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for name, body, kglob, dglob, want, word in CASES:
            path = os.path.join(d, "cg")
            with open(path, "w") as f:
                f.write(HEAD + body)
            args = [sys.executable, os.path.join(HERE, "cg-kernel.py"), path, name, kglob]
            if dglob:
                args.append(dglob)
            r = subprocess.run(args, capture_output=True, text=True)
            if want is not None:
                ok = r.returncode == 0 and r.stdout.strip() == str(want)
            else:
                ok = r.returncode == 1 and word in r.stderr and name in r.stderr
            if not ok:
                bad += 1
                print("cg-kernel-test: %s: want %s, got exit %d, %r %r"
                      % (name, want if want is not None else "a refusal (%s)" % word,
                         r.returncode, r.stdout.strip(), r.stderr.strip()), file=sys.stderr)
    if bad:
        sys.exit(1)
    print("cg-kernel-test: %d cases passed" % len(CASES), file=sys.stderr)


if __name__ == "__main__":
    main()
