//! A register handle's fields are private: no struct literal gives a
//! read-only register's description a read-write handle (`timestamp_inc` is
//! read only [FACTS §6]), nor a bound register another access; `Reg::new`
//! and `RegArray::new` are the only constructors, and they keep the
//! description's access, which binding keeps too.
use core::marker::PhantomData;
use core::ptr::NonNull;

use khal::mmio::BoundReg;

use khal::regs::{Reg, RegArray, RW};

// Two read-only registers, declared as a user declares a block (the spec's
// `nq_tail_ptr`, the device's producer tail, and `timestamp_inc`) [004 §3],
// [FACTS §6].
khal::register_block! {
    /// A block with two read-only registers.
    #[allow(dead_code)]
    BLOCK: "notific" {
        /// Read only [FACTS §6].
        TIMESTAMP_INC @ 0xCC, ro, "timestamp_inc";
        /// The device moves it [004 §3].
        NQ_TAIL_PTR @ 0x110, ro, "nq_tail_ptr", array "nq" [10; 40];
    }
}

fn main() {
    let _ = Reg::<RW> {
        offset: 0xCC,
        desc: TIMESTAMP_INC.desc(),
        _access: PhantomData,
    };
    let _ = RegArray::<RW> {
        desc: NQ_TAIL_PTR.desc(),
        count: 10,
        stride: 40,
        _access: PhantomData,
    };
    let _ = BoundReg::<'static, RW> {
        ptr: NonNull::dangling(),
        _window: PhantomData,
        _access: PhantomData,
    };
}
