//! `skillpkg publish`: validate, package and upload a skill through the one pack pipeline.

use std::io::{IsTerminal as _, Write};
use std::path::PathBuf;

use super::{RegistryFlag, client_error, required_token};
use crate::commands::package;
use crate::commands::{ExitStatus, Refusal, UserError};
use crate::output::{Printer, plural};
use crate::pack::build;
use crate::registry::client::{Client, ClientError};

/// Validate, package and upload a skill.
///
/// The version comes from --version, else `metadata.version` or `version` in SKILL.md, and must
/// be semver. Publishing a version that exists with the same contents is reported and exits 0;
/// with other contents it exits 1: versions are immutable.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:
  skillpkg publish skills/pdf-forms                  # the version SKILL.md gives
  skillpkg publish skills/pdf-forms --version 1.2.0
  skillpkg publish . --dry-run                       # everything but the upload",
    disable_version_flag = true
)]
pub struct PublishArgs {
    /// The skill folder [default: .]
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// The version [default: metadata.version, else version, in SKILL.md]
    #[arg(long = "version", id = "skill_version", value_name = "SEMVER")]
    pub version: Option<String>,
    /// Do everything except the upload
    #[arg(long)]
    pub dry_run: bool,
    /// Publish even when `skillpkg lint` reports errors or placeholder text (TODO:, lorem
    /// ipsum…); the skill must still be valid
    #[arg(long)]
    pub no_lint: bool,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn publish(args: PublishArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir()?;
    let (dir, skill, targets) = package::locate(args.path.as_deref(), &[], &cwd)?;
    let refused = |error| package::refused(error, &cwd, printer, "publish");
    let validated = build::validate(skill, &targets).map_err(refused)?;
    let name = validated.name.clone();
    if !args.no_lint {
        lint_gate(&dir, &targets, &cwd, printer)?;
    }
    let version = args
        .version
        .clone()
        .or_else(|| validated.version.clone())
        .ok_or_else(|| UserError {
            message: "the skill has no version".into(),
            hints: vec!["pass --version 1.0.0, or set `metadata.version` in SKILL.md".into()],
        })?;
    let version = semver::Version::parse(&version).map_err(|_| UserError {
        message: format!("`{version}` is not a semantic version"),
        hints: vec!["use MAJOR.MINOR.PATCH, such as 1.0.0".into()],
    })?;
    if let (Some(given), Some(written)) = (&args.version, &validated.version)
        && given != written
    {
        let mut err = printer.stderr();
        writeln!(
            err,
            "warning: publishing as {given}, but SKILL.md says version {written}; the archive keeps SKILL.md as written"
        )?;
        err.flush()?;
    }
    let selection = build::select(
        &dir,
        None,
        &targets,
        crate::agent::claude_ai::MAX_UPLOAD_BYTES,
    )
    .map_err(refused)?;
    let temp = tempfile::Builder::new()
        .prefix("skillpkg-publish-")
        .tempdir()?;
    let archive_path = temp.path().join(format!("{name}-{version}.skill"));
    let summary = package::write_with_progress(&archive_path, &format!("{name}/"), &selection)
        .map_err(refused)?;
    let files = &selection.files;
    let mut err = printer.status();
    writeln!(
        err,
        "Packed `{name}` {version}: {} {}, {}, sha256 {}",
        files.len(),
        plural(files.len(), "file", "files"),
        crate::fsx::size(summary.bytes),
        summary.sha256
    )?;
    err.flush()?;
    let registry = args.registry.resolve(&dir)?;
    if args.dry_run {
        writeln!(err, "Dry run: would publish {name}@{version} to {registry}")?;
        err.flush()?;
        return Ok(ExitStatus::Success);
    }
    let token = required_token(&registry)?;
    let bytes = fs_err::read(&archive_path)?;
    let client = Client::new(&registry, Some(token)).map_err(client_error)?;
    let bar = upload_bar(&format!("{name}@{version}"), bytes.len() as u64);
    let result = client.publish(
        &name,
        &version.to_string(),
        &bytes,
        &summary.sha256,
        &|sent| {
            if let Some(bar) = &bar {
                bar.set_position(sent);
            }
        },
    );
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    report_publish(&name, &version, result, printer)
}

/// Refuses a skill that `skillpkg lint` finds errors or placeholder text in, after printing
/// those findings: a published skill is installed by people who cannot fix it.
fn lint_gate(
    dir: &std::path::Path,
    targets: &[crate::agent::Target],
    cwd: &std::path::Path,
    printer: Printer,
) -> anyhow::Result<()> {
    use crate::check::rule::Severity;
    let mut checked = crate::commands::lint::lint_one(dir, targets, cwd, printer)?;
    let blocking = |diagnostic: &crate::check::diagnostic::Diagnostic| {
        diagnostic.severity == Severity::Error
            || diagnostic.rule.code == crate::check::rule::PLACEHOLDER_TEXT.code
    };
    let warnings = checked.diagnostics.iter().filter(|d| !blocking(d)).count();
    checked.diagnostics.retain(blocking);
    if checked.diagnostics.is_empty() {
        if warnings > 0 {
            let mut err = printer.status();
            writeln!(
                err,
                "note: `skillpkg lint` reports {warnings} {} (not blocking)",
                plural(warnings, "warning", "warnings")
            )?;
            err.flush()?;
        }
        return Ok(());
    }
    let report = crate::output::Report {
        checked: std::slice::from_ref(&checked),
        root: crate::output::repo_root(cwd),
        kind: crate::check::rule::Kind::Lint,
    };
    crate::output::print(crate::output::Format::Human, &report, printer)?;
    Err(Refusal::new(
        "`skillpkg lint` reports errors or placeholder text; nothing was published",
        &[
            "fix them (`skillpkg lint --fix` fixes some), then publish again",
            "or pass --no-lint to publish it as it is",
        ],
    )
    .into())
}

/// A byte progress bar for the upload, on a terminal outside CI.
fn upload_bar(what: &str, total: u64) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() || std::env::var_os("CI").is_some() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "uploading {msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_owned());
    Some(bar)
}

/// Prints what the registry said about a publish, and picks the exit status.
fn report_publish(
    name: &str,
    version: &semver::Version,
    result: Result<crate::registry::api::Published, ClientError>,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let mut err = printer.status();
    match result {
        Ok(published) => {
            let mut out = printer.stdout();
            writeln!(out, "{}", published.url)?;
            out.flush()?;
            writeln!(err, "Published {name}@{version} ({})", published.digest)?;
            err.flush()?;
            Ok(ExitStatus::Success)
        }
        Err(ClientError::Status {
            status: 409,
            detail,
        }) if detail.contains("already published with this checksum") => {
            writeln!(
                err,
                "{name}@{version} is already published, with the same contents"
            )?;
            err.flush()?;
            Ok(ExitStatus::Success)
        }
        Err(ClientError::Status {
            status: 409,
            detail,
        }) => {
            Err(Refusal::new(detail, &["bump the version in SKILL.md, or pass --version"]).into())
        }
        Err(error) => Err(client_error(error)),
    }
}
