#!/usr/bin/env bash
# Fail if a polling loop bypasses the bounded-wait helper (hal-core/src/wait.rs).
#
#   scripts/check-polling.sh              # check the no_std crates
#   scripts/check-polling.sh --self-test  # prove the check can fail (and pass)
#   scripts/check-polling.sh DIR...       # check other source trees
#
# Every wait of khal must go through `wait::poll_until` (a period and a budget,
# `Timeout` at the end). This check scans the NON-TEST code of the no_std
# crates (hal-core/src, arch-*/src; a file's `#[cfg(test)]` module, which khal
# keeps at the end of the file, is cut off) for `loop` and `while` loops whose
# body or condition READS THE DEVICE, and fails on any outside wait.rs.
#
# The heuristic, and how it avoids false failures:
# - "reads the device": the loop text contains one of `read32(`, `.read(`
#   (a register handle), `.modify(`, `csr_read`, `read_array`, `mem_read_buf`,
#   `load_u8(` (DMA memory the device writes, e.g. a phase byte),
#   `read_volatile(` or `.status(` (a DMA queue's completion);
# - `for` loops are never flagged: they iterate a finite iterator or range;
# - `while let` loops are never flagged (they drain an iterator);
# - a counted `while` is not flagged: condition `i < bound` (or `<=`) on an
#   identifier `i` that the body increments (`i += ...`);
# - an explicit `// BOUNDED: <why>` comment on the line before a loop accepts
#   it (the reviewer sees the reason);
# - comments and string literals are blanked before matching, so a loop named
#   in a doc comment is not code.
set -euo pipefail
cd "$(dirname "$0")/.."

run_check() {
python3 - "$@" <<'PY'
import os, re, sys

READS = re.compile(r"read32\(|\.read\(|\.modify\(|csr_read|read_array|mem_read_buf|load_u8\(|read_volatile\(|\.status\(")
LOOP = re.compile(r"\b(loop|while)\b")

def strip(src):
    """Blank comments and string/char literals, keeping offsets and newlines."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j])); i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append('"' + re.sub(r"[^\n]", " ", src[i + 1:j - 1]) + '"'); i = j
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", src[i:i + 4]):
            m = re.match(r"'(\\.|[^\\'])'", src[i:i + 4])
            out.append(" " * len(m.group(0))); i += len(m.group(0))
        else:
            out.append(c); i += 1
    return "".join(out)

def non_test(src):
    m = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod\s+\w+\s*\{", src, re.M)
    return src[:m.start()] if m else src

def loops(code):
    """(keyword, start, header, body) of every loop/while in `code`."""
    for m in LOOP.finditer(code):
        kw = m.group(1)
        brace = code.find("{", m.end())
        if brace < 0:
            continue
        header = code[m.end():brace]
        if kw == "loop" and header.strip():
            continue  # `loop` is followed directly by its block
        depth, j = 0, brace
        while j < len(code):
            if code[j] == "{": depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0: break
            j += 1
        yield kw, m.start(), header, code[brace:j + 1]

def counted(header, body):
    h = header.strip()
    if h.startswith("let "):
        return True
    m = re.match(r"\(?\s*([A-Za-z_]\w*)\s*<=?\s*[^;{]+\)?$", h)
    return bool(m) and re.search(r"\b%s\s*\+=" % re.escape(m.group(1)), body) is not None

def check(paths):
    bad = []
    for root in paths:
        for d, _, files in os.walk(root):
            for f in sorted(files):
                if not f.endswith(".rs"):
                    continue
                p = os.path.join(d, f)
                if p.replace("\\", "/").endswith("hal-core/src/wait.rs"):
                    continue
                raw = non_test(open(p, encoding="utf-8").read())
                code = strip(raw)
                lines = raw.split("\n")
                for kw, start, header, body in loops(code):
                    if not READS.search(header + body):
                        continue
                    line = code.count("\n", 0, start) + 1
                    prev = lines[line - 2] if line >= 2 else ""
                    if "BOUNDED:" in prev:
                        continue
                    if kw == "while" and counted(header, body):
                        continue
                    bad.append("%s:%d: `%s` loop reads the device outside wait::poll_until" % (p, line, kw))
    return bad

bad = check(sys.argv[1:])
for b in bad:
    print(b)
if bad:
    print("check-polling: %d unbounded polling loop(s); use khal_core::wait::poll_until with a Budget" % len(bad))
    sys.exit(1)
print("check-polling: no polling loop bypasses wait::poll_until in %s" % " ".join(sys.argv[1:]))
PY
}

if [[ "${1:-}" == "--self-test" ]]; then
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
  mkdir -p "$t/bad" "$t/good"
  cat > "$t/bad/spin.rs" <<'RS'
fn spin<M: Mmio>(m: &M, a: DeviceAddr) -> Result<()> {
    loop {
        if m.read32(a)? == 0 { return Ok(()); }
    }
}
fn spin2(r: &impl DmaMemory) { while r.load_u8(3).unwrap_or(0) & 0x80 == 0 {} }
RS
  cat > "$t/good/bounded.rs" <<'RS'
/// A doc comment naming `loop { m.read32(a) }` is not code.
fn words<M: Mmio>(m: &M, a: DeviceAddr, out: &mut [u32]) -> Result<()> {
    for (i, o) in out.iter_mut().enumerate() { *o = m.read32(a.add(4 * i as u64))?; }
    let mut n = 0;
    while n < out.len() { let _ = m.read32(a)?; n += 1; }
    let s = "loop { read32( }";
    Ok(())
}
#[cfg(test)]
mod tests {
    fn test_spin(m: &M) { loop { m.read32(A).unwrap(); } }
}
RS
  if run_check "$t/bad" > "$t/out" 2>&1; then
    echo "self-test FAILED: the bad tree passed"; cat "$t/out"; exit 1
  fi
  [[ $(grep -c "reads the device" "$t/out") == 2 ]] || { echo "self-test FAILED: expected 2 findings"; cat "$t/out"; exit 1; }
  run_check "$t/good" > "$t/out" 2>&1 || { echo "self-test FAILED: the good tree failed"; cat "$t/out"; exit 1; }
  echo "check-polling self-test: ok (2 unbounded loops caught, bounded loops accepted)"
  exit 0
fi

if [[ $# -gt 0 ]]; then
  run_check "$@"
else
  run_check hal-core/src arch-sunda/src arch-cayman/src arch-mariana/src
fi
