#!/usr/bin/env bash
# khal on the target, under emulation: build the six test images (sunda, cayman,
# mariana x thumbv7em-none-eabihf, riscv32imac-unknown-none-elf) of ontarget/ and
# run each in QEMU (Cortex-M4F: `qemu-system-arm -M mps2-an386`; RISC-V:
# `qemu-system-riscv32 -M virt`), every run under `timeout`.
#
# Prints one line per test, `test <image> <name> ... ok|FAILED`, and ends with
# `on-target: N passed, M failed`. Exit status 0 only when nothing failed.
# An image that does not build, does not finish, or whose exit status
# disagrees with its lines counts as one more failure.
set -uo pipefail
cd "$(dirname "$0")/.."

if ! command -v qemu-system-arm > /dev/null || ! command -v qemu-system-riscv32 > /dev/null; then
  echo "installing qemu-system-arm and qemu-system-misc (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq > /dev/null
  apt-get install -y -qq --no-install-recommends qemu-system-arm qemu-system-misc > /dev/null
fi
if command -v rustup > /dev/null; then
  rustup target add thumbv7em-none-eabihf riscv32imac-unknown-none-elf > /dev/null 2>&1 || true
fi

# No --locked below: ontarget/Cargo.lock pins the external crates; a new
# dependency of a khal crate (a path dependency) must not fail the build.
# The images and their logs go to images/ in ontarget's target directory
# (where cargo builds it: CARGO_TARGET_DIR honoured).
source scripts/cargo-exe.sh
RUN_SECONDS=${ON_TARGET_TIMEOUT:-120}
out_dir=$(cd ontarget && cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/images
mkdir -p "$out_dir"
passed=0
failed=0

for target in thumbv7em-none-eabihf riscv32imac-unknown-none-elf; do
  for arch in sunda cayman mariana; do
    image="${target%%-*}-$arch"
    if ! built=$(cd ontarget && cargo_exe_path khal-ontarget --release --quiet --target "$target" --features "$arch"); then
      echo "test $image build ... FAILED"
      failed=$((failed + 1))
      continue
    fi
    elf="$out_dir/$image.elf"
    cp "$built" "$elf"
    log="$out_dir/$image.log"
    case "$target" in
      thumbv7em-*)
        timeout "$RUN_SECONDS" qemu-system-arm -M mps2-an386 -nographic -monitor none \
          -semihosting-config enable=on,target=native -kernel "$elf" > "$log" 2>&1
        ;;
      riscv32*)
        timeout "$RUN_SECONDS" qemu-system-riscv32 -M virt -nographic -monitor none -bios none \
          -semihosting-config enable=on,target=native -kernel "$elf" > "$log" 2>&1
        ;;
    esac
    status=$?
    # The per-test lines (and the details of a failure, indented) as they came.
    grep -E '^(test |  )' "$log" || true
    ok=$(grep -cE "^test $image .* \.\.\. ok$" "$log")
    bad=$(grep -cE "^test $image .* \.\.\. FAILED$" "$log")
    passed=$((passed + ok))
    failed=$((failed + bad))
    if [ "$status" -eq 124 ]; then
      echo "test $image finish ... FAILED (no exit within ${RUN_SECONDS}s)"
      failed=$((failed + 1))
    elif ! grep -qE "^image $image done: $ok passed, $bad failed$" "$log"; then
      echo "test $image summary ... FAILED (no summary line matching the tests; exit status $status)"
      tail -5 "$log"
      failed=$((failed + 1))
    elif { [ "$bad" -eq 0 ] && [ "$status" -ne 0 ]; } || { [ "$bad" -ne 0 ] && [ "$status" -eq 0 ]; }; then
      echo "test $image exit-status ... FAILED (status $status with $bad failed tests)"
      failed=$((failed + 1))
    fi
  done
done

echo "on-target: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
