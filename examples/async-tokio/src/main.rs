//! khal's async NQ drain on tokio: the device model (`Send + Sync`, shared
//! with `Arc`) posts notifications from a task on another worker thread
//! while `main` drains them with `khal::asynch::drain`, each wait
//! woken by the NQ's interrupt or bounded by a budget on tokio's timer
//! (`TokioDelay`, the `tokio` feature of `khal`).
//!
//! Run: `cargo run -p khal-example-async-tokio` (in examples/).

#[path = "../../common/async_nq.rs"]
mod async_nq;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use khal::notific::NotificBlocks;
use khal::std_adapter::TokioDelay;
use khal::wait::Budget;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    match run().await {
        Ok(drained) => {
            println!("khal async on tokio: {drained} notifications drained in order, none lost");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("khal async tokio example failed: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<u64, Box<dyn std::error::Error + Send + Sync>> {
    let (model, signal, mem) = async_nq::device()?;
    let model = Arc::new(model);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(async_nq::NOTIFIC)?;
    let (_engine, mut ring) = async_nq::ring(&model, &mem, &mut block)?;
    // The poster runs on any worker: `Arc<DeviceModel>` is `Send + 'static`.
    let device = Arc::clone(&model);
    let poster = tokio::spawn(async move {
        async_nq::post_all(&device, || tokio::time::sleep(Duration::from_micros(50))).await
    });
    // Each wait: woken by the interrupt, else at most 1000 x 1 ms.
    let budget = Budget {
        period_us: 1000,
        polls: 1000,
    };
    let drained = async_nq::drain_all(&mut ring, &signal, &mut TokioDelay, budget).await?;
    let posted = poster.await??;
    if u64::from(posted) != drained {
        return Err(format!("posted {posted}, drained {drained}").into());
    }
    Ok(drained)
}
