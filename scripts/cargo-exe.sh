# shellcheck shell=bash
# `cargo_exe`, sourced by the scripts that run or read what cargo builds:
#
#   cargo_exe <cargo build arguments...>
#
# runs `cargo build <arguments> --message-format=json-render-diagnostics`
# (diagnostics and progress on stderr, as a plain build shows them) and
# prints one line per executable it produced, `<target name> <path>`: the
# path cargo reports, so CARGO_TARGET_DIR, `--target-dir`, a profile's
# directory and a workspace's target/ are all where cargo put them.
# Fails when the build fails. Cargo does not link a fresh executable into
# place again, so two checkouts sharing one CARGO_TARGET_DIR can each find
# the other's last build there: give each checkout its own.
cargo_exe() {
  local json
  json=$(cargo build "$@" --message-format=json-render-diagnostics) || return 1
  python3 -c '
import json, sys
for line in sys.stdin:
    if not line.startswith("{"):
        continue
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["target"]["name"], m["executable"])
' <<< "$json"
}

# cargo_exe_path <name> <cargo build arguments...>: the path of executable
# <name> only (fails when the build did not produce it).
cargo_exe_path() {
  local name=$1 out path
  shift
  out=$(cargo_exe "$@") || return 1
  path=$(awk -v n="$name" '$1 == n { print $2 }' <<< "$out" | tail -1)
  [[ -n "$path" ]] || { echo "cargo built no executable named $name" >&2; return 1; }
  echo "$path"
}
