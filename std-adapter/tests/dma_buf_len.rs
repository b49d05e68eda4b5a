//! `DmaBuf::new`'s length is the length asked for; 0 is refused, as
//! `DmaBuf::new_pinned` refuses it.

use khal_core::dma::DmaMemory;
use khal_core::Error;
use khal_std::DmaBuf;

#[test]
fn a_zero_length_buffer_is_refused_and_others_keep_their_length() {
    for align in [1, 8, 64, 4096] {
        assert_eq!(
            DmaBuf::new(0, align).map(|b| b.len()),
            Err(Error::InvalidArgument("dma buffer size 0")),
            "align {align}"
        );
    }
    for len in [1, 3, 8, 63, 4096] {
        let b = DmaBuf::new(len, 64).unwrap();
        assert_eq!(b.len(), len);
        assert_eq!(b.load_u8(len - 1), Ok(0));
        assert!(b.load_u8(len).is_err(), "{len}: one past the end");
    }
    assert_eq!(
        DmaBuf::new(8, 3).map(|b| b.len()),
        Err(Error::InvalidArgument("dma buffer size/alignment"))
    );
}
