//! The test runner: one line per test, a pass/fail tally, checks that print
//! where they failed and what they saw.

use khal::mmio::VolatileWindow;
use khal::Mmio;

use crate::platform::IMAGE;

/// A failed check (its details were printed where it failed).
#[derive(Debug)]
pub struct Fail;

/// What a test returns.
pub type Outcome = Result<(), Fail>;

/// Runs tests against the shared RAM window.
pub struct Runner<'w> {
    win: &'w VolatileWindow,
    passed: u32,
    failed: u32,
}

impl<'w> Runner<'w> {
    /// A runner over `win`.
    pub fn new(win: &'w VolatileWindow) -> Self {
        Runner {
            win,
            passed: 0,
            failed: 0,
        }
    }

    /// Zero the window, run `test` on it, print its line.
    pub fn run(&mut self, name: &str, test: fn(&VolatileWindow) -> Outcome) {
        let cleared = clear(self.win);
        let result = match cleared {
            Ok(()) => test(self.win),
            Err(e) => {
                semihosting::println!("  window clear failed: {:?}", e);
                Err(Fail)
            }
        };
        match result {
            Ok(()) => {
                self.passed += 1;
                semihosting::println!("test {} {} ... ok", IMAGE, name);
            }
            Err(Fail) => {
                self.failed += 1;
                semihosting::println!("test {} {} ... FAILED", IMAGE, name);
            }
        }
    }

    /// `(passed, failed)`.
    pub fn totals(&self) -> (u32, u32) {
        (self.passed, self.failed)
    }
}

/// Every dword of the window set to 0.
fn clear(win: &VolatileWindow) -> khal::Result<()> {
    let mut a = win.device_base();
    for _ in 0..win.len() / 4 {
        win.write32(a, 0)?;
        a = a.add(4);
    }
    Ok(())
}

/// `Ok(v)` of a khal call, or print the error and fail.
#[macro_export]
macro_rules! ok {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(err) => {
                semihosting::println!("  {}:{}: {} -> {:?}", file!(), line!(), stringify!($e), err);
                return Err($crate::harness::Fail);
            }
        }
    };
}

/// Equal, or print both sides and fail.
#[macro_export]
macro_rules! check_eq {
    ($left:expr, $right:expr) => {{
        let (l, r) = (&$left, &$right);
        if l != r {
            semihosting::println!(
                "  {}:{}: {} = {:?}, want {:?}",
                file!(),
                line!(),
                stringify!($left),
                l,
                r
            );
            return Err($crate::harness::Fail);
        }
    }};
}

/// True, or print the condition and fail.
#[macro_export]
macro_rules! check {
    ($cond:expr) => {{
        if !$cond {
            semihosting::println!("  {}:{}: not {}", file!(), line!(), stringify!($cond));
            return Err($crate::harness::Fail);
        }
    }};
}
