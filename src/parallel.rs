//! Running independent work on every core while keeping results in input order.
//!
//! Checking skills is embarrassingly parallel, but output must be stable: results come back in
//! the order of the input, whichever thread produced them. Threads take the next item from a
//! shared counter, so a few slow items (a 900-line SKILL.md) do not leave a core idle.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The cores this process may use (asked once: on Linux the answer reads cgroup files).
pub(crate) fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(2, usize::from))
}

/// The threads to walk and check `paths` on: one when they are a single skill (a `SKILL.md`,
/// or a folder holding one), the way pre-commit hooks and editors call skillpkg, file by file:
/// starting and joining threads would cost more than the work; else every core.
pub(crate) fn threads_for(paths: &[PathBuf]) -> usize {
    let is_skill = |path: &Path| {
        path.is_file() || path.join("SKILL.md").is_file() || path.join("skill.md").is_file()
    };
    match paths {
        [path] if is_skill(path) => 1,
        _ => cores(),
    }
}

/// Applies `work` to every item on up to `threads` threads; results are in input order.
pub(crate) fn map_in_order<T, R, F>(items: &[T], threads: usize, work: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(index) else { break };
                        done.push((index, work(item)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    done.sort_unstable_by_key(|&(index, _)| index);
    done.into_iter().map(|(_, result)| result).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_input_order() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = map_in_order(&items, 4, |n| n * n);
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert!(map_in_order(&[] as &[u8], 4, |n| *n).is_empty());
    }
}
