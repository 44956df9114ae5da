//! Download counts, for ranking search results and the popular skills. A download is counted in
//! memory and the counts are written in one transaction a second: a write per download would
//! put the database's lock and fsync on the path of every download. A crash loses at most the
//! last second's counts.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use super::{Shared, blocking};

/// How often counts are written.
pub(super) const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// Downloads not yet written, by skill name. Only names of skills that exist are counted, so it
/// holds at most one entry per skill.
#[derive(Debug, Default)]
pub(super) struct Counter(Mutex<HashMap<String, u64>>);

impl Counter {
    pub(super) fn record(&self, name: &str) {
        let mut counts = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = counts.get_mut(name) {
            *count += 1;
        } else {
            counts.insert(name.to_owned(), 1);
        }
    }

    fn take(&self) -> Vec<(String, u64)> {
        let mut counts = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        std::mem::take(&mut *counts).into_iter().collect()
    }
}

/// Writes the counts so far. A failed write is logged, not retried: counts rank results, and
/// nothing else depends on them.
pub(super) async fn flush(state: &Shared) {
    let counts = state.downloads.take();
    if counts.is_empty() {
        return;
    }
    let meta = state.meta.clone();
    if let Err(failure) = blocking(move || meta.add_downloads(&counts)).await {
        let line =
            serde_json::json!({ "error": format!("counting downloads failed: {}", failure.1) });
        let _ = std::io::Write::write_all(
            &mut std::io::stderr().lock(),
            format!("{line}\n").as_bytes(),
        );
    }
}

/// Flushes every `interval`, until the task is aborted.
pub(super) async fn flush_every(state: Shared, interval: Duration) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        flush(&state).await;
    }
}
