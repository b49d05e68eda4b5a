//! A read-only register has no `write` (or `modify`) on any public route:
//! `nq_tail_ptr` is the device's producer tail and `timestamp_inc` is read
//! only, which software only reads [004 §3], [FACTS §6]. The routes: the
//! handle itself, an array instance (`at`, `flat`), a bound block and its
//! bound registers, a register bound in a window; and no constructor names
//! another access (`__new` is gone; the fields are private:
//! `reg_fields_private.rs`). `Reg::<RW>::new`
//! of a read-only description is refused at run time (`regs::tests`).
use khal::mmio::BoundBlock;
use khal::mmio::VolatileWindow;
use khal::regs::{Reg, RegArray, RW};
use khal::DeviceAddr;
use khal_std::HeapMmio;

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

fn through_the_handles(m: &HeapMmio) {
    let _ = NQ_TAIL_PTR.at(3).unwrap().read(m, DeviceAddr(0));
    let _ = NQ_TAIL_PTR.at(3).unwrap().write(m, DeviceAddr(0), 0);
    let _ = NQ_TAIL_PTR.flat().write(m, DeviceAddr(0), 0);
    let _ = TIMESTAMP_INC.write(m, DeviceAddr(0), 0);
    let _ = TIMESTAMP_INC.modify(m, DeviceAddr(0), |v| v + 1);
}

fn through_bound_handles(w: &VolatileWindow, b: BoundBlock<'_, 0x1000>) {
    let _ = b.write(TIMESTAMP_INC, 0);
    b.reg(TIMESTAMP_INC).unwrap().write(0);
    b.at(NQ_TAIL_PTR, 3).unwrap().modify(|v| v + 1);
    w.bind(DeviceAddr(0), TIMESTAMP_INC).unwrap().write(0);
}

fn through_a_constructor() {
    let _ = Reg::<RW>::__new(TIMESTAMP_INC.desc());
    let _ = RegArray::<RW>::__new(NQ_TAIL_PTR.desc(), 10, 40);
}

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    through_the_handles(&m);
    let _ = (through_bound_handles, through_a_constructor);
}
