//! TPB / PSUM / PREPROC bases: the tile-indexed base tables [000 §3], [FACTS §3.1].

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};

/// A TPB tile index of arch `A`, validated once against `A`'s tile count.
///
/// Holding a `Tile<A>` proves the index is in range for `A` (8 on CAYMAN and
/// MARIANA, 2 on SUNDA); a `Tile<Sunda>` cannot be passed where a
/// `Tile<Cayman>` is expected. The tile carries its TPB base, looked up at
/// construction, so no later access can go out of bounds. Equal by index;
/// `Debug` and `defmt` print `Tile(index, base)`.
pub struct Tile<A> {
    index: u8,
    base: DeviceAddr,
    _arch: core::marker::PhantomData<fn() -> A>,
}

impl<A: TpbBases> Tile<A> {
    /// Validate `index < A::TPB_BASES.len()`; out of range →
    /// [`crate::Error::OutOfRange`] (the C getter aborts here [000 §2]).
    pub(crate) fn new(index: u32) -> Result<Self> {
        let bases = A::TPB_BASES;
        let oor = || Error::out_of_range("tpb tile", index.into(), bases.len() as u64);
        let base = usize::try_from(index).ok().and_then(|i| bases.get(i));
        // A base table holds at most 8 entries: the index fits a u8.
        base.map(|&base| Self::at(index as usize, base))
            .ok_or_else(oor)
    }

    /// Every tile of `A`, in index order.
    pub fn all() -> impl Iterator<Item = Tile<A>> {
        A::TPB_BASES
            .iter()
            .enumerate()
            .map(|(i, &base)| Self::at(i, base))
    }

    fn at(index: usize, base: DeviceAddr) -> Self {
        Tile {
            index: index as u8,
            base,
            _arch: core::marker::PhantomData,
        }
    }
}

impl<A> Tile<A> {
    /// The tile number.
    pub const fn index(self) -> u32 {
        self.index as u32
    }

    /// The tile's TPB base (what [`TpbBases::tpb_base`] answers).
    pub(crate) const fn base(self) -> DeviceAddr {
        self.base
    }
}

impl<A> Clone for Tile<A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A> Copy for Tile<A> {}
impl<A> PartialEq for Tile<A> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<A> Eq for Tile<A> {}
impl<A> core::fmt::Debug for Tile<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Tile({}, {})", self.index, self.base)
    }
}
#[cfg(feature = "defmt")]
impl<A> defmt::Format for Tile<A> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "Tile({=u8}, {})", self.index, self.base)
    }
}

/// The TPB / PSUM / PREPROC base family [000 §3], [FACTS §3.1].
pub trait TpbBases: Sized {
    /// The TPB base of every tile, in tile order (the `aws_hal_get_tpb_base_<arch>`
    /// table). Its length is the arch's tile count.
    const TPB_BASES: &'static [DeviceAddr];

    /// The PREPROC window bases the arch's sources list, in window order, or
    /// `Err(NotTraced)`.
    const PREPROC_BASES: Result<&'static [DeviceAddr]>;

    /// The size of one PREPROC window, or `Err(NotTraced)`.
    const PREPROC_SIZE: Result<u64>;

    /// Validate a tile index for this arch: `index < TPB_BASES.len()`, else
    /// [`crate::Error::OutOfRange`] (the C getter aborts here [000 §2]).
    fn tile(index: u32) -> Result<Tile<Self>> {
        Tile::new(index)
    }

    /// The TPB base of a tile (`get_tpb_base`). Infallible: the tile was
    /// validated against this arch.
    fn tpb_base(tile: Tile<Self>) -> DeviceAddr {
        tile.base()
    }

    /// The PSUM base of a tile: the TPB base + `0x8_0200_0000` where traced
    /// [000 §3 NOTE].
    fn psum_base(tile: Tile<Self>) -> Result<DeviceAddr>;
}
