//! `--watch` for `validate` and `lint`: check, then check again each time a file under the
//! paths changes, clearing the terminal between runs as `cargo watch -c` does. Every run is a
//! whole run of the command, so what it prints is exactly what a run by hand would print
//! (the rules across skills need every skill, and a run over a thousand skills takes a fraction
//! of a second).

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher as _};

use super::ExitStatus;
use crate::output::Printer;

/// How long the files must be quiet before a run: an editor's save is several events.
const QUIET: Duration = Duration::from_millis(150);

/// The longest wait for quiet: a file written without pause does not hold the next run off.
const MOST: Duration = Duration::from_secs(2);

/// Clears the screen and the scrollback, and puts the cursor at the top left.
const CLEAR: &str = "\x1b[2J\x1b[3J\x1b[H";

/// Runs `check` now and after every change under `paths`, until interrupted (Ctrl-C).
pub(crate) fn watch(
    paths: &[PathBuf],
    printer: Printer,
    mut check: impl FnMut() -> anyhow::Result<ExitStatus>,
) -> anyhow::Result<ExitStatus> {
    let paths = super::common::paths_or_here(paths);
    if super::common::path_problems(&paths, printer)? {
        return Ok(ExitStatus::Error);
    }
    let (sender, events) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let _ = sender.send(event);
    })?;
    for path in &paths {
        watcher
            .watch(path, RecursiveMode::Recursive)
            .map_err(|error| anyhow::anyhow!("cannot watch {}: {error}", path.display()))?;
    }
    let terminal = std::io::stderr().is_terminal() || std::io::stdout().is_terminal();
    let mut first = true;
    loop {
        if terminal && !first {
            let mut out = std::io::stdout();
            let _ = out.write_all(CLEAR.as_bytes());
            let _ = out.flush();
        }
        first = false;
        // Configuration and plugin manifests may have changed since the last run.
        crate::check::forget_folders();
        if let Err(error) = check() {
            let _ = super::report_error(&error, printer);
        }
        {
            let mut err = printer.status();
            writeln!(
                err,
                "Watching {} for changes (Ctrl-C to stop)…",
                super::common::quoted(&paths)
            )?;
            err.flush()?;
        }
        wait_for_change(&events)?;
    }
}

/// Blocks until a change that matters, then until the files are quiet.
fn wait_for_change(events: &mpsc::Receiver<notify::Result<notify::Event>>) -> anyhow::Result<()> {
    loop {
        let event = events
            .recv()
            .map_err(|_| anyhow::anyhow!("the file watcher stopped"))?;
        if matters(&event) {
            break;
        }
    }
    // Let the burst end.
    let started = std::time::Instant::now();
    while started.elapsed() < MOST && events.recv_timeout(QUIET).is_ok() {}
    Ok(())
}

/// A change to the files, outside version-control and build folders; reads are not changes.
fn matters(event: &notify::Result<notify::Event>) -> bool {
    let Ok(event) = event else {
        // An overflowed queue: something changed, check again.
        return true;
    };
    if matches!(event.kind, EventKind::Access(_)) {
        return false;
    }
    event.paths.iter().any(|path| !ignored(path))
}

fn ignored(path: &Path) -> bool {
    path.components().any(|part| {
        matches!(
            part.as_os_str().to_str(),
            Some(".git" | "target" | "node_modules")
        )
    })
}
