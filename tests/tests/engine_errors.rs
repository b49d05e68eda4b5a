//! Every invalid argument of the engine shims [002 §1, §2], [FACTS §4, §5]:
//! the exact typed error, and nothing written. Checked on every arch and
//! through `AnyArch`, since the checks run before dispatch.

use khal::engine::{self, EngineOps, EngineParams, PeParams, PoolingParams, SpHandle};
use khal::{AnyArch, Cayman, Mariana, Sunda};
use khal::{DeviceAddr, Error};
use khal_std::{HeapMmio, Trace};

fn traced() -> Trace<HeapMmio> {
    Trace::new(HeapMmio::new(DeviceAddr(0), 0x1_0000))
}

const LEVEL: Error = Error::InvalidArgument("inst_debug_level > 8");

const SP: SpHandle = SpHandle {
    sp_mem: Some(DeviceAddr(0x100)),
    sp_regs: Some(DeviceAddr(0x200)),
    ens_regs: Some(DeviceAddr(0x8000)),
    inst_debug_level: 0,
};

fn check<A: EngineOps>() {
    let m = traced();
    let eng = |lvl| EngineParams {
        inst_debug_level: lvl,
        ..EngineParams::new(DeviceAddr(0x1000), DeviceAddr(0))
    };
    let pool = |lvl| PoolingParams {
        inst_debug_level: lvl,
        ..PoolingParams::new(DeviceAddr(0x2000), DeviceAddr(0))
    };
    let absent = Error::InvalidArgument("engine config absent");
    assert_eq!(engine::act_init::<A, _>(&m, None), Err(absent));
    assert_eq!(engine::dve_init::<A, _>(&m, None), Err(absent));
    assert_eq!(
        engine::pooling_init::<A, _>(&m, None),
        Err(Error::InvalidArgument("pooling config absent"))
    );
    for lvl in [9, 10, u32::MAX] {
        assert_eq!(engine::act_init::<A, _>(&m, Some(&eng(lvl))), Err(LEVEL));
        assert_eq!(engine::dve_init::<A, _>(&m, Some(&eng(lvl))), Err(LEVEL));
        assert_eq!(
            engine::pooling_init::<A, _>(&m, Some(&pool(lvl))),
            Err(LEVEL)
        );
        let sp = SpHandle {
            inst_debug_level: lvl,
            ..SP
        };
        assert_eq!(engine::sp_init::<A, _>(&m, &sp).map(|_| ()), Err(LEVEL));
        assert_eq!(
            engine::sp_init_raw::<A, _>(&m, Some(&sp), true, 0, true).map(|_| ()),
            Err(LEVEL)
        );
    }
    // sp_init: handle absent; sp_mem or sp_regs absent (the notes' order:
    // the windows are checked before the level).
    assert_eq!(
        engine::sp_init_raw::<A, _>(&m, None, true, 0, true).map(|_| ()),
        Err(Error::InvalidArgument("sp handle absent"))
    );
    let windows = Error::InvalidArgument("sp_mem_handle or sp_regs absent");
    for h in [
        SpHandle { sp_mem: None, ..SP },
        SpHandle {
            sp_regs: None,
            ..SP
        },
        SpHandle {
            sp_mem: None,
            inst_debug_level: 9,
            ..SP
        },
    ] {
        assert_eq!(engine::sp_init::<A, _>(&m, &h).map(|_| ()), Err(windows));
        assert_eq!(
            engine::sp_init_raw::<A, _>(&m, Some(&h), true, 0, true).map(|_| ()),
            Err(windows)
        );
        assert_eq!(
            engine::sp_init_raw::<A, _>(&m, Some(&h), true, 0, false).map(|_| ()),
            Err(windows)
        );
    }
    // stpb_init_raw: a missing pooling config is the first error. The
    // engine params are bound first: `Some(&temporary)` is not
    // lifetime-extended before Rust 1.89, and the MSRV is 1.88.
    let (act, dve) = (eng(0), eng(0));
    let pe = PeParams::new(DeviceAddr(0x3000), DeviceAddr(0));
    let cfg = engine::RawStpbConfig {
        pooling: None,
        act: Some(&act),
        dve: Some(&dve),
        pe: &pe,
        sp: Some(&SP),
        notific: true,
        flag: 0,
        init: true,
    };
    assert_eq!(
        engine::stpb_init_raw::<A, _, _>(&m, &cfg, &mut ()).map(|_| ()),
        Err(Error::InvalidArgument("pooling config absent"))
    );
    // The typed stpb_init: a pooling level above 8 is the first error.
    let bad_pool = pool(9);
    let typed = engine::StpbConfig {
        pooling: &bad_pool,
        act: &act,
        dve: &dve,
        pe: &pe,
        sp: &SP,
    };
    assert_eq!(
        engine::stpb_init::<A, _, _>(&m, &typed, &mut ()).map(|_| ()),
        Err(LEVEL)
    );
    assert_eq!(LEVEL.c_code(), Some(-22));
    assert!(m.ops().is_empty(), "an invalid argument wrote something");
}

#[test]
fn invalid_arguments_on_every_arch_write_nothing() {
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
}

#[test]
fn invalid_arguments_through_any_arch_write_nothing() {
    for id in [2, 3, 4] {
        let m = traced();
        let got = khal_tests::on_arch!(AnyArch::new(id).unwrap(), |A| (m: &'a Trace<HeapMmio> = &m) -> Vec<khal::Result<()>> {
            let bad = EngineParams {
                inst_debug_level: 9,
                ..EngineParams::new(DeviceAddr(0), DeviceAddr(0))
            };
            let no_regs = SpHandle {
                sp_regs: None,
                ..SP
            };
            vec![
                engine::dve_init::<A, _>(m, Some(&bad)),
                engine::act_init::<A, _>(m, None),
                engine::pooling_init::<A, _>(m, None),
                engine::sp_init_raw::<A, _>(m, None, true, 0, true).map(|_| ()),
                engine::sp_init::<A, _>(m, &no_regs),
            ]
        });
        assert_eq!(
            got,
            [
                Err(LEVEL),
                Err(Error::InvalidArgument("engine config absent")),
                Err(Error::InvalidArgument("pooling config absent")),
                Err(Error::InvalidArgument("sp handle absent")),
                Err(Error::InvalidArgument("sp_mem_handle or sp_regs absent")),
            ]
        );
        assert!(m.ops().is_empty());
    }
}
