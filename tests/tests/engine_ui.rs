//! Compile-fail tests (trybuild): what the type system refuses in the engine
//! and INTC layers [002 §1, §3, §4], [004 §1]. Cases and their expected
//! diagnostics live in `tests/ui/`.

#[test]
fn engine_and_intc_misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
