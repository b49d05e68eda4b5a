//! The two arch-neutral UDMA-M2M shims that ride the notification band
//! [004 §5], [FACTS §9].
//!
//! - [`build_rx_descriptor`]: a thin forwarder into the UDMA M2M descriptor
//!   builder, refusing absent params with -22. The descriptor's wire format
//!   belongs to the M2M builder (not traced in these notes): khal forwards to
//!   whatever implements [`M2mRxBuilder`].
//! - [`addr_check`]: calls the out-of-band installed hook, or answers 0 when
//!   none is installed.

use crate::error::{Error, Result};

/// The UDMA M2M RX descriptor builder the shim forwards to
/// (`al_udma_m2m_build_rx_descriptor` [004 §5]).
pub trait M2mRxBuilder {
    /// The UDMA queue type.
    type Queue: ?Sized;
    /// Build one RX descriptor of `size` bytes at bus address `buf` on `queue`.
    fn build_rx_descriptor(&mut self, queue: &mut Self::Queue, size: u32, buf: u64) -> Result<()>;
}

/// The shim's params: the C `params->q`, `params->size`, `params->buf`.
#[derive(Debug)]
pub struct RxDescriptorParams<'a, Q: ?Sized> {
    /// The queue (`*params`): `None` is the C `NULL` → -22.
    pub queue: Option<&'a mut Q>,
    /// Buffer size in bytes.
    pub size: u32,
    /// Buffer bus address.
    pub buf: u64,
}

/// `al_mla_udma_m2m_build_rx_descriptor`: `params` absent, or its queue
/// absent, → [`Error::InvalidArgument`] (-22) with nothing built; otherwise
/// forward to `builder` [004 §5].
pub fn build_rx_descriptor<B: M2mRxBuilder>(
    builder: &mut B,
    params: Option<&mut RxDescriptorParams<'_, B::Queue>>,
) -> Result<()> {
    let p = params.ok_or(Error::InvalidArgument("udma rx params absent"))?;
    let Some(q) = p.queue.as_deref_mut() else {
        return Err(Error::InvalidArgument("udma rx params queue absent"));
    };
    builder.build_rx_descriptor(q, p.size, p.buf)
}

/// `al_mla_udma_addr_check`: no hook installed → 0; otherwise the hook's
/// answer, unchanged [004 §5]. The hook's argument list is not traced, so it
/// is generic here.
pub fn addr_check<T: ?Sized>(hook: Option<&dyn Fn(&T) -> i32>, args: &T) -> i32 {
    hook.map_or(0, |h| h(args))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Rec(Vec<(u32, u64)>);
    impl M2mRxBuilder for Rec {
        type Queue = u32;
        fn build_rx_descriptor(&mut self, q: &mut u32, size: u32, buf: u64) -> Result<()> {
            *q += 1;
            self.0.push((size, buf));
            Ok(())
        }
    }

    #[test]
    fn rx_descriptor_checks_then_forwards() {
        let mut b = Rec::default();
        assert_eq!(
            build_rx_descriptor(&mut b, None),
            Err(Error::InvalidArgument("udma rx params absent"))
        );
        let mut p = RxDescriptorParams::<u32> {
            queue: None,
            size: 64,
            buf: 0x1000,
        };
        assert_eq!(
            build_rx_descriptor(&mut b, Some(&mut p)).map_err(|e| e.c_code()),
            Err(Some(-22))
        );
        assert!(b.0.is_empty());
        let mut q = 0u32;
        let mut p = RxDescriptorParams {
            queue: Some(&mut q),
            size: 64,
            buf: 0x1000,
        };
        assert_eq!(build_rx_descriptor(&mut b, Some(&mut p)), Ok(()));
        assert_eq!(b.0, vec![(64, 0x1000)]);
        assert_eq!(q, 1);
    }

    #[test]
    fn addr_check_hook() {
        assert_eq!(addr_check::<u64>(None, &5), 0);
        let hook = |a: &u64| if *a > 4 { -14 } else { 7 };
        assert_eq!(addr_check(Some(&hook), &5), -14);
        assert_eq!(addr_check(Some(&hook), &1), 7);
    }
}
