//! Declarative register-block descriptions, used both for access and for
//! reverse lookup (address → `"notific.nq[3].head"`).
//!
//! A block is described once with [`register_block!`](crate::register_block):
//! each register's offset, access, bit fields and the spec's name. The macro
//! emits a typed handle per register ([`Reg`], or [`RegArray`] for a strided
//! array), a module of [`Field`]s per register that has fields, and one
//! `static` [`BlockDesc`] that [`BlockDesc::lookup`] searches. The handles are
//! `const`, so an access through them compiles to the same single volatile
//! access as a raw pointer write.
//!
//! The access is part of the handle's type: a `ro` register is a
//! [`Reg<RO>`](Reg), which has `read` but no `write` or `modify`; a `wo`
//! register is a `Reg<WO>`, which has `write` but no `read`. Writing a
//! read-only register does not compile (a trybuild case in
//! `compile-fail/tests/ui/`). `Reg` alone names a read-write register.
//!
//! A handle's access is its description's: the only constructors,
//! [`Reg::new`] and [`RegArray::new`], take it from a [`RegDesc`] and refuse
//! another (so `Reg::<RW>::new(NQ_TAIL_PTR.desc())` is an `Err`, not a
//! writable tail pointer), and every other route ([`RegArray::at`],
//! [`RegArray::flat`], the bound handles of `mmio::bound`) keeps the access
//! of the handle it starts from.
//!
//! ```
//! use khal_core::{register_block, DeviceAddr};
//! register_block! {
//!     /// A two-register example block.
//!     pub DEMO: "demo" {
//!         /// A control register.
//!         CTRL @ 0x04, rw, "ctrl", fields ctrl {
//!             /// Bit 9.
//!             CLR: 9..=9,
//!             /// Bits 13:10.
//!             STREAM_EN: 10..=13,
//!         };
//!         /// A strided array register.
//!         HEAD @ 0x10C, rw, "head", array "nq" [10; 0x28];
//!     }
//! }
//! assert_eq!(CTRL.offset(), 0x04);
//! assert_eq!(ctrl::STREAM_EN.mask(), 0x3C00);
//! assert_eq!(HEAD.at(3).unwrap().offset(), 0x10C + 3 * 0x28);
//! assert!(HEAD.at(10).is_err());
//! let name = DEMO.lookup(0x10C + 3 * 0x28).unwrap();
//! assert_eq!(format!("{name}"), "demo.nq[3].head");
//! assert_eq!(format!("{}", DEMO.lookup(4).unwrap()), "demo.ctrl");
//! assert!(DEMO.lookup(8).is_none());
//! ```

use core::marker::PhantomData;

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::Mmio;

/// How software may access a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Access {
    /// Read-only.
    ReadOnly,
    /// Write-only.
    WriteOnly,
    /// Read-write.
    ReadWrite,
}

/// The type-level access of a handle and what it permits, as bounds.
/// Unnameable outside the crate: the three markers are the only kinds, and a
/// handle's kind is its description's.
mod kind {
    use super::{Access, RO, RW, WO};

    /// Type-level access of a register handle: `RW`, `RO` or `WO`.
    pub trait AccessType: Copy + core::fmt::Debug {
        /// The run-time [`Access`] of the marker.
        const ACCESS: Access;
    }

    /// Access markers whose registers software may read (`RW`, `RO`).
    pub trait Readable: AccessType {}

    /// Access markers whose registers software may write (`RW`, `WO`).
    pub trait Writable: AccessType {}

    impl AccessType for RW {
        const ACCESS: Access = Access::ReadWrite;
    }
    impl AccessType for RO {
        const ACCESS: Access = Access::ReadOnly;
    }
    impl AccessType for WO {
        const ACCESS: Access = Access::WriteOnly;
    }
    impl Readable for RW {}
    impl Readable for RO {}
    impl Writable for RW {}
    impl Writable for WO {}
}

pub(crate) use kind::{AccessType, Readable, Writable};

/// Read-write register (the default of [`Reg`] and [`RegArray`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RW {}

/// Read-only register: the device owns it; software only reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RO {}

/// Write-only register (a set / clear / trigger register).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WO {}

/// A bit field `hi:lo` of a 32-bit register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Field {
    /// The field's name as the spec spells it.
    pub name: &'static str,
    /// Lowest bit.
    pub lo: u8,
    /// Highest bit (inclusive).
    pub hi: u8,
}

impl Field {
    /// The in-place mask (bits `hi:lo` set).
    pub const fn mask(self) -> u32 {
        let width = (self.hi - self.lo + 1) as u32;
        let ones = if width >= 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        ones << self.lo
    }

    /// Extract the field from a register value.
    #[inline(always)]
    pub const fn get(self, reg: u32) -> u32 {
        (reg & self.mask()) >> self.lo
    }

    /// Return `reg` with the field replaced by `value` (extra high bits of
    /// `value` are dropped, as the C code's `(v << shift) & mask`).
    #[inline(always)]
    pub const fn set(self, reg: u32, value: u32) -> u32 {
        (reg & !self.mask()) | ((value << self.lo) & self.mask())
    }
}

/// A strided register array (`count` instances, `stride` bytes apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayDesc {
    /// The array's name (`"nq"` in `notific.nq[3].head`).
    pub name: &'static str,
    /// Number of instances.
    pub count: u32,
    /// Bytes between instances.
    pub stride: u64,
}

/// One register's description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegDesc {
    /// The spec's name (`"coal_ctrl"`).
    pub name: &'static str,
    /// Byte offset from the block base (of instance 0 for an array).
    pub offset: u64,
    /// Access.
    pub access: Access,
    /// Bit fields, possibly none.
    pub fields: &'static [Field],
    /// Array geometry, for strided registers.
    pub array: Option<ArrayDesc>,
}

/// A whole block's description: what [`BlockDesc::lookup`] searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BlockDesc {
    /// The block's name (`"notific"`).
    pub name: &'static str,
    /// Its registers.
    pub regs: &'static [RegDesc],
}

/// The name of the register at an address: block, array instance, register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegName {
    /// Block name.
    pub block: &'static str,
    /// Array name and instance, for strided registers.
    pub instance: Option<(&'static str, u32)>,
    /// Register name.
    pub reg: &'static str,
}

impl core::fmt::Display for RegName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.instance {
            Some((arr, i)) => write!(f, "{}.{}[{}].{}", self.block, arr, i, self.reg),
            None => write!(f, "{}.{}", self.block, self.reg),
        }
    }
}

impl BlockDesc {
    /// The register at byte offset `offset` from the block base, if one is
    /// described there. Arrays match every in-range instance.
    pub fn lookup(&self, offset: u64) -> Option<RegName> {
        self.regs.iter().find_map(|r| {
            let name = |instance| RegName {
                block: self.name,
                instance,
                reg: r.name,
            };
            let Some(a) = r.array else {
                return (r.offset == offset).then(|| name(None));
            };
            let rel = offset.checked_sub(r.offset)?;
            if a.stride == 0 {
                return (rel == 0).then(|| name(Some((a.name, 0))));
            }
            let (i, rem) = (rel / a.stride, rel % a.stride);
            (rem == 0 && i < a.count as u64).then(|| name(Some((a.name, i as u32))))
        })
    }

    /// Bytes from the block base through the last byte of its last described
    /// register, every instance of its arrays counted: `offset + 4`, or
    /// `offset + (count - 1) * stride + 4` for an array.
    pub const fn extent(&self) -> u64 {
        let mut end = 0;
        let mut regs = self.regs;
        while let [r, rest @ ..] = regs {
            let last = match r.array {
                Some(a) if a.count == 0 => 0,
                Some(a) => r
                    .offset
                    .saturating_add((a.count as u64 - 1).saturating_mul(a.stride))
                    .saturating_add(4),
                None => r.offset.saturating_add(4),
            };
            end = if last > end { last } else { end };
            regs = rest;
        }
        end
    }
}

/// Refuse a `base` whose block of `extent` bytes (its [`BlockDesc::extent`],
/// taken as a constant) does not fit below 2^64 with
/// [`Error::InvalidArgument`]: its registers would sit at wrapped low
/// addresses. An init checks this before its first access, so a refused
/// bring-up touched nothing.
pub(crate) const fn check_block_base(base: DeviceAddr, extent: u64) -> Result<()> {
    base.check_span(
        extent,
        "register block does not fit below 2^64 at this base",
    )
}

/// A typed handle to one register of a block (not an array).
///
/// `A` is its access ([`RW`] by default, [`RO`], [`WO`]): `read` needs a
/// readable access (`RW`, `RO`), `write` a writable one (`RW`, `WO`),
/// `modify` both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reg<A: AccessType = RW> {
    offset: u64,
    desc: &'static RegDesc,
    _access: PhantomData<A>,
}

/// `A`'s access is the description's, or the refusal of [`Reg::new`] and
/// [`RegArray::new`]: a handle never grants more than its description.
const fn check_access<A: AccessType>(desc: &RegDesc) -> Result<()> {
    if desc.access as u8 == A::ACCESS as u8 {
        Ok(())
    } else {
        Err(Error::InvalidArgument(
            "register handle access differs from its description",
        ))
    }
}

impl<A: AccessType> Reg<A> {
    /// The handle of the plain register `desc` describes, with `desc`'s
    /// access (what [`register_block!`](crate::register_block) emits).
    ///
    /// Refused with [`Error::InvalidArgument`]: an `A` other than
    /// `desc.access` (a `Reg<RW>` of a read-only register's description), or
    /// an array's description (its handle is a [`RegArray`]).
    pub const fn new(desc: &'static RegDesc) -> Result<Reg<A>> {
        const_try!(check_access::<A>(desc));
        if desc.array.is_some() {
            return Err(Error::InvalidArgument("register description is an array's"));
        }
        Ok(Reg::at_offset(desc, desc.offset))
    }

    /// The handle of `desc`'s register at `offset` (an array's instance).
    const fn at_offset(desc: &'static RegDesc, offset: u64) -> Reg<A> {
        Reg {
            offset,
            desc,
            _access: PhantomData,
        }
    }

    /// Byte offset from the block base.
    pub const fn offset(self) -> u64 {
        self.offset
    }

    /// The register's description.
    pub const fn desc(self) -> &'static RegDesc {
        self.desc
    }

    /// The absolute address in a block mounted at `base`.
    pub(crate) const fn addr(self, base: DeviceAddr) -> DeviceAddr {
        base.add(self.offset)
    }
}

impl<A: Readable> Reg<A> {
    /// Read the register of the block at `base`.
    pub fn read<M: Mmio + ?Sized>(self, mmio: &M, base: DeviceAddr) -> Result<u32> {
        mmio.read32(self.addr(base))
    }
}

impl<A: Writable> Reg<A> {
    /// Write the register of the block at `base`.
    pub fn write<M: Mmio + ?Sized>(self, mmio: &M, base: DeviceAddr, value: u32) -> Result<()> {
        mmio.write32(self.addr(base), value)
    }
}

impl<A: Readable + Writable> Reg<A> {
    /// Read-modify-write: one read, then one write of `f(old)`.
    #[inline(always)]
    pub fn modify<M: Mmio + ?Sized>(
        self,
        mmio: &M,
        base: DeviceAddr,
        f: impl FnOnce(u32) -> u32,
    ) -> Result<u32> {
        let new = f(self.read(mmio, base)?);
        self.write(mmio, base, new)?;
        Ok(new)
    }
}

/// A typed handle to a strided register array; `A` as for [`Reg`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegArray<A: AccessType = RW> {
    desc: &'static RegDesc,
    count: u32,
    stride: u64,
    _access: PhantomData<A>,
}

impl<A: AccessType> RegArray<A> {
    /// The handle of the register array `desc` describes, with `desc`'s
    /// access, count and stride (what [`register_block!`](crate::register_block)
    /// emits).
    ///
    /// Refused with [`Error::InvalidArgument`]: an `A` other than
    /// `desc.access`, or a description without array geometry.
    pub const fn new(desc: &'static RegDesc) -> Result<RegArray<A>> {
        const_try!(check_access::<A>(desc));
        match desc.array {
            Some(a) => Ok(RegArray {
                desc,
                count: a.count,
                stride: a.stride,
                _access: PhantomData,
            }),
            None => Err(Error::InvalidArgument(
                "register description is not an array's",
            )),
        }
    }

    /// Number of instances.
    #[cfg(test)]
    pub(crate) const fn count(self) -> u32 {
        self.count
    }

    /// Bytes between instances.
    #[cfg(test)]
    pub(crate) const fn stride(self) -> u64 {
        self.stride
    }

    /// The register's description.
    pub const fn desc(self) -> &'static RegDesc {
        self.desc
    }

    /// Instance `i`, refused when `i >= count`.
    #[inline(always)]
    pub const fn at(self, i: u32) -> Result<Reg<A>> {
        if i < self.count {
            Ok(Reg::at_offset(
                self.desc,
                self.desc.offset + i as u64 * self.stride,
            ))
        } else {
            Err(Error::out_of_range(
                self.desc.name,
                i as u64,
                self.count as u64,
            ))
        }
    }

    /// Instance 0 without a stride: the layout of a single-instance flavour of
    /// the block (e.g. the single-queue notific engine [004 §3]).
    pub const fn flat(self) -> Reg<A> {
        Reg::at_offset(self.desc, self.desc.offset)
    }
}

/// Describe a register block: see the [module docs](crate::regs) for the syntax.
///
/// (The `@`-rules are the macro's own steps, not a syntax to call.)
#[macro_export]
macro_rules! register_block {
    // Access keyword → its type-level marker and its `Access`.
    (@marker rw) => { $crate::regs::RW };
    (@marker ro) => { $crate::regs::RO };
    (@marker wo) => { $crate::regs::WO };
    (@access rw) => { $crate::regs::Access::ReadWrite };
    (@access ro) => { $crate::regs::Access::ReadOnly };
    (@access wo) => { $crate::regs::Access::WriteOnly };
    // Array geometry.
    (@array) => { None };
    (@array $arr:literal, $cnt:literal, $stride:literal) => {
        Some($crate::regs::ArrayDesc {
            name: $arr,
            count: $cnt,
            stride: $stride,
        })
    };
    // One register handle: a `Reg` for a plain register, a `RegArray` for an
    // array. The description and the handle take their access from one
    // keyword, so the constructor's refusal is never met; were it met,
    // evaluating the `const` would fail the build, not a run.
    (@reg $(#[$m:meta])* $reg:ident, $acc:ident, $desc:expr, []) => {
        $crate::register_block!(@handle Reg, $(#[$m])* $reg, $acc, $desc);
    };
    (@reg $(#[$m:meta])* $reg:ident, $acc:ident, $desc:expr, [$arr:literal, $cnt:literal, $stride:literal]) => {
        $crate::register_block!(@handle RegArray, $(#[$m])* $reg, $acc, $desc);
    };
    (@handle $handle:ident, $(#[$m:meta])* $reg:ident, $acc:ident, $desc:expr) => {
        $(#[$m])*
        #[allow(clippy::panic)]
        pub const $reg: $crate::regs::$handle<$crate::register_block!(@marker $acc)> =
            match $crate::regs::$handle::new(&$desc) {
                Ok(r) => r,
                Err(_) => panic!("register_block!: a handle unlike its description"),
            };
    };
    (
        $(#[$bm:meta])*
        $vis:vis $block:ident : $bname:literal {
            $(
                $(#[$rm:meta])*
                $reg:ident @ $off:literal, $acc:ident, $name:literal
                $(, fields $fmod:ident { $( $(#[$fm:meta])* $field:ident : $lo:literal ..= $hi:literal ),* $(,)? } )?
                $(, array $arr:literal [$cnt:literal ; $stride:literal] )?
                ;
            )*
        }
    ) => {
        $(
            $crate::register_block!(
                @reg
                $(#[$rm])* #[doc = concat!("\n\nSpec name: `", $bname, ".", $name, "`, offset `", stringify!($off), "`.")]
                $reg,
                $acc,
                $crate::regs::RegDesc {
                    name: $name,
                    offset: $off,
                    access: $crate::register_block!(@access $acc),
                    fields: &[ $( $( $crate::regs::Field { name: stringify!($field), lo: $lo, hi: $hi } ),* )? ],
                    array: $crate::register_block!(@array $( $arr, $cnt, $stride )?),
                },
                [$( $arr, $cnt, $stride )?]
            );
            $(
                #[doc = concat!("Bit fields of `", $name, "`.")]
                pub mod $fmod {
                    $(
                        $(#[$fm])*
                        pub const $field: $crate::regs::Field =
                            $crate::regs::Field { name: stringify!($field), lo: $lo, hi: $hi };
                    )*
                }
            )?
        )*

        $(#[$bm])*
        $vis static $block: $crate::regs::BlockDesc = $crate::regs::BlockDesc {
            name: $bname,
            regs: &[ $( *$reg.desc() ),* ],
        };
    };
}

// defmt: offsets and strides in hex, as the register map prints them; a
// `RegName` as its `Display` (`notific.nq[3].head`).

#[cfg(feature = "defmt")]
impl defmt::Format for ArrayDesc {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "ArrayDesc {{ name: {=str}, count: {=u32}, stride: {=u64:#x} }}",
            self.name,
            self.count,
            self.stride
        )
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for RegDesc {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "RegDesc {{ name: {=str}, offset: {=u64:#x}, access: {}, fields: {}, array: {} }}",
            self.name,
            self.offset,
            self.access,
            self.fields,
            self.array
        )
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for RegName {
    fn format(&self, f: defmt::Formatter<'_>) {
        match self.instance {
            Some((arr, i)) => defmt::write!(
                f,
                "{=str}.{=str}[{=u32}].{=str}",
                self.block,
                arr,
                i,
                self.reg
            ),
            None => defmt::write!(f, "{=str}.{=str}", self.block, self.reg),
        }
    }
}

#[cfg(feature = "defmt")]
impl<A: AccessType> defmt::Format for Reg<A> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "Reg {{ name: {=str}, offset: {=u64:#x} }}",
            self.desc.name,
            self.offset
        )
    }
}

#[cfg(feature = "defmt")]
impl<A: AccessType> defmt::Format for RegArray<A> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "RegArray {{ name: {=str}, count: {=u32}, stride: {=u64:#x} }}",
            self.desc.name,
            self.count,
            self.stride
        )
    }
}

#[cfg(test)]
mod tests {
    register_block! {
        /// Test block.
        pub TEST: "test" {
            /// A.
            A @ 0x0, rw, "a";
            /// B with fields.
            B @ 0xB8, rw, "b", fields b {
                /// bit 8
                BYPASS: 8..=8,
                /// 13:10
                STREAM: 10..=13,
            };
            /// Array.
            H @ 0x100, ro, "head", array "nq" [10; 40];
            /// Whole-register field.
            W @ 0x200, wo, "w", fields w { ALL: 0..=31 };
        }
    }

    #[test]
    fn fields() {
        assert_eq!(b::BYPASS.mask(), 0x100);
        assert_eq!(b::STREAM.mask(), 0x3C00);
        assert_eq!(b::STREAM.set(0xFFFF_FFFF, 0), 0xFFFF_C3FF);
        assert_eq!(b::STREAM.set(0, 0x1F), 0x3C00);
        assert_eq!(b::STREAM.get(0x2400), 0x9);
        assert_eq!(w::ALL.mask(), u32::MAX);
    }

    #[test]
    fn lookup() {
        assert_eq!(TEST.lookup(0).map(|n| n.reg), Some("a"));
        assert_eq!(
            TEST.lookup(0x100 + 9 * 40).map(|n| n.instance),
            Some(Some(("nq", 9)))
        );
        assert_eq!(TEST.lookup(0x100 + 10 * 40), None);
        assert_eq!(TEST.lookup(0x101), None);
        assert_eq!(TEST.lookup(0x4), None);
        assert_eq!(H.at(9).map(|r| r.offset()), Ok(0x100 + 360));
        assert!(H.at(10).is_err());
        assert_eq!(H.flat().offset(), 0x100);
        assert_eq!(TEST.regs.len(), 4);
        assert_eq!(W.desc().access, super::Access::WriteOnly);
        assert_eq!(H.desc().access, super::Access::ReadOnly);
    }

    /// A handle cannot be given more access than its description: a
    /// read-only array as read-write, a write-only register as readable; an
    /// array's description is no plain register and the reverse.
    #[test]
    fn constructors_keep_the_description_access() {
        use super::{Reg, RegArray, RO, RW, WO};
        let refused = |r: crate::Result<()>| matches!(r, Err(crate::Error::InvalidArgument(_)));
        assert!(refused(RegArray::<RW>::new(H.desc()).map(|_| ())));
        assert!(refused(RegArray::<WO>::new(H.desc()).map(|_| ())));
        assert!(refused(Reg::<RW>::new(W.desc()).map(|_| ())));
        assert!(refused(Reg::<RO>::new(W.desc()).map(|_| ())));
        assert!(refused(Reg::<RO>::new(H.desc()).map(|_| ())));
        assert!(refused(RegArray::<RW>::new(A.desc()).map(|_| ())));
        assert_eq!(Reg::<WO>::new(W.desc()), Ok(W));
        assert_eq!(Reg::<RW>::new(A.desc()), Ok(A));
        let h = RegArray::<RO>::new(H.desc()).unwrap();
        assert_eq!((h.count(), h.stride()), (10, 40));
        assert_eq!(h, H);
    }
}
