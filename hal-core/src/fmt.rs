//! The logging shim: routes `trace!`..`error!` to defmt, log, or nothing.
//!
//! Only `{}` and `{:?}` may be used in format strings so that all three routes
//! compile (defmt has its own format grammar). `defmt` and `log` together are
//! refused by the facade with a `compile_error!`.
#![allow(unused_macros)]

#[cfg(all(feature = "defmt", feature = "log"))]
compile_error!("khal-core: the `defmt` and `log` features are exclusive; pick one logger");

macro_rules! khal_log {
    ($level:ident, $($arg:tt)+) => {{
        #[cfg(feature = "defmt")]
        ::defmt::$level!($($arg)+);
        #[cfg(feature = "log")]
        ::log::$level!($($arg)+);
        #[cfg(not(any(feature = "defmt", feature = "log")))]
        {
            // No logger: evaluate nothing, but keep the arguments "used".
            let _ = || { let _ = ($($arg)+,); };
        }
    }};
}

macro_rules! trace { ($($arg:tt)+) => { khal_log!(trace, $($arg)+) }; }
macro_rules! debug { ($($arg:tt)+) => { khal_log!(debug, $($arg)+) }; }
macro_rules! info { ($($arg:tt)+) => { khal_log!(info, $($arg)+) }; }
macro_rules! warn { ($($arg:tt)+) => { khal_log!(warn, $($arg)+) }; }
macro_rules! error { ($($arg:tt)+) => { khal_log!(error, $($arg)+) }; }
