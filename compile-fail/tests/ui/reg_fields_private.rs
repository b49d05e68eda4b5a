//! A register handle's fields are private: no struct literal gives a
//! read-only register's description a read-write handle (`timestamp_inc` is
//! read only [FACTS §6]), nor a bound register another access; `Reg::new`
//! and `RegArray::new` are the only constructors, and they keep the
//! description's access, which binding keeps too.
use core::marker::PhantomData;
use core::ptr::NonNull;

use khal::mmio::BoundReg;

use khal::notific::regs::{NQ_TAIL_PTR, TIMESTAMP_INC};
use khal::regs::{Reg, RegArray, RW};

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
