//! khal's async NQ drain on embassy's executor (std platform: one host
//! thread): two tasks on the same executor, one posting notifications on
//! the device model, one draining them with
//! `khal::asynch::drain`. The drain's delay is `SimDelay` over the
//! model (simulated time): each wait yields to the executor, so the posting
//! task runs while the drain waits, as a device would post during a sleep.
//!
//! Run: `cargo run -p khal-example-async-embassy` (in examples/).

#[path = "../../common/async_nq.rs"]
mod async_nq;

use std::sync::Arc;

use embassy_executor::{Executor, Spawner};
use khal::asynch::NqSignal;
use khal::notific::NotificBlocks;
use khal::std_adapter::model::DeviceModel;
use khal::std_adapter::{DmaBuf, SimDelay};
use khal::wait::Budget;

/// What the tasks share; leaked, so the tasks can borrow it for `'static`.
struct Shared {
    model: DeviceModel,
    signal: Arc<NqSignal>,
    mem: Arc<DmaBuf>,
}

fn main() {
    let shared: &'static Shared = match async_nq::device() {
        Ok((model, signal, mem)) => Box::leak(Box::new(Shared { model, signal, mem })),
        Err(e) => fail(&e),
    };
    let executor: &'static mut Executor = Box::leak(Box::new(Executor::new()));
    executor.run(|spawner| start(spawner, shared));
}

fn start(spawner: Spawner, shared: &'static Shared) {
    match (drainer(shared), poster(shared)) {
        (Ok(d), Ok(p)) => {
            spawner.spawn(d);
            spawner.spawn(p);
        }
        _ => fail(&"cannot spawn the tasks"),
    }
}

#[embassy_executor::task]
async fn drainer(shared: &'static Shared) {
    let result = async {
        // The model's notification block, owned by this task alone.
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(async_nq::NOTIFIC)?;
        let (_engine, mut ring) = async_nq::ring(&shared.model, &shared.mem, &mut block)?;
        // Each wait: woken by the interrupt, else at most 100 x 10 us of
        // simulated time; the poster runs during every one of them.
        let budget = Budget {
            period_us: 10,
            polls: 100,
        };
        let mut delay = SimDelay::new(&shared.model);
        async_nq::drain_all(&mut ring, &shared.signal, &mut delay, budget).await
    }
    .await;
    match result {
        Ok(drained) => {
            println!(
                "khal async on embassy (std): {drained} notifications drained in order, none lost"
            );
            // The std executor runs forever: the example ends here.
            std::process::exit(0);
        }
        Err(e) => fail(&e),
    }
}

#[embassy_executor::task]
async fn poster(shared: &'static Shared) {
    if let Err(e) = async_nq::post_all(&shared.model, embassy_futures::yield_now).await {
        fail(&e);
    }
}

fn fail(e: &dyn std::fmt::Display) -> ! {
    eprintln!("khal async embassy example failed: {e}");
    std::process::exit(1)
}
