//! No function in `cli/` (its sources and its tests) is longer than
//! [`MAX_LINES`] lines, counted from the line of `fn` to the line of the
//! body's closing brace: a longer one is split into named steps.
//!
//! The sources are read with a small lexer that skips comments, string,
//! raw-string and char literals, so a brace inside one is not counted.

use std::path::{Path, PathBuf};

/// The longest a function may be, in lines.
const MAX_LINES: usize = 150;

/// A token that matters for finding functions and their bodies.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Punct(char),
}

/// The tokens of `src` with their 1-based line, comments and literals left out.
fn tokens(src: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    // Advance past `n` chars, counting the newlines among them.
    let skip = |i: &mut usize, line: &mut usize, n: usize| {
        for _ in 0..n {
            if c.get(*i) == Some(&'\n') {
                *line += 1;
            }
            *i += 1;
        }
    };
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            // Block comments nest.
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    skip(&mut i, &mut line, 2);
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    skip(&mut i, &mut line, 2);
                    if depth == 0 {
                        break;
                    }
                } else {
                    skip(&mut i, &mut line, 1);
                }
            }
        } else if ch == '"' {
            skip(&mut i, &mut line, 1);
            while i < c.len() && c[i] != '"' {
                let n = if c[i] == '\\' { 2 } else { 1 };
                skip(&mut i, &mut line, n);
            }
            skip(&mut i, &mut line, 1);
        } else if ch == '\'' {
            // A char literal ('x', '\n', '\u{7b}') or a lifetime ('a).
            if next == Some('\\') {
                // The quote, the backslash and the escaped char, then to the end.
                skip(&mut i, &mut line, 3);
                while i < c.len() && c[i] != '\'' {
                    skip(&mut i, &mut line, 1);
                }
                skip(&mut i, &mut line, 1);
            } else if c.get(i + 2) == Some(&'\'') {
                skip(&mut i, &mut line, 3);
            } else {
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            // A raw string: r"…", r#"…"#, br#"…"#.
            let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
            if (word == "r" || word == "br") && c.get(i + hashes) == Some(&'"') {
                let close: Vec<char> = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                skip(&mut i, &mut line, hashes + 1);
                while i < c.len() && !c[i..].starts_with(&close) {
                    skip(&mut i, &mut line, 1);
                }
                skip(&mut i, &mut line, close.len());
            } else {
                out.push((Tok::Ident(word), line));
            }
        } else {
            if matches!(ch, '{' | '}' | '(' | ')' | '[' | ']' | ';') {
                out.push((Tok::Punct(ch), line));
            }
            skip(&mut i, &mut line, 1);
        }
    }
    out
}

/// Every function with a body in `src`: its name, first line and length in
/// lines (`fn` to the closing brace). Nested functions are listed too.
fn functions(src: &str) -> Vec<(String, usize, usize)> {
    let toks = tokens(src);
    let mut found = Vec::new();
    for (k, (tok, line)) in toks.iter().enumerate() {
        let (Tok::Ident(kw), Some((Tok::Ident(name), _))) = (tok, toks.get(k + 1)) else {
            continue;
        };
        if kw != "fn" {
            continue;
        }
        // The body is the first `{` outside the signature's parentheses and
        // brackets; a `;` first means a declaration without one.
        let mut depth = 0i32;
        let mut body = None;
        for (j, (t, _)) in toks.iter().enumerate().skip(k + 2) {
            match t {
                Tok::Punct('(' | '[') => depth += 1,
                Tok::Punct(')' | ']') => depth -= 1,
                Tok::Punct(';') if depth == 0 => break,
                Tok::Punct('{') if depth == 0 => {
                    body = Some(j);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = body else { continue };
        let mut braces = 0i32;
        for (t, end) in &toks[open..] {
            match t {
                Tok::Punct('{') => braces += 1,
                Tok::Punct('}') => braces -= 1,
                _ => {}
            }
            if braces == 0 {
                found.push((name.clone(), *line, end - line + 1));
                break;
            }
        }
    }
    found
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_function_in_cli_is_longer_than_150_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("tests"), &mut files);
    files.sort();
    assert!(files.len() > 10, "the CLI's sources: {files:?}");
    let mut long = Vec::new();
    let mut count = 0;
    for file in &files {
        let src = std::fs::read_to_string(file).expect("read a source file");
        for (name, line, len) in functions(&src) {
            count += 1;
            if len > MAX_LINES {
                let rel = file.strip_prefix(root).unwrap_or(file);
                long.push(format!("{}:{line} fn {name}: {len} lines", rel.display()));
            }
        }
    }
    assert!(count > 250, "only {count} functions found");
    assert!(
        long.is_empty(),
        "functions over {MAX_LINES} lines (split them into named steps):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_counter_skips_comments_and_literals_and_finds_nested_functions() {
    let src = r##"
trait T {
    fn declared(&self) -> u8;
}
fn outer(x: [u8; 2]) -> impl Fn(u8) -> u8 {
    // a } in a comment
    /* and { in /* a nested */ block comment */
    let s = "a } in a string \" still in it";
    let r = r#"a raw } "string""#;
    let c = ('}', '\'', '\u{7b}', b'{');
    fn inner<'a>(v: &'a str) -> &'a str {
        v
    }
    move |y| y
}
"##;
    assert_eq!(
        functions(src),
        vec![("outer".to_string(), 5, 11), ("inner".to_string(), 11, 3)]
    );
}
