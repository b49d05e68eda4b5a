//! TPB / PSUM / PREPROC bases: the tile-indexed base tables [000 §3], [FACTS §3.1].

use crate::addr::DeviceAddr;
use crate::error::Result;

/// The PSUM aperture delta: PSUM base = TPB base + `0x8_0200_0000`, per tile,
/// verified across all eight slots [000 §3 NOTE].
pub const PSUM_DELTA: u64 = 0x8_0200_0000;

indexed_base! {
    /// A TPB tile index of arch `A`, validated once against `A`'s tile count.
    ///
    /// Holding a `Tile<A>` proves the index is in range for `A` (8 on CAYMAN and
    /// MARIANA, 2 on SUNDA); a `Tile<Sunda>` cannot be passed where a
    /// `Tile<Cayman>` is expected. The tile carries its TPB base, looked up at
    /// construction, so no later access can go out of bounds.
    pub struct Tile<A: TpbBases::TPB_BASES>, "tpb tile";
    /// Validate `index < A::TPB_BASES.len()`; out of range →
    /// [`crate::Error::OutOfRange`] (the C getter aborts here [000 §2]).
    new;
    /// Every tile of `A`, in index order.
    all;
    /// The tile number.
    index;
    /// The tile's TPB base (same as [`TpbBases::tpb_base`]).
    base;
}

/// The TPB / PSUM / PREPROC base family [000 §3], [FACTS §3.1].
pub trait TpbBases: Sized {
    /// The TPB base of every tile, in tile order (the `aws_hal_get_tpb_base_<arch>`
    /// table). Its length is the arch's tile count.
    const TPB_BASES: &'static [DeviceAddr];

    default_fns! {
        /// Validate a tile index for this arch (shorthand for [`Tile::new`]).
        fn tile(index: u32) -> Result<Tile<Self>> = Tile::new(index);
        /// The number of TPB tiles.
        fn tpb_count() -> u32 = Self::TPB_BASES.len() as u32;
        /// The TPB base of a tile (`get_tpb_base`). Infallible: the tile was
        /// validated against this arch.
        fn tpb_base(tile: Tile<Self>) -> DeviceAddr = tile.base();
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
