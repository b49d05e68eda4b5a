//! Every spec citation in the repository resolves in `docs/spec-reference.md`, and every
//! row of `docs/coverage.md` carries one of the five statuses.
//!
//! A citation is a bracket `[ID §k, …]` (the form `grep -E '\[[0-9A-Za-z-]+ §'` finds) or
//! `[kdrv …]` in any `.rs` or `.md` file, plus the "section" cell of each coverage row.
//! `ID §k` resolves when spec-reference.md has a heading `ID §k — …`; a sub-section
//! (`§6a`, `§4.7`, `§13.3`) also resolves to its parent heading (`§6`, `§4`, `§13`), so a
//! new sub-section id needs no new heading once its section is described.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The five statuses of docs/coverage.md (its legend explains each).
const STATUSES: [&str; 5] = [
    "done",
    "interpretation",
    "deviation",
    "khal's own",
    "not traced",
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Heading keys of spec-reference.md: the text of `##`+ headings before " — ".
fn reference_keys(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| l.starts_with("##"))
        .map(|l| {
            let h = l.trim_start_matches('#').trim();
            let key = h.split(" — ").next().unwrap_or(h);
            key.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

fn is_id(word: &str) -> bool {
    !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && word
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
}

/// The `§` tokens of a piece: `§13.3`, `§6a`, `§4d`; range ends (`§1–§4`, `§1..§3`)
/// count as two tokens; a placeholder such as `§k` is none.
fn section_tokens(piece: &str) -> Vec<String> {
    piece
        .split('§')
        .skip(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                .collect::<String>()
                .trim_end_matches('.')
                .to_string()
        })
        .filter(|t| t.starts_with(|c: char| c.is_ascii_digit()))
        .collect()
}

/// `13.3` → `13.3`, `13`; `6a` → `6a`, `6`; `4.7` → `4.7`, `4`.
fn section_candidates(sec: &str) -> Vec<String> {
    let mut out = vec![sec.to_string()];
    let mut s = sec.to_string();
    loop {
        let trimmed = s.trim_end_matches(|c: char| c.is_ascii_lowercase());
        if trimmed != s && !trimmed.is_empty() {
            s = trimmed.to_string();
            out.push(s.clone());
            continue;
        }
        match s.rfind('.') {
            Some(i) => {
                s.truncate(i);
                out.push(s.clone());
            }
            None => break,
        }
    }
    out
}

/// The unresolved parts of one citation body (the text between the brackets).
fn unresolved(body: &str, keys: &BTreeSet<String>) -> Vec<String> {
    let mut bad = Vec::new();
    let mut id = String::new();
    for piece in body.split([',', ';']) {
        let piece = piece.trim();
        let first = piece.split_whitespace().next().unwrap_or("");
        if !first.starts_with('§') && is_id(first) {
            id = first.to_string();
        }
        if id.is_empty() {
            continue;
        }
        let secs = section_tokens(piece);
        if secs.is_empty() {
            if id == "kdrv" && first == "kdrv" {
                // `kdrv v3 V3_MMAP_TPB_n_BASE` → `kdrv v3 …`, `kdrv v3`;
                // `kdrv share/x.h` → `kdrv share`.
                let words: Vec<&str> = piece.split([' ', '/']).filter(|w| !w.is_empty()).collect();
                let ok = (2..=words.len()).any(|n| keys.contains(&words[..n].join(" ")));
                if !ok {
                    bad.push(piece.to_string());
                }
            }
            continue;
        }
        for sec in secs {
            let ok = section_candidates(&sec)
                .iter()
                .any(|c| keys.contains(&format!("{id} §{c}")));
            if !ok {
                bad.push(format!("{id} §{sec}"));
            }
        }
    }
    bad
}

/// Bracketed citation bodies of one line.
fn citations(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        let body = &after[..close];
        let first = body.split(' ').next().unwrap_or("");
        let cited =
            (is_id(first) && body[first.len()..].starts_with(" §")) || body.starts_with("kdrv");
        if cited {
            out.push(body);
            rest = &after[close + 1..];
        } else {
            rest = after;
        }
    }
    out
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if name.starts_with('.') || ["target", "corpus", "artifacts"].contains(&name.as_str()) {
                continue;
            }
            walk(&p, files);
        } else if name.ends_with(".rs") || name.ends_with(".md") {
            files.push(p);
        }
    }
}

/// Cells of a markdown table row (`\|` is not a separator).
fn cells(row: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev = ' ';
    for c in row.trim().trim_start_matches('|').chars() {
        if c == '|' && prev != '\\' {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
        prev = c;
    }
    out
}

#[test]
fn every_citation_resolves_in_spec_reference() {
    let root = repo_root();
    let reference = fs::read_to_string(root.join("docs/spec-reference.md")).unwrap();
    let keys = reference_keys(&reference);
    let me = root.join("tests/tests/spec_citations.rs");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    let mut bad = Vec::new();
    let mut seen = 0usize;
    for f in files.iter().filter(|f| **f != me) {
        let Ok(text) = fs::read_to_string(f) else {
            continue;
        };
        let rel = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        for (n, line) in text.lines().enumerate() {
            for body in citations(line) {
                seen += 1;
                for u in unresolved(body, &keys) {
                    bad.push(format!("{rel}:{}: [{body}]: `{u}`", n + 1));
                }
            }
        }
    }
    // The coverage table's "section" cells cite without brackets.
    let coverage = fs::read_to_string(root.join("docs/coverage.md")).unwrap();
    for (n, line) in coverage.lines().enumerate() {
        let c = cells(line);
        if line.starts_with("| ") && c.len() == 5 && c[0] != "section" && !c[0].starts_with("---") {
            seen += 1;
            for u in unresolved(&c[0], &keys) {
                bad.push(format!(
                    "docs/coverage.md:{}: section `{}`: `{u}`",
                    n + 1,
                    c[0]
                ));
            }
        }
    }
    assert!(
        seen > 500,
        "found only {seen} citations: is the walk broken?"
    );
    assert!(
        bad.is_empty(),
        "{} citation(s) do not resolve in docs/spec-reference.md (add a heading \
         `### ID §k — title` saying what khal takes from it):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn every_coverage_row_has_one_of_the_five_statuses() {
    let coverage = fs::read_to_string(repo_root().join("docs/coverage.md")).unwrap();
    let mut bad = Vec::new();
    let mut columns: Option<usize> = None;
    let mut rows = 0usize;
    for (n, line) in coverage.lines().enumerate() {
        if !line.starts_with('|') {
            columns = None;
            continue;
        }
        let c = cells(line);
        if c.last().map(String::as_str) == Some("status") {
            columns = Some(c.len());
            continue;
        }
        let Some(cols) = columns else { continue };
        if c.first().is_some_and(|x| x.starts_with("---")) {
            continue;
        }
        rows += 1;
        if c.len() != cols {
            bad.push(format!(
                "line {}: {} cells, the table's header has {cols} (keep `| section | item | code | test | status |`)",
                n + 1,
                c.len()
            ));
        } else if !STATUSES.contains(&c[cols - 1].as_str()) {
            bad.push(format!(
                "line {}: status `{}` is not one of {STATUSES:?} (explanations go in the item or code cell)",
                n + 1,
                c[cols - 1]
            ));
        }
    }
    assert!(rows > 200, "found only {rows} coverage rows");
    assert!(bad.is_empty(), "docs/coverage.md:\n{}", bad.join("\n"));
}

#[test]
fn the_resolver_follows_sub_sections_and_refuses_unknown_ids() {
    let keys = reference_keys("## x\n### q7 §6 — w\n### FACTS §13 — f\n### kdrv v3 — k\n");
    assert!(unresolved("q7 §6a–§6b", &keys).is_empty());
    assert!(unresolved("FACTS §13.3, §13", &keys).is_empty());
    assert!(unresolved("kdrv v3 V3_MMAP_TPB_n_BASE", &keys).is_empty());
    assert_eq!(unresolved("q7 §7", &keys), ["q7 §7"]);
    assert_eq!(unresolved("FACTS §13.3, q7 §9", &keys), ["q7 §9"]);
    assert_eq!(unresolved("kdrv v4", &keys), ["kdrv v4"]);
    assert!(unresolved("kdrv v3/notific.h", &keys).is_empty());
    assert!(unresolved("q7 §k", &keys).is_empty());
    assert_eq!(unresolved("topsp §3a", &keys), ["topsp §3a"]);
    assert_eq!(
        citations("a [000 §1] b [x] [kdrv v2] [link](u)"),
        ["000 §1", "kdrv v2"]
    );
}

/// The names a coverage row's test cell may cite: every `fn` and `mod` in the
/// repository's `.rs` files, their file stems (compile-fail cases, fuzz
/// targets, benches) and the on-target test names (`r.run("name", …)`); per
/// integration-test file (its stem), the `fn`s it holds.
struct TestNames {
    any: BTreeSet<String>,
    by_file: std::collections::BTreeMap<String, BTreeSet<String>>,
    /// Modules (a file's stem, or a `mod.rs`'s folder) holding a `mod tests`.
    with_tests: BTreeSet<String>,
}

/// The identifiers following `keyword ` (`fn`, `mod`) as a whole word.
fn idents_after(text: &str, keyword: &str) -> Vec<String> {
    let key = format!("{keyword} ");
    text.match_indices(key.as_str())
        .filter(|(i, _)| {
            !text[..*i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .map(|(i, _)| {
            text[i + key.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

fn test_names(root: &Path) -> TestNames {
    let mut files = Vec::new();
    walk(root, &mut files);
    let mut names = TestNames {
        any: BTreeSet::new(),
        by_file: Default::default(),
        with_tests: BTreeSet::new(),
    };
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
    {
        let Ok(text) = fs::read_to_string(f) else {
            continue;
        };
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        let fns: BTreeSet<String> = idents_after(&text, "fn").into_iter().collect();
        names.any.extend(fns.iter().cloned());
        names.any.extend(idents_after(&text, "mod"));
        for run in text.split("run(\"").skip(1) {
            names.any.extend(run.split('"').next().map(str::to_string));
        }
        let parent = f
            .parent()
            .map(|p| p.ends_with("tests/tests") || p.ends_with("cli/tests"));
        if parent == Some(true) {
            names.by_file.entry(stem.clone()).or_default().extend(fns);
        }
        if text.contains("mod tests") {
            let module = if stem == "mod" {
                f.parent()
                    .and_then(|p| p.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
            } else {
                Some(stem.clone())
            };
            names.with_tests.extend(module);
        }
        names.any.insert(stem);
    }
    names
}

/// `a*b` / `a…` patterns (and plain names) against a set of names.
fn matches_a_name(pattern: &str, set: &BTreeSet<String>) -> bool {
    let p = pattern.trim_end_matches('…');
    let prefix_only = p.len() != pattern.len();
    match p.split_once('*') {
        Some((a, b)) => set
            .iter()
            .any(|n| n.len() >= a.len() + b.len() && n.starts_with(a) && n.ends_with(b)),
        None if prefix_only => set.iter().any(|n| n.starts_with(p)),
        None => set.contains(p),
    }
}

/// `{a,b}_x` → `a_x`, `b_x`.
fn expand_braces(seg: &str) -> Vec<String> {
    match (seg.find('{'), seg.find('}')) {
        (Some(o), Some(c)) if o < c => seg[o + 1..c]
            .split(',')
            .map(|alt| format!("{}{}{}", &seg[..o], alt.trim(), &seg[c + 1..]))
            .collect(),
        _ => vec![seg.to_string()],
    }
}

/// The cited test names of one test cell that resolve to nothing.
fn missing_tests(cell: &str, names: &TestNames) -> Vec<String> {
    let mut bad = Vec::new();
    for tok in cell.split('`').skip(1).step_by(2) {
        let segs: Vec<&str> = tok.split("::").collect();
        if segs.len() > 1 {
            // A type path (`u64::MAX`, `family::Offset`) cites no test.
            if segs
                .iter()
                .any(|s| s.chars().any(|c| c.is_ascii_uppercase()))
            {
                continue;
            }
            let last = segs[segs.len() - 1];
            let in_file = names.by_file.get(segs[0]);
            // `module::tests::…`: that module's own file holds the tests.
            if let Some(k) = segs.iter().position(|s| *s == "tests") {
                if in_file.is_none() && k > 0 && !names.with_tests.contains(segs[k - 1]) {
                    bad.push(tok.to_string());
                    continue;
                }
            }
            let set = in_file.unwrap_or(&names.any);
            let ok = if last == "*" {
                let module = segs[segs.len() - 2];
                in_file.is_some() || names.any.contains(module)
            } else {
                expand_braces(last).iter().all(|n| matches_a_name(n, set))
            };
            if !ok {
                bad.push(tok.to_string());
            }
        } else {
            let bare = tok.trim_end_matches(['…', '*']);
            let snake = bare.contains('_')
                && bare
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                && bare.starts_with(|c: char| c.is_ascii_lowercase());
            if snake && !matches_a_name(tok, &names.any) {
                bad.push(tok.to_string());
            }
        }
    }
    bad
}

#[test]
fn every_test_a_coverage_row_names_exists() {
    let root = repo_root();
    let names = test_names(&root);
    let coverage = fs::read_to_string(root.join("docs/coverage.md")).unwrap();
    let mut bad = Vec::new();
    let mut cited = 0usize;
    for (n, line) in coverage.lines().enumerate() {
        let c = cells(line);
        if !line.starts_with("| ") || c.len() != 5 || c[0] == "section" || c[0].starts_with("---") {
            continue;
        }
        cited += c[3].matches('`').count() / 2;
        for t in missing_tests(&c[3], &names) {
            bad.push(format!("docs/coverage.md:{}: `{t}`", n + 1));
        }
    }
    assert!(cited > 500, "found only {cited} test citations");
    assert!(
        bad.is_empty(),
        "{} test name(s) in docs/coverage.md name no test (`file::fn`: a `fn` of \
         tests/tests/file.rs or cli/tests/file.rs; `module::…::fn`: a `fn` anywhere):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_test_resolver_refuses_names_that_do_not_exist() {
    let mut names = TestNames {
        any: ["a_test", "b_test", "helper_x", "fuzz_target", "tests"]
            .map(String::from)
            .into(),
        by_file: Default::default(),
        with_tests: ["ring".to_string()].into(),
    };
    names
        .by_file
        .insert("golden".into(), ["a_test".to_string()].into());
    assert!(missing_tests("`golden::a_test`, `b_test`, `u64::MAX`", &names).is_empty());
    assert_eq!(
        missing_tests("`golden::b_test`", &names),
        ["golden::b_test"]
    );
    assert_eq!(missing_tests("`golden::gone`", &names), ["golden::gone"]);
    assert_eq!(
        missing_tests("`x::y::gone_too`", &names),
        ["x::y::gone_too"]
    );
    assert!(missing_tests("`golden::a_…`, `x::{a,b}_test`, `x::*_test`", &names).is_empty());
    assert_eq!(missing_tests("`x::{a,c}_test`", &names), ["x::{a,c}_test"]);
    assert_eq!(missing_tests("`no_such_fuzz`", &names), ["no_such_fuzz"]);
    assert!(missing_tests("`golden::*`, `fuzz_target`", &names).is_empty());
    // A module's `tests::…` must be in that module's own file.
    assert!(missing_tests("`dma::ring::tests::*`", &names).is_empty());
    assert_eq!(
        missing_tests("`notific::entry::tests::*`", &names),
        ["notific::entry::tests::*"]
    );
}
