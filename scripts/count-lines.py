#!/usr/bin/env python3
"""Count the lines of a crate's sources: all lines, and code lines.

    python3 scripts/count-lines.py [DIR ...]     # default: hal-core/src

Code lines are the lines that are not blank, not comments (`//`, `//!`,
`///`, `/* ... */`) and not inside a `#[cfg(test)]` item (a test module or a
test-only function: the attribute, then the item up to its matching brace).
Also counted: `#[inline...]` / `#[cold]` attributes and `cfg(target_os`
mentions. Prints one line per directory and a total.
"""
import os
import re
import sys


def strip_strings(line):
    # Drop string and char literal contents so braces in them do not count.
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    return re.sub(r"'(\\.|[^'\\])'", "''", line)


def count_file(path):
    total = code = attrs = cfg_os = 0
    in_block_comment = False
    test_depth = None  # brace depth at which a #[cfg(test)] item started
    pending_test = False
    depth = 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for raw in lines:
        total += 1
        s = raw.strip()
        if re.search(r"#\[(inline|cold)\b", s):
            attrs += 1
        if "cfg(target_os" in s:
            cfg_os += 1
        if in_block_comment:
            if "*/" in s:
                in_block_comment = False
            continue
        if s.startswith("/*"):
            if "*/" not in s:
                in_block_comment = True
            continue
        is_comment = s == "" or s.startswith("//")
        body = strip_strings(s.split("//")[0]) if not is_comment else ""
        if not is_comment and re.match(r"#\[cfg\((all\()?test\b", s) and test_depth is None:
            pending_test = True
        in_test = test_depth is not None or pending_test
        if not is_comment and not in_test:
            code += 1
        opens, closes = body.count("{"), body.count("}")
        if pending_test and (opens or body.endswith(";")):
            if opens > closes:
                test_depth = depth
            pending_test = False
        depth += opens - closes
        if test_depth is not None and depth <= test_depth:
            test_depth = None
    return total, code, attrs, cfg_os


def main():
    dirs = sys.argv[1:] or ["hal-core/src"]
    grand = [0, 0, 0, 0]
    for d in dirs:
        sums = [0, 0, 0, 0]
        paths = [d] if os.path.isfile(d) else [
            os.path.join(root, name)
            for root, _, files in os.walk(d)
            for name in sorted(files)
            if name.endswith(".rs")
        ]
        for path in paths:
            for i, v in enumerate(count_file(path)):
                sums[i] += v
        print("%-28s %6d lines  %6d code  %4d inline/cold  %3d cfg(target_os" % (d, *sums))
        grand = [a + b for a, b in zip(grand, sums)]
    if len(dirs) > 1:
        print("%-28s %6d lines  %6d code  %4d inline/cold  %3d cfg(target_os" % ("total", *grand))


if __name__ == "__main__":
    main()
