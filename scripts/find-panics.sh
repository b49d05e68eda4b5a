#!/usr/bin/env bash
# Locate the panic paths that make the panic-never firmware fail to link.
#
#   scripts/find-panics.sh [fw-sunda|fw-cayman|fw-mariana]   (default: all)
#
# Builds each firmware image of examples/ (thumbv7em-none-eabihf, release) with
# `khal-example-firmware/find-panics` (a plain panic handler, so it links),
# then prints, for every call into `core::panicking`, the inlined call chain
# (function and file:line) from the debug info. CI never uses this: the proof
# itself is the plain release build, which must link.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cargo-exe.sh
cd examples
TARGET=thumbv7em-none-eabihf
found=0
for ex in ${1:-fw-sunda fw-cayman fw-mariana}; do
  [[ "$ex" =~ ^fw-(sunda|cayman|mariana)$ ]] || { echo "no image $ex" >&2; exit 1; }
  pkg="khal-example-${ex#fw-}"
  elf=$(cargo_exe_path "$ex" --release --target "$TARGET" -p "$pkg" --features khal-example-firmware/find-panics)
  for a in $(llvm-objdump -d -C --no-show-raw-insn "$elf" \
             | awk '/^[0-9a-f]+ <core::panicking/ {skip=1; next} /^[0-9a-f]+ </ {skip=0}
                    !skip && /\tbl?\t.*core::panicking/ {sub(":", "", $1); print $1}'); do
    found=1
    echo "== $ex: call into core::panicking at 0x$a"
    llvm-addr2line -f -i -C -e "$elf" "0x$a" | paste - - | sed 's/^/   /'
  done
done
# Leave the images as CI builds them.
for ex in ${1:-fw-sunda fw-cayman fw-mariana}; do
  cargo build --release --target "$TARGET" -p "khal-example-${ex#fw-}" >&2 || true
done
[[ $found == 0 ]] && echo "no panic path: the panic-never build links"
exit 0
