//! TPB / PSUM / PREPROC bases: the tile-indexed base tables [000 §3], [FACTS §3.1].

use core::marker::PhantomData;

use crate::addr::{DeviceAddr, MeshHalf};
use crate::error::{Error, Result};

/// The PSUM aperture delta: PSUM base = TPB base + `0x8_0200_0000`, per tile,
/// verified across all eight slots [000 §3 NOTE].
pub const PSUM_DELTA: u64 = 0x8_0200_0000;

/// A TPB tile index of arch `A`, validated once against `A`'s tile count.
///
/// Holding a `Tile<A>` proves the index is in range for `A` (8 on CAYMAN and
/// MARIANA, 2 on SUNDA); a `Tile<Sunda>` cannot be passed where a
/// `Tile<Cayman>` is expected. The tile carries its TPB base, looked up at
/// construction, so no later access can go out of bounds.
pub struct Tile<A> {
    index: u8,
    base: DeviceAddr,
    _arch: PhantomData<fn() -> A>,
}

impl<A: TpbBases> Tile<A> {
    /// Validate `index < A::TPB_BASES.len()`; out of range →
    /// [`Error::OutOfRange`] (the C getter aborts here [000 §2]).
    pub fn new(index: u32) -> Result<Self> {
        let bases = A::TPB_BASES;
        match usize::try_from(index).ok().and_then(|i| bases.get(i)) {
            Some(&base) => Ok(Tile {
                // The tables hold at most 8 entries, so the index fits a u8.
                index: index as u8,
                base,
                _arch: PhantomData,
            }),
            None => Err(Error::out_of_range(
                "tpb tile",
                index as u64,
                bases.len() as u64,
            )),
        }
    }

    /// Every tile of `A`, in index order.
    pub fn all() -> impl Iterator<Item = Tile<A>> {
        A::TPB_BASES.iter().enumerate().map(|(i, &base)| Tile {
            index: i as u8,
            base,
            _arch: PhantomData,
        })
    }

    /// The tile number.
    pub const fn index(self) -> u32 {
        self.index as u32
    }

    /// The tile's TPB base (same as [`TpbBases::tpb_base`]).
    pub const fn base(self) -> DeviceAddr {
        self.base
    }

    /// Which mesh half the tile lives in (bit 47 of its base) [000 §2].
    pub const fn mesh_half(self) -> MeshHalf {
        self.base.mesh_half()
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

    /// Validate a tile index for this arch (shorthand for [`Tile::new`]).
    fn tile(index: u32) -> Result<Tile<Self>> {
        Tile::new(index)
    }

    /// The number of TPB tiles.
    fn tpb_count() -> u32 {
        Self::TPB_BASES.len() as u32
    }

    /// The TPB base of a tile (`get_tpb_base`). Infallible: the tile was
    /// validated against this arch.
    fn tpb_base(tile: Tile<Self>) -> DeviceAddr {
        tile.base()
    }

    /// The PSUM base of a tile (TPB base + [`PSUM_DELTA`] where traced).
    fn psum_base(tile: Tile<Self>) -> Result<DeviceAddr>;

    /// Number of PREPROC windows known, or `NotTraced`.
    fn preproc_count() -> Result<u32>;

    /// The PREPROC base of window `index` (`index < preproc_count()`).
    fn preproc_base(index: u32) -> Result<DeviceAddr>;

    /// The size of one PREPROC window.
    fn preproc_size() -> Result<u64>;
}
