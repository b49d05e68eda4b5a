//! Compile-fail tests (trybuild): what the type system refuses in the engine,
//! INTC and register layers [002 §1, §3, §4], [004 §1]. Every case of the
//! workspace lives in `tests/ui/` and runs here, in one trybuild invocation
//! (one cargo build of all cases): add a case as `tests/ui/<name>.rs` plus
//! its `<name>.stderr`, not as a second trybuild test.

#[test]
fn misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
