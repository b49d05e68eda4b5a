#!/usr/bin/env python3
"""The public API of khal-core and of the facade, listed from rustdoc's JSON.

One line per public item, `<kind> <path>`: every item reachable from a
crate's root through public modules and re-exports (doc-hidden ones too,
marked `#[doc(hidden)]`, because safe code reaches them all the same), the
public methods and associated items of its inherent impls, and the items of
its traits. Trait impls are not listed (a type's trait list is in its docs).

    python3 scripts/public-api.py            # rewrite docs/public-api.txt
    python3 scripts/public-api.py --check    # regenerate and diff; exit 1 on a difference

The summary at the end of the listing counts khal-core's items and the items
reachable by more than one public path (the facade's prelude, a second path
on purpose, not counted). The JSON is built with the nightly toolchain
(`cargo +nightly rustdoc -Z unstable-options --output-format json`) in
cargo's target directory, asked of `cargo metadata` (CARGO_TARGET_DIR
honoured).
"""

import argparse
import difflib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LISTING = os.path.join(ROOT, "docs", "public-api.txt")

# The facade is listed in its host configuration: all three arches and `std`
# (the one configuration where `AnyArch`, the guide and `std_adapter` exist).
FACADE_FEATURES = "sunda,cayman,mariana,std"

# Crates whose JSON is built: khal-core is listed on its own; the facade's
# re-exports are followed into the crates they come from.
CRATES = [
    ("khal-core", "khal_core", None),
    ("khal-arch-sunda", "khal_arch_sunda", None),
    ("khal-arch-cayman", "khal_arch_cayman", None),
    ("khal-arch-mariana", "khal_arch_mariana", None),
    ("khal-std", "khal_std", None),
    ("khal", "khal", FACADE_FEATURES),
]

# The kinds of item listed as items (methods and associated items are listed
# under their owner).
ITEM_KINDS = {
    "module",
    "struct",
    "enum",
    "union",
    "trait",
    "trait_alias",
    "function",
    "constant",
    "static",
    "type_alias",
    "macro",
    "proc_macro",
}


def target_dir():
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)["target_directory"]


def build_json(tdir):
    docs = {}
    for package, crate, features in CRATES:
        cmd = ["cargo", "+nightly", "rustdoc", "--quiet", "-p", package]
        if features:
            cmd += ["--features", features]
        cmd += ["--", "-Z", "unstable-options", "--output-format", "json"]
        cmd += ["--document-hidden-items"]
        subprocess.run(cmd, cwd=ROOT, check=True)
        with open(os.path.join(tdir, "doc", crate + ".json"), encoding="utf-8") as f:
            docs[crate] = json.load(f)
    return docs


class Crate:
    """One crate's rustdoc JSON, with its items indexed by their path."""

    def __init__(self, name, doc):
        self.name = name
        self.doc = doc
        self.index = doc["index"]
        self.by_path = {}
        for iid, p in doc["paths"].items():
            if p["crate_id"] == 0:
                self.by_path.setdefault(tuple(p["path"]), iid)

    def item(self, iid):
        return self.index.get(str(iid))


class Lister:
    def __init__(self, docs):
        self.crates = {name: Crate(name, doc) for name, doc in docs.items()}
        self.lines = []  # (path, kind, hidden)
        self.keys = set()  # (crate, id) of every item and method listed
        self.paths_of = {}  # (crate, id) -> [path]

    def resolve(self, crate, iid):
        """The crate and item an id of `crate` names, following it into the
        crate that defines it; None for an item of a crate not built here."""
        item = crate.item(iid)
        if item is not None:
            return crate, item
        p = crate.doc["paths"].get(str(iid))
        if p is None:
            return None
        ext = crate.doc["external_crates"].get(str(p["crate_id"]))
        owner = self.crates.get(ext["name"]) if ext else None
        if owner is None:
            return None
        oid = owner.by_path.get(tuple(p["path"]))
        if oid is None:
            return None
        return owner, owner.item(oid)

    @staticmethod
    def kind(item):
        return next(iter(item["inner"]))

    @staticmethod
    def hidden(item):
        for a in item.get("attrs", []):
            text = a if isinstance(a, str) else json.dumps(a)
            if "hidden" in text and "doc" in text:
                return True
        return False

    def emit(self, crate, item, path, hidden, stack):
        kind = self.kind(item)
        hidden = hidden or self.hidden(item)
        self.lines.append((path, kind, hidden))
        key = (crate.name, item["id"])
        self.keys.add(key)
        if kind in ITEM_KINDS:
            self.paths_of.setdefault(key, []).append(path)
        if key in stack:
            return
        stack = stack | {key}
        inner = item["inner"][kind]
        if kind == "module":
            self.walk_module(crate, item, path, hidden, stack)
        elif kind in ("struct", "enum", "union"):
            for impl_id in inner.get("impls", []):
                impl = crate.item(impl_id)
                if impl is None:
                    continue
                imp = impl["inner"]["impl"]
                if imp.get("trait") is not None or imp.get("is_synthetic"):
                    continue
                for mid in imp["items"]:
                    m = crate.item(mid)
                    if m is None or m["visibility"] != "public":
                        continue
                    self.keys.add((crate.name, mid))
                    self.lines.append(
                        (path + "::" + m["name"], self.kind(m), hidden or self.hidden(m))
                    )
        elif kind == "trait":
            for mid in inner["items"]:
                m = crate.item(mid)
                if m is None:
                    continue
                self.keys.add((crate.name, mid))
                self.lines.append(
                    (path + "::" + m["name"], "trait_" + self.kind(m), hidden or self.hidden(m))
                )

    def walk_module(self, crate, module, path, hidden, stack):
        for cid in module["inner"]["module"]["items"]:
            child = crate.item(cid)
            if child is None or child["visibility"] != "public":
                continue
            kind = self.kind(child)
            if kind == "use":
                use = child["inner"]["use"]
                target = self.resolve(crate, use["id"]) if use["id"] is not None else None
                if target is None:
                    # An item of a crate not built here: its path is the API.
                    self.lines.append(
                        (path + "::" + use["name"], "use " + use["source"], self.hidden(child))
                    )
                    continue
                tcrate, titem = target
                h = hidden or self.hidden(child)
                if use["is_glob"]:
                    self.walk_module(tcrate, titem, path, h, stack)
                else:
                    self.emit(tcrate, titem, path + "::" + use["name"], h, stack)
            elif kind in ("impl",):
                continue
            else:
                self.emit(crate, child, path + "::" + child["name"], hidden, stack)

    def list_crate(self, name):
        crate = self.crates[name]
        root = crate.item(crate.doc["root"])
        start = len(self.lines)
        self.walk_module(crate, root, name, False, frozenset())
        return start


def two_paths(paths_of, prefix):
    """Items under `prefix` reachable by more than one path outside a prelude."""
    out = []
    for key, paths in sorted(paths_of.items()):
        ps = sorted(
            {p for p in paths if p.startswith(prefix + "::") and "::prelude::" not in p}
        )
        if len(ps) > 1:
            out.append(ps)
    return out


def render(docs):
    lines = []
    summary = []
    for name in ("khal_core", "khal"):
        lister = Lister(docs)
        lister.list_crate(name)
        items = sorted(set(lister.lines))
        body = ["{}{} {}".format("#[doc(hidden)] " if h else "", k, p) for p, k, h in items]
        n_items = sum(1 for _, k, _ in items if k in ITEM_KINDS)
        n_modules = sum(1 for _, k, _ in items if k == "module")
        dups = two_paths(lister.paths_of, name)
        lines.append("## " + name)
        lines += body
        lines.append("")
        summary.append(
            "# {}: {} public paths ({} distinct items and methods), {} of them items, "
            "in {} modules; {} items reachable by two paths".format(
                name, len(items), len(lister.keys), n_items, n_modules, len(dups)
            )
        )
        for ps in dups:
            summary.append("#   two paths: " + ", ".join(ps))
    head = [
        "# The public API of khal-core and of the facade (features {}),".format(FACADE_FEATURES),
        "# written by scripts/public-api.py from rustdoc's JSON: `<kind> <path>` per line.",
        "# An API change shows here as a diff; regenerate with `python3 scripts/public-api.py`.",
    ]
    return "\n".join(head + summary + [""] + lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="diff against docs/public-api.txt")
    args = ap.parse_args()
    text = render(build_json(target_dir()))
    if not args.check:
        with open(LISTING, "w", encoding="utf-8") as f:
            f.write(text)
        print(text.split("\n\n", 1)[0])
        return 0
    try:
        with open(LISTING, encoding="utf-8") as f:
            old = f.read()
    except FileNotFoundError:
        old = ""
    if old == text:
        print("public-api: docs/public-api.txt is up to date")
        return 0
    sys.stdout.writelines(
        difflib.unified_diff(
            old.splitlines(True),
            text.splitlines(True),
            "docs/public-api.txt (committed)",
            "docs/public-api.txt (this tree)",
        )
    )
    print(
        "\npublic-api: the public API differs from docs/public-api.txt (above). If the change "
        "is meant, run `python3 scripts/public-api.py` and commit docs/public-api.txt."
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
