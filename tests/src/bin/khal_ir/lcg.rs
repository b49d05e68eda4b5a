//! The scenarios' pseudo-random sequences (addresses, arrival patterns):
//! Knuth's MMIX linear congruential generator, a fixed sequence from its
//! seed, so every run of a scenario is the same run.

/// The generator's state; [`Lcg::step`] advances it.
pub struct Lcg(pub u64);

impl Lcg {
    /// One step (`x * 6364136223846793005 + 1442695040888963407`, mod
    /// 2^64); returns the new state (callers take its high bits).
    pub fn step(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0
    }
}
