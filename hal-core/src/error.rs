//! The one error type of the khal family, and its mapping to the C return codes.
//!
//! The reference runtime returns negative errno-style codes in some places and
//! aborts the process in others ([FACTS §10]). khal never aborts: every failure
//! is a variant here. [`Error::c_code`] gives the code the C runtime returns for
//! the same condition, or `None` where the C runtime has no code (it aborts, or
//! the condition does not exist there).

use crate::ids::ArchId;

/// `Result` with khal's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Why the device could not be trusted: input read back from the device that
/// fails validation (the device "lies", stalls its data, or is gone).
///
/// `Debug` prints addresses and tails in hex (`AllOnes { addr: 0x2000000010 }`);
/// `defmt::Format` prints the `Display` sentence, with the same hex.
#[derive(Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// An NQ tail that is not a multiple of the 16-byte entry size [004 §3].
    MisalignedTail {
        /// The raw tail value read.
        tail: u32,
    },
    /// An NQ tail at or beyond the end of the ring.
    TailOutOfRing {
        /// The raw tail value read.
        tail: u32,
        /// The ring size in bytes.
        ring_bytes: u32,
    },
    /// The device claims more entries than the ring holds.
    TooFarAhead {
        /// Entries the device claims are pending.
        claimed: u32,
        /// The ring capacity in entries.
        capacity: u32,
    },
    /// An NQ tail behind the tail read before it, while entries it showed
    /// are still unconsumed: a device only moves its tail forward [004 §3].
    TailMovedBackwards {
        /// The raw tail value read.
        tail: u32,
        /// The tail the previous read showed (a byte offset).
        previous: u32,
    },
    /// A register read all ones: the device is gone or in reset.
    AllOnes {
        /// Address of the read (all 64 bits; [`ErrorAddr::get`]).
        addr: ErrorAddr,
    },
    /// A DMA transfer moved fewer bytes than asked.
    ShortTransfer {
        /// Bytes asked.
        expected: u32,
        /// Bytes moved.
        moved: u32,
    },
    /// Any other inconsistency the device reported.
    Other(&'static str),
}

/// Every failure a khal operation can report.
///
/// `Display` is a sentence; `Debug` is the variant with its fields, device
/// addresses (and `OutOfRange`'s value and limit) in hex (`NoRegion { addr:
/// 0x2000200000 }`, not the decimal `137440002048`); `defmt::Format` prints the `Display` sentence, with the
/// same hex (defmt's `{=u64:#x}` hints).
///
/// # Size
///
/// Every fallible khal call returns a `Result` that holds an `Error`, and on
/// 32-bit targets a `Result` travels through memory: each byte of `Error` is
/// stored by the callee and copied by each `?` up the bring-up. So `Error` is
/// kept at **20 bytes with 4-byte alignment on 32-bit targets** (32 bytes on
/// 64-bit hosts, where `&str` is 16): the 64-bit addresses are held as two
/// 32-bit halves ([`ErrorAddr`], exact), and `OutOfRange`'s value and bound
/// saturate at `u32::MAX`: an 8-aligned `Error` with `u64` fields would
/// cost every fallible call's stores and copies on 32-bit firmware.
///
/// ```
/// use khal_core::Error;
/// # #[cfg(target_pointer_width = "32")]
/// assert_eq!(core::mem::size_of::<Error>(), 20);
/// # #[cfg(target_pointer_width = "64")]
/// assert_eq!(core::mem::size_of::<Error>(), 32);
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A bad argument (`-EINVAL`, -22): a missing config, a debug level above 8,
    /// a stream, vector or index out of range. The payload names the argument.
    InvalidArgument(&'static str),
    /// An index, offset or length outside its range; where the C code aborts,
    /// khal refuses. Build it with [`Error::out_of_range`], which takes the
    /// full 64-bit value and bound.
    ///
    /// Both numbers are held in 32 bits, **saturating**: `u32::MAX` means
    /// "`u32::MAX` or more" (a 64-bit register offset, a host `usize` length,
    /// the `1 << 32` bound of a byte count that must fit a `u32`). Every arch
    /// index, count and firmware-sized offset is below that and exact; the
    /// `Display` sentence says "or more" when a number saturated. (Why 32 bits:
    /// this variant sets the size of every `Result` in khal; see
    /// [`Error`]'s "Size" section.)
    OutOfRange {
        /// What was indexed ("tpb tile", "hbm channel", "nq index", …).
        what: &'static str,
        /// The value given (saturating: `u32::MAX` is "`u32::MAX` or more").
        value: u32,
        /// The exclusive upper bound (saturating like `value`).
        limit: u32,
    },
    /// No CSR region table is registered (-2) [000 §1].
    NoRegionTable,
    /// No registered CSR region holds the address (-2) [000 §1]. Build it
    /// with [`Error::no_region`].
    NoRegion {
        /// The address looked up (all 64 bits; [`ErrorAddr::get`]).
        addr: ErrorAddr,
    },
    /// The address is outside `[start, end - 4]` of its region, or a batch
    /// leaves the region of its first address (-2) [000 §1]. Build it with
    /// [`Error::out_of_window`].
    OutOfWindow {
        /// The offending address (all 64 bits; [`ErrorAddr::get`]).
        addr: ErrorAddr,
    },
    /// An absent notification context or base (-14) [004 §1].
    NoContext,
    /// An allocation failed (-12) [004 §1].
    OutOfMemory,
    /// An unknown back-pressure mode (-1) [004 §2].
    UnknownMode(u32),
    /// A refusal the C code logs and answers with -1 (the Q7 loader's bad
    /// owner, image too big, failed core load [FACTS §13.3]). The payload is
    /// the C log message.
    Rejected(&'static str),
    /// A value nobody has traced in the reference runtime (FACTS.md "NOT TRACED"):
    /// khal refuses to guess it. The payload names the item.
    NotTraced(&'static str),
    /// The operation does not exist on this arch (the C code aborts or has no leaf).
    Unsupported {
        /// What was asked.
        what: &'static str,
        /// On which arch.
        arch: ArchId,
    },
    /// A bounded wait ran out of budget. The payload names the wait.
    Timeout(&'static str),
    /// The NQ was already handed out by its engine
    /// ([`NotificEngine::queue`](crate::notific::NotificEngine::queue)): each
    /// queue has one owner at a time (khal's own; the C runtime has no such check).
    QueueTaken(u32),
    /// A notification block at (or overlapping) this base is already lent
    /// out by its [`NotificBlocks`](crate::notific::NotificBlocks): each block
    /// backs one engine at a time (khal's own; the C runtime has no such check).
    BlockTaken {
        /// The base asked for (all 64 bits; [`ErrorAddr::get`]).
        base: ErrorAddr,
    },
    /// A ring's queue belongs to another notification engine than the one
    /// passed (khal's own: the C ring holds its engine and cannot be given another).
    WrongEngine,
    /// The device returned data that fails validation.
    DeviceFault(Fault),
}

impl Error {
    /// The return code the C runtime gives for the same condition, if it has one.
    ///
    /// | variant | C code |
    /// | --- | --- |
    /// | `InvalidArgument` | -22 (`EINVAL`) |
    /// | `NoRegionTable`, `NoRegion`, `OutOfWindow` | -2 |
    /// | `NoContext` | -14 |
    /// | `OutOfMemory` | -12 |
    /// | `UnknownMode`, `Rejected` | -1 |
    /// | `OutOfRange`, `Unsupported` | none: the C code aborts the process |
    /// | `NotTraced`, `Timeout`, `DeviceFault` | none: no C equivalent (the C code logs and goes on, or the value is unknown) |
    /// | `QueueTaken`, `BlockTaken`, `WrongEngine` | none: ownership checks only khal makes |
    ///
    /// # Which -22 answers the C runtime also gives
    ///
    /// Every `InvalidArgument` maps to -22, but only some are checks the C
    /// code makes. These have a C counterpart that returns -22
    /// [FACTS §4, §5, §6, §7, §9, §13.8]:
    ///
    /// - the engine inits' absent config and `inst_debug_level > 8`
    ///   (`act_init`, `dve_init`, `pooling_init`); `sp_init`'s absent handle,
    ///   `sp_mem_handle` or `sp_regs` [002 §2, §3];
    /// - the coalescer stream (`stream >= 4 || stream >= num_streams`) [004 §2];
    /// - the MSI-X vector `vec > 7` [004 §4];
    /// - the DGE carveout checks (`offset + size > cap`, 16-byte alignment)
    ///   [FACTS §13.8].
    ///
    /// All other -22 answers are checks **only khal makes**: the C code has no
    /// such check (it aborts, writes anyway, or cannot be called that way), so
    /// C has no code to compare with. Among them:
    ///
    /// - an arch id 0 (INVALID) or unknown, an unknown arch name (`ids`): in C
    ///   the arch is latched, and the shims assert it;
    /// - a notification engine's queue count outside `1..=10`
    ///   (`EngineConfig::from_raw`), the NQ ring's size, memory and batch checks
    ///   (`NqRing`), the drain buffer;
    /// - the INTC handle's errtrig base of a block not set, and its ENS NQ of a
    ///   block not set (`Intc`: the C handle would hold 0 and address
    ///   from it);
    /// - a base whose register block or loader span does not fit below 2^64
    ///   (`BlockDesc::extent`: the notification engine's, an ENS NQ's,
    ///   the MSI-X and errtrig blocks'; the Q7, HW-decode and swap-table
    ///   programs, the XT/NX windows): the C adds the offsets and wraps;
    /// - CSR region geometry (empty, overlapping, sub-dword windows, misaligned
    ///   translations), the volatile and bound windows' geometry;
    /// - DMA rings, buffers and static DMA memory (zero length, alignment, a
    ///   ring without its completion), the DVE loader's table checks (queue,
    ///   destinations, sizes, overlap) and placement (`control_slow` given or
    ///   missing against the arch, offset overflow);
    /// - `write_padded` with `padded < size`, absent HW-decode / Q7 images, a
    ///   TopSP doorbell below its window, a device-full address below the
    ///   host-visible rebase.
    ///
    /// ```
    /// use khal_core::Error;
    /// assert_eq!(Error::InvalidArgument("inst_debug_level").c_code(), Some(-22));
    /// assert_eq!(Error::no_region(0x1000).c_code(), Some(-2));
    /// assert_eq!(Error::Timeout("nq tail drain").c_code(), None);
    /// ```
    pub const fn c_code(&self) -> Option<i32> {
        match self {
            Error::InvalidArgument(_) => Some(-22),
            Error::NoRegionTable | Error::NoRegion { .. } | Error::OutOfWindow { .. } => Some(-2),
            Error::NoContext => Some(-14),
            Error::OutOfMemory => Some(-12),
            Error::UnknownMode(_) | Error::Rejected(_) => Some(-1),
            Error::OutOfRange { .. }
            | Error::NotTraced(_)
            | Error::Unsupported { .. }
            | Error::Timeout(_)
            | Error::DeviceFault(_)
            | Error::QueueTaken(_)
            | Error::BlockTaken { .. }
            | Error::WrongEngine => None,
        }
    }

    /// [`Error::OutOfRange`] from the full 64-bit value and exclusive bound,
    /// each saturated to `u32::MAX` ("`u32::MAX` or more") if it does not fit.
    ///
    /// ```
    /// use khal_core::Error;
    /// assert_eq!(
    ///     Error::out_of_range("nq index", 16, 16),
    ///     Error::OutOfRange { what: "nq index", value: 16, limit: 16 }
    /// );
    /// // A bound of `1 << 32` (a byte count that must fit a u32) saturates.
    /// let e = Error::out_of_range("dma ring total bytes", 1 << 32, 1 << 32);
    /// assert_eq!(
    ///     e.to_string(),
    ///     "dma ring total bytes 4294967295 or more out of range (must be < 4294967295 or more)"
    /// );
    /// ```
    // Cold on hosts: the NQ drain's bounds checks build it on paths never
    // taken, and without the hint the optimiser hoists the saturating
    // compares into the hot path. Inlined on bare metal, where a cold call
    // costs code instead: a call and its argument set-up per site.
    #[cfg_attr(not(target_os = "none"), cold)]
    #[cfg_attr(target_os = "none", inline)]
    pub const fn out_of_range(what: &'static str, value: u64, limit: u64) -> Error {
        Error::OutOfRange {
            what,
            value: saturate(value),
            limit: saturate(limit),
        }
    }

    /// [`Error::NoRegion`] for the 64-bit address looked up.
    ///
    /// ```
    /// use khal_core::Error;
    /// let e = Error::no_region(0x20_0020_0000);
    /// assert!(matches!(e, Error::NoRegion { addr } if addr.get() == 0x20_0020_0000));
    /// ```
    #[inline]
    pub const fn no_region(addr: u64) -> Error {
        Error::NoRegion {
            addr: ErrorAddr::new(addr),
        }
    }

    /// [`Error::OutOfWindow`] for the 64-bit offending address.
    #[inline]
    pub const fn out_of_window(addr: u64) -> Error {
        Error::OutOfWindow {
            addr: ErrorAddr::new(addr),
        }
    }
}

impl Fault {
    /// [`Fault::AllOnes`] for the 64-bit address of the read.
    #[inline]
    pub const fn all_ones(addr: u64) -> Fault {
        Fault::AllOnes {
            addr: ErrorAddr::new(addr),
        }
    }
}

// The size every `Result` pays on 32-bit targets (see `Error`'s "Size"):
// checked wherever khal-core builds for one (the firmware, the on-target images).
#[cfg(target_pointer_width = "32")]
const _: () = assert!(
    core::mem::size_of::<Error>() == 20 && core::mem::align_of::<Error>() == 4,
    "Error grew past 20 bytes / 4-byte alignment on a 32-bit target (see its Size section)"
);

/// `v` in 32 bits, `u32::MAX` standing for "`u32::MAX` or more".
const fn saturate(v: u64) -> u32 {
    if v > u32::MAX as u64 {
        u32::MAX
    } else {
        v as u32
    }
}

/// A 64-bit device address as an [`Error`] or a [`Fault`] carries it: all 64
/// bits, held as two 32-bit halves so that `Error` needs only 4-byte alignment
/// on 32-bit targets (a `u64` field would make it 8-aligned and 24 bytes at
/// least; see [`Error`]'s "Size" section). Nothing is lost: [`ErrorAddr::get`]
/// gives the address back.
///
/// `Debug`, `Display` and `LowerHex` print it in hex (`0x2000200000`).
///
/// ```
/// use khal_core::ErrorAddr;
/// let a = ErrorAddr::from(0x20_0020_0000);
/// assert_eq!(a.get(), 0x20_0020_0000);
/// assert_eq!(a, 0x20_0020_0000);
/// assert_eq!(format!("{a:?} {a}"), "0x2000200000 0x2000200000");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorAddr {
    lo: u32,
    hi: u32,
}

impl ErrorAddr {
    /// The address `addr` (outside the crate: `ErrorAddr::from(addr)`).
    pub(crate) const fn new(addr: u64) -> Self {
        Self {
            lo: addr as u32,
            hi: (addr >> 32) as u32,
        }
    }

    /// The address, all 64 bits.
    pub const fn get(self) -> u64 {
        (self.hi as u64) << 32 | self.lo as u64
    }
}

impl From<u64> for ErrorAddr {
    fn from(addr: u64) -> Self {
        Self::new(addr)
    }
}

impl From<ErrorAddr> for u64 {
    fn from(addr: ErrorAddr) -> u64 {
        addr.get()
    }
}

impl PartialEq<u64> for ErrorAddr {
    fn eq(&self, other: &u64) -> bool {
        self.get() == *other
    }
}

hex_fmt!(ErrorAddr: Debug, Display; "{:#x}", "{=u64:#x}");

impl core::fmt::LowerHex for ErrorAddr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::LowerHex::fmt(&self.get(), f)
    }
}

/// An `OutOfRange` number in `Display`: decimal, "or more" when it saturated.
struct Saturated(u32);

impl core::fmt::Display for Saturated {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.0 == u32::MAX {
            write!(f, "{} or more", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// An `OutOfRange` number in `defmt`: the same as [`Saturated`].
#[cfg(feature = "defmt")]
impl defmt::Format for Saturated {
    fn format(&self, f: defmt::Formatter<'_>) {
        if self.0 == u32::MAX {
            defmt::write!(f, "{=u32} or more", self.0)
        } else {
            defmt::write!(f, "{=u32}", self.0)
        }
    }
}

/// A `u64` whose `Debug` is hex: addresses, tails and sizes in `Debug` output.
struct Hex(u64);

impl core::fmt::Debug for Hex {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// `Debug` of an error type from one list of its variants, written as the
/// derive would print them but for the values given: per field the value
/// printed (addresses, tails and bounds through [`Hex`]).
macro_rules! debug_variants {
    ($ty:ident { $($v:ident $({ $($field:ident: $val:expr),* })? $(($x:ident))?,)* }) => {
        impl core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                match *self {
                    $($ty::$v $({ $($field),* })? $(($x))? => {
                        debug_variants!(@one f, $v $({ $($field: $val),* })? $(($x))?)
                    })*
                }
            }
        }
    };
    (@one $f:ident, $v:ident { $($field:ident: $val:expr),* }) => {
        $f.debug_struct(stringify!($v))$(.field(stringify!($field), &$val))*.finish()
    };
    (@one $f:ident, $v:ident ($x:ident)) => {
        $f.debug_tuple(stringify!($v)).field(&$x).finish()
    };
    (@one $f:ident, $v:ident) => {
        $f.write_str(stringify!($v))
    };
}

debug_variants! {
    Fault {
        MisalignedTail { tail: Hex(tail.into()) },
        TailOutOfRing { tail: Hex(tail.into()), ring_bytes: Hex(ring_bytes.into()) },
        TooFarAhead { claimed: claimed, capacity: capacity },
        TailMovedBackwards { tail: Hex(tail.into()), previous: Hex(previous.into()) },
        AllOnes { addr: addr },
        ShortTransfer { expected: expected, moved: moved },
        Other(what),
    }
}

debug_variants! {
    Error {
        InvalidArgument(what),
        OutOfRange { what: what, value: Hex(value.into()), limit: Hex(limit.into()) },
        NoRegionTable,
        NoRegion { addr: addr },
        OutOfWindow { addr: addr },
        NoContext,
        OutOfMemory,
        UnknownMode(m),
        Rejected(what),
        NotTraced(what),
        Unsupported { what: what, arch: arch },
        Timeout(what),
        QueueTaken(idx),
        BlockTaken { base: base },
        WrongEngine,
        DeviceFault(fault),
    }
}

/// `Display` and `defmt::Format` of an error type from one list: per variant
/// the `Display` sentence (`write!` arguments), then the same sentence in
/// defmt's grammar (addresses and tails in hex through its `{=u64:#x}` hints).
macro_rules! messages {
    ($ty:ident { $($pat:pat => ($($fmt:tt)+), ($($dfmt:tt)+);)* }) => {
        impl core::fmt::Display for $ty {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                match *self {
                    $($pat => write!(f, $($fmt)+),)*
                }
            }
        }

        #[cfg(feature = "defmt")]
        impl defmt::Format for $ty {
            fn format(&self, f: defmt::Formatter<'_>) {
                match *self {
                    $($pat => defmt::write!(f, $($dfmt)+),)*
                }
            }
        }
    };
}

messages! {
    Fault {
        Fault::MisalignedTail { tail } =>
            ("tail {tail:#x} is not a multiple of the 16-byte entry"),
            ("tail {=u32:#x} is not a multiple of the 16-byte entry", tail);
        Fault::TailOutOfRing { tail, ring_bytes } =>
            ("tail {tail:#x} is outside the {ring_bytes:#x}-byte ring"),
            ("tail {=u32:#x} is outside the {=u32:#x}-byte ring", tail, ring_bytes);
        Fault::TooFarAhead { claimed, capacity } =>
            ("device claims {claimed} pending entries in a ring of {capacity}"),
            ("device claims {=u32} pending entries in a ring of {=u32}", claimed, capacity);
        Fault::TailMovedBackwards { tail, previous } =>
            ("tail {tail:#x} moved backwards (the previous read showed {previous:#x})"),
            (
                "tail {=u32:#x} moved backwards (the previous read showed {=u32:#x})",
                tail,
                previous
            );
        Fault::AllOnes { addr } =>
            ("register at {addr:#x} reads all ones (device gone)"),
            ("register at {=u64:#x} reads all ones (device gone)", addr.get());
        Fault::ShortTransfer { expected, moved } =>
            ("DMA moved {moved} of {expected} bytes"),
            ("DMA moved {=u32} of {=u32} bytes", moved, expected);
        Fault::Other(what) => ("{what}"), ("{=str}", what);
    }
}

messages! {
    Error {
        Error::InvalidArgument(what) =>
            ("invalid argument: {what}"), ("invalid argument: {=str}", what);
        Error::OutOfRange { what, value, limit } =>
            (
                "{what} {} out of range (must be < {})",
                Saturated(value),
                Saturated(limit)
            ),
            (
                "{=str} {} out of range (must be < {})",
                what,
                Saturated(value),
                Saturated(limit)
            );
        Error::NoRegionTable =>
            ("no CSR region table registered"), ("no CSR region table registered");
        Error::NoRegion { addr } =>
            ("no CSR region holds address {addr:#x}"),
            ("no CSR region holds address {=u64:#x}", addr.get());
        Error::OutOfWindow { addr } =>
            ("address {addr:#x} is outside its CSR window"),
            ("address {=u64:#x} is outside its CSR window", addr.get());
        Error::NoContext =>
            ("notification context or base absent"), ("notification context or base absent");
        Error::OutOfMemory => ("out of memory"), ("out of memory");
        Error::UnknownMode(m) =>
            ("unknown back-pressure mode {m}"), ("unknown back-pressure mode {=u32}", m);
        Error::Rejected(what) => ("rejected: {what}"), ("rejected: {=str}", what);
        Error::NotTraced(what) => ("not traced: {what}"), ("not traced: {=str}", what);
        Error::Unsupported { what, arch } =>
            ("{what} is not supported on {arch}"),
            ("{=str} is not supported on {=str}", what, arch.name());
        Error::Timeout(what) => ("timeout: {what}"), ("timeout: {=str}", what);
        Error::DeviceFault(fault) => ("device fault: {fault}"), ("device fault: {}", fault);
        Error::QueueTaken(idx) =>
            ("nq {idx} was already handed out by its engine"),
            ("nq {=u32} was already handed out by its engine", idx);
        Error::BlockTaken { base } =>
            ("the notification block at {base:#x} is already lent out"),
            ("the notification block at {=u64:#x} is already lent out", base.get());
        Error::WrongEngine =>
            ("the ring's queue belongs to another notification engine"),
            ("the ring's queue belongs to another notification engine");
    }
}

impl core::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    extern crate std;
    use std::format;

    #[test]
    fn debug_prints_addresses_in_hex() {
        let e = Error::no_region(0x20_0020_0000);
        assert_eq!(format!("{e:?}"), "NoRegion { addr: 0x2000200000 }");
        assert_eq!(
            format!("{:?}", Error::out_of_window(0x10FC)),
            "OutOfWindow { addr: 0x10fc }"
        );
        let gone = Error::DeviceFault(Fault::all_ones(0x3053_5010));
        assert_eq!(
            format!("{gone:?}"),
            "DeviceFault(AllOnes { addr: 0x30535010 })"
        );
        let tail = Fault::TailOutOfRing {
            tail: 0x410,
            ring_bytes: 0x400,
        };
        assert_eq!(
            format!("{tail:?}"),
            "TailOutOfRing { tail: 0x410, ring_bytes: 0x400 }"
        );
        // Value and limit in hex too (often an offset or a size); `Display`
        // keeps the decimal sentence.
        let r = Error::OutOfRange {
            what: "dma buffer offset",
            value: 0x1001,
            limit: 0x1000,
        };
        assert_eq!(
            format!("{r:?}"),
            "OutOfRange { what: \"dma buffer offset\", value: 0x1001, limit: 0x1000 }"
        );
        assert_eq!(
            format!("{r}"),
            "dma buffer offset 4097 out of range (must be < 4096)"
        );
        assert_eq!(format!("{:?}", Error::Timeout("nq")), "Timeout(\"nq\")");
        assert_eq!(format!("{:?}", Error::NoContext), "NoContext");
    }

    #[test]
    fn out_of_range_saturates_and_says_so() {
        // Fits: exact, the sentence unchanged.
        let e = Error::out_of_range("nq index", 10, 10);
        assert_eq!(
            e,
            Error::OutOfRange {
                what: "nq index",
                value: 10,
                limit: 10
            }
        );
        assert_eq!(format!("{e}"), "nq index 10 out of range (must be < 10)");
        // u32::MAX - 1 is still exact; u32::MAX and beyond read "or more".
        let e = Error::out_of_range("offset", u64::from(u32::MAX) - 1, 1 << 40);
        assert_eq!(
            e,
            Error::OutOfRange {
                what: "offset",
                value: u32::MAX - 1,
                limit: u32::MAX
            }
        );
        assert_eq!(
            format!("{e}"),
            "offset 4294967294 out of range (must be < 4294967295 or more)"
        );
        assert_eq!(
            format!("{e:?}"),
            "OutOfRange { what: \"offset\", value: 0xfffffffe, limit: 0xffffffff }"
        );
        let e = Error::out_of_range("register offset", u64::MAX, 0x100);
        assert_eq!(
            format!("{e}"),
            "register offset 4294967295 or more out of range (must be < 256)"
        );
    }

    #[test]
    fn addresses_keep_all_64_bits() {
        let a = 0xFFFF_8000_0000_1234_u64;
        for e in [
            Error::no_region(a),
            Error::out_of_window(a),
            Error::DeviceFault(Fault::all_ones(a)),
        ] {
            let addr = match e {
                Error::NoRegion { addr } | Error::OutOfWindow { addr } => addr,
                Error::DeviceFault(Fault::AllOnes { addr }) => addr,
                _ => unreachable!(),
            };
            assert_eq!(addr.get(), a);
            assert_eq!(u64::from(addr), a);
            assert_eq!(addr, a);
            assert_eq!(addr, ErrorAddr::from(a));
            assert!(format!("{e}").contains("0xffff800000001234"), "{e}");
            assert!(
                format!("{e:?}").contains("addr: 0xffff800000001234"),
                "{e:?}"
            );
        }
        assert_ne!(Error::no_region(1 << 32), Error::no_region(0));
        assert_eq!(format!("{:#x}", ErrorAddr::new(0x10)), "0x10");
    }

    #[test]
    fn c_codes_match_the_notes() {
        assert_eq!(Error::InvalidArgument("x").c_code(), Some(-22));
        assert_eq!(Error::NoRegionTable.c_code(), Some(-2));
        assert_eq!(Error::no_region(1).c_code(), Some(-2));
        assert_eq!(Error::out_of_window(1).c_code(), Some(-2));
        assert_eq!(Error::NoContext.c_code(), Some(-14));
        assert_eq!(Error::OutOfMemory.c_code(), Some(-12));
        assert_eq!(Error::UnknownMode(7).c_code(), Some(-1));
        assert_eq!(Error::NotTraced("x").c_code(), None);
        assert_eq!(
            Error::Unsupported {
                what: "x",
                arch: ArchId::Sunda
            }
            .c_code(),
            None
        );
        assert_eq!(Error::Timeout("x").c_code(), None);
        assert_eq!(Error::QueueTaken(3).c_code(), None);
        assert_eq!(
            Error::BlockTaken {
                base: ErrorAddr::new(1)
            }
            .c_code(),
            None
        );
        assert_eq!(Error::WrongEngine.c_code(), None);
        assert_eq!(
            Error::OutOfRange {
                what: "x",
                value: 9,
                limit: 8
            }
            .c_code(),
            None
        );
        assert_eq!(
            Error::DeviceFault(Fault::MisalignedTail { tail: 3 }).c_code(),
            None
        );
    }
}
