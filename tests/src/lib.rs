//! Shared helpers for khal's integration tests (the tests live in `tests/tests/`).

pub mod nq;

/// Run a body generic over the arch on the arch an `AnyArch` is bound to:
/// `on_arch!(any, |A| (m: &'a M = &m, ...) -> Out { body })` writes the
/// `ArchFn` the body is (its captures as fields of lifetime `'a`) and
/// dispatches it.
#[macro_export]
macro_rules! on_arch {
    ($any:expr, |$A:ident| ($($name:ident: $ty:ty = $val:expr),* $(,)?) -> $out:ty $body:block) => {{
        struct Op<'a>($($ty,)* ::core::marker::PhantomData<&'a ()>);
        impl<'a> ::khal::engine::ArchFn for Op<'a> {
            type Output = $out;
            fn call<$A: ::khal::engine::EngineOps>(self) -> $out {
                let Op($($name,)* _) = self;
                $body
            }
        }
        $any.dispatch(Op($($val,)* ::core::marker::PhantomData))
    }};
}
