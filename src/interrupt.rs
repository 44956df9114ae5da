//! Ctrl-C (and SIGTERM, SIGHUP) in the middle of writing: the staging folders skillpkg is
//! filling are removed before the process exits, so an interrupted `unpack` or `install` leaves
//! nothing behind. Whatever a kill that cannot be caught leaves is cleaned by the next run (see
//! [`crate::pack::extract`]).
//!
//! The command layer calls [`install`] once; library code registers what it is writing with
//! [`Cleanup::register`], and the handler is set up then, at the first registration: a command
//! that writes nothing (`validate`, `lint`, `preview`) starts no signal thread, and Ctrl-C ends
//! it the default way. A long-running server (`registry serve`) does not install the handler:
//! it shuts down gracefully on its own.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once, PoisonError};

/// The exit status of a process ended by SIGINT, by shell convention (128 + 2).
pub(crate) const INTERRUPTED_EXIT: i32 = 130;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static NEXT_ID: AtomicU64 = AtomicU64::new(0);
static PENDING: Mutex<Vec<(u64, PathBuf)>> = Mutex::new(Vec::new());
/// Whether [`install`] was called: the handler is set up at the first [`Cleanup::register`].
static WANTED: AtomicBool = AtomicBool::new(false);
static HANDLER: Once = Once::new();

/// Asks for the handler: from the first [`Cleanup::register`] on, the first signal stops new
/// work ([`interrupted`]), removes every registered folder and exits with status 130.
pub fn install() {
    WANTED.store(true, Ordering::SeqCst);
}

/// Sets the handler up, once, if [`install`] asked for it.
fn handle_signals() {
    if !WANTED.load(Ordering::SeqCst) {
        return;
    }
    // Failing to install (another handler is already set) only loses the clean-up.
    HANDLER.call_once(|| {
        let _ = ctrlc::set_handler(on_signal);
    });
}

fn on_signal() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    let pending = std::mem::take(&mut *PENDING.lock().unwrap_or_else(PoisonError::into_inner));
    for (_, path) in pending {
        // A writer may add a file between two passes; a few passes win the race.
        for _ in 0..5 {
            let removed = if path.is_dir() {
                fs_err::remove_dir_all(&path)
            } else {
                fs_err::remove_file(&path)
            };
            match removed {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {}
                _ => break,
            }
        }
    }
    std::process::exit(INTERRUPTED_EXIT);
}

/// Whether a signal arrived: loops that write many files stop at the next one.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Called when the command is over: if a signal arrived, waits for the handler to finish its
/// clean-up and end the process with status 130, instead of exiting first with whatever error
/// the clean-up caused the command.
pub fn settle() {
    if interrupted() {
        loop {
            std::thread::park();
        }
    }
}

/// A folder (or file) to remove if the process is interrupted while this value lives.
#[derive(Debug)]
pub(crate) struct Cleanup {
    id: u64,
}

impl Cleanup {
    /// Registers `path` (a staging folder, or a temporary file) for removal on interruption.
    pub(crate) fn register(path: &Path) -> Self {
        handle_signals();
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        PENDING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((id, path.to_path_buf()));
        Self { id }
    }
}

impl Cleanup {
    /// Runs `finish` (the renames that put staged work in place), unless a signal has already
    /// arrived, while holding the handler off: it cannot remove the staged work halfway through
    /// the renames, and afterwards finds nothing of it to remove. `None` when interrupted.
    pub(crate) fn commit<T>(self, finish: impl FnOnce() -> T) -> Option<T> {
        let mut pending = PENDING.lock().unwrap_or_else(PoisonError::into_inner);
        if interrupted() {
            return None;
        }
        pending.retain(|(id, _)| *id != self.id);
        Some(finish())
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        PENDING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(id, _)| *id != self.id);
    }
}
