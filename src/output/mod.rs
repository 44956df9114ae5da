//! Everything skillpkg prints goes through here.
//!
//! The [`Printer`] owns the two streams: people read stderr (diagnostics, progress, summaries)
//! and programs read stdout (JSON, SARIF, annotations, concise lines). Colour is decided once,
//! from `--color`, `NO_COLOR`/`CLICOLOR_FORCE` and whether the stream is a terminal, and escape
//! codes are stripped on the way out when colour is off. Each output format is one reporter
//! module; they all read the same [`Report`].

mod concise;
mod github;
mod human;
mod json;
mod sarif;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::agent::Target;
use crate::check::Checked;
use crate::check::rule::Severity;

/// How findings are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style diagnostics with source snippets, on stderr.
    #[default]
    Human,
    /// One line per finding on stdout: path:line:col: CODE severity: message.
    Concise,
    /// A JSON document on stdout (schema version 1).
    Json,
    /// GitHub Actions workflow annotations on stdout.
    Github,
    /// SARIF 2.1.0 on stdout, for GitHub code scanning.
    Sarif,
}

/// When to use colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Colour even into a pipe or file.
    Always,
    /// No colour.
    Never,
}

/// Output is written in chunks of this size: one system call per chunk, not per fragment.
const BUFFER: usize = 64 * 1024;

/// How much people's output says: `--quiet` keeps only what went wrong and what was found;
/// `--verbose` adds what the command looked at and how long it took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    Quiet,
    #[default]
    Normal,
    Verbose,
}

/// The program's two output streams.
#[derive(Clone, Copy, Debug)]
pub struct Printer {
    verbosity: Verbosity,
}

impl Printer {
    /// Sets the colour policy for the whole process and returns the printer.
    pub fn new(color: ColorChoice) -> Self {
        Self::with_verbosity(color, Verbosity::Normal)
    }

    /// [`Printer::new`], saying as much as `verbosity` asks.
    pub fn with_verbosity(color: ColorChoice, verbosity: Verbosity) -> Self {
        let choice = match color {
            ColorChoice::Auto => anstream::ColorChoice::Auto,
            ColorChoice::Always => anstream::ColorChoice::Always,
            ColorChoice::Never => anstream::ColorChoice::Never,
        };
        choice.write_global();
        Self { verbosity }
    }

    pub fn verbosity(self) -> Verbosity {
        self.verbosity
    }

    /// Progress, summaries and notes for people: stderr, or nowhere with `--quiet`.
    pub fn status(self) -> Box<dyn Write> {
        if self.verbosity == Verbosity::Quiet {
            Box::new(io::sink())
        } else {
            Box::new(self.stderr())
        }
    }

    /// Details only `--verbose` asks for: stderr, or nowhere.
    pub fn verbose(self) -> Box<dyn Write> {
        if self.verbosity == Verbosity::Verbose {
            Box::new(self.stderr())
        } else {
            Box::new(io::sink())
        }
    }

    /// Machine-readable output and primary results, buffered; flush it when done.
    pub fn stdout(self) -> impl Write {
        let choice = anstream::AutoStream::choice(&io::stdout());
        let raw: Box<dyn Write> =
            Box::new(io::BufWriter::with_capacity(BUFFER, io::stdout().lock()));
        anstream::AutoStream::new(raw, choice)
    }

    /// Human-readable output, buffered; flush it when done.
    pub fn stderr(self) -> impl Write {
        let choice = anstream::AutoStream::choice(&io::stderr());
        let raw: Box<dyn Write> =
            Box::new(io::BufWriter::with_capacity(BUFFER, io::stderr().lock()));
        anstream::AutoStream::new(raw, choice)
    }
}

/// Counts over a set of checked skills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub skills: usize,
    pub valid: usize,
    pub invalid: usize,
    pub errors: usize,
    pub warnings: usize,
}

impl Summary {
    pub fn of(checked: &[Checked]) -> Self {
        let mut summary = Self {
            skills: checked.len(),
            ..Self::default()
        };
        for item in checked {
            let errors = item.count(Severity::Error);
            summary.errors += errors;
            summary.warnings += item.count(Severity::Warning);
            if errors == 0 {
                summary.valid += 1;
            } else {
                summary.invalid += 1;
            }
        }
        summary
    }
}

/// What every reporter prints from.
#[derive(Debug)]
pub struct Report<'a> {
    pub checked: &'a [Checked],
    /// Where repository-relative paths start (SARIF, GitHub annotations): the enclosing git
    /// work tree, or the current directory.
    pub root: PathBuf,
    /// The rules the command could report: `validate`'s, or all of them for `lint`.
    pub kind: crate::check::rule::Kind,
}

impl Report<'_> {
    pub fn summary(&self) -> Summary {
        Summary::of(self.checked)
    }

    /// Every target any skill was checked against, in `Target::ALL` order.
    pub fn targets(&self) -> Vec<Target> {
        let mut targets: Vec<Target> = self
            .checked
            .iter()
            .flat_map(|item| item.targets.iter().copied())
            .collect();
        targets.sort();
        targets.dedup();
        targets
    }

    /// `path` relative to [`Report::root`], with `/` separators; the path as given when it is
    /// outside the root.
    pub(crate) fn repo_relative(&self, path: &Path) -> String {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let relative = absolute.strip_prefix(&self.root).unwrap_or(path);
        slash_path(relative)
    }
}

/// `one` or `many`, by `count`: "1 file", "2 files".
pub(crate) fn plural<'a>(count: usize, one: &'a str, many: &'a str) -> &'a str {
    if count == 1 { one } else { many }
}

/// A path with `/` separators, as URIs and annotations want.
pub(crate) fn slash_path(path: &Path) -> String {
    path.to_string_lossy()
        .replace(std::path::MAIN_SEPARATOR, "/")
}

/// The nearest enclosing git work tree, or `cwd` itself.
pub(crate) fn repo_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// `error: message`, then a `hint:` line per hint, styled the same everywhere.
pub fn print_error(out: &mut dyn Write, message: &str, hints: &[&str]) -> io::Result<()> {
    let red = anstyle::AnsiColor::Red.on_default().bold();
    let cyan = anstyle::AnsiColor::Cyan.on_default().bold();
    writeln!(out, "{red}error{red:#}: {message}")?;
    for hint in hints {
        writeln!(out, "  {cyan}hint{cyan:#}: {hint}")?;
    }
    Ok(())
}

/// Prints `report` in `format`. Output is buffered and flushed before returning, so a closed
/// pipe shows up here as an error rather than being lost in a destructor.
pub fn print(format: Format, report: &Report<'_>, printer: Printer) -> io::Result<()> {
    let mut stdout = printer.stdout();
    let mut stderr = printer.stderr();
    let mut status = printer.status();
    write_to(format, report, &mut stdout, &mut stderr, &mut status)?;
    stdout.flush()?;
    stderr.flush()?;
    status.flush()
}

/// Writes `report` in `format` to the given streams: machine formats to `stdout`, people's
/// text to `stderr`.
pub fn write(
    format: Format,
    report: &Report<'_>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> io::Result<()> {
    let mut summary = Vec::new();
    write_to(format, report, stdout, stderr, &mut summary)?;
    stderr.write_all(&summary)
}

/// [`write`], with the closing summary line to `summary` (nowhere with `--quiet`).
fn write_to(
    format: Format,
    report: &Report<'_>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    summary: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Human => {
            human::print(report, stderr)?;
            stderr.flush()?;
            human::print_summary(report, summary)
        }
        Format::Concise => {
            concise::print(report, stdout)?;
            stdout.flush()?;
            human::print_summary(report, summary)
        }
        Format::Json => json::print(report, stdout),
        Format::Github => {
            github::print(report, stdout)?;
            stdout.flush()?;
            human::print_summary(report, summary)
        }
        Format::Sarif => sarif::print(report, stdout),
    }
}
