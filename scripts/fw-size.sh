#!/usr/bin/env bash
# The firmware images of examples/ (fw-sunda, fw-cayman, fw-mariana; for
# thumbv7em-none-eabihf, release: opt-level "s", LTO, panic abort, no defmt:
# the panic-never proof's build): builds them and prints ONE JSON object on
# stdout, per image its .text bytes (`size -A`), its path, and its functions,
# largest first (`nm --size-sort`, demangled, hashes dropped): where the bytes go.
#
#   scripts/fw-size.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cargo-exe.sh
# One image per build: the facade takes exactly one arch feature on a
# firmware build, and one build of several images would unify theirs.
exes=""
for arch in sunda cayman mariana; do
  exe=$(cd examples && cargo_exe --release --target thumbv7em-none-eabihf -p "khal-example-$arch") \
    || { echo "firmware build of fw-$arch failed" >&2; exit 1; }
  exes+="$exe"$'\n'
done
python3 - <<PY
import json, re, subprocess
out = {}
for line in """$exes""".splitlines():
    name, path = line.split(None, 1)
    if not re.fullmatch(r"fw-(sunda|cayman|mariana)", name):
        continue
    size = subprocess.run(["size", "-A", path], capture_output=True, text=True, check=True).stdout
    text = next(int(f[1]) for f in (l.split() for l in size.splitlines()) if f and f[0] == ".text")
    nm = subprocess.run(["nm", "-S", "-C", "--size-sort", "-r", path], capture_output=True, text=True, check=True).stdout
    funcs = []
    for l in nm.splitlines():
        f = l.split(None, 3)
        if len(f) == 4 and f[2] in "tT":
            funcs.append([re.sub(r"::h[0-9a-f]{16}$", "", f[3]), int(f[1], 16)])
    out[name] = {"text": text, "elf": path, "functions": funcs}
print(json.dumps(out, indent=1))
PY
