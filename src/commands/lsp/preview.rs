//! The `skillpkg.preview` command: what the model sees for a skill, as `skillpkg preview`
//! prints it: Claude Code's listing of the skill's folder, and the prompt when the skill is
//! invoked. It runs this same binary's `preview`, so the text is byte for byte the command
//! line's, and a slow or huge folder cannot stall the server past a timeout.

use std::fmt::Write as _;
use std::io::{Read as _, Seek as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use lsp_types::{ExecuteCommandParams, Url};

use super::features::Context;
use super::{PREVIEW_COMMAND, is_skill_file};
use crate::skill::folder_name;

/// How long one `preview` may take.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The most of `preview`'s output kept.
const MAX_OUTPUT: u64 = 8 * 1024 * 1024;

/// The command's answer.
#[derive(Debug, serde::Serialize)]
pub(crate) struct Preview {
    /// The skill's folder name.
    pub skill: String,
    /// The listing and the invocation, as Markdown.
    pub text: String,
    /// The editor's text differs from the saved file, which is what was previewed.
    pub unsaved: bool,
}

/// The answer, and the file it was written to for the editor to show.
pub(crate) struct Shown {
    pub result: Preview,
    pub file: Option<Url>,
}

/// What a preview needs, read on the server's thread; [`Job::run`] does the slow part on
/// another, so that diagnostics keep coming while `preview` runs.
pub(crate) struct Job {
    name: String,
    root: std::path::PathBuf,
    cwd: std::path::PathBuf,
    unsaved: bool,
}

pub(crate) fn plan(cx: &Context<'_>, params: &ExecuteCommandParams) -> anyhow::Result<Job> {
    anyhow::ensure!(
        params.command == PREVIEW_COMMAND,
        "skillpkg has no command `{}`",
        params.command
    );
    let uri = params
        .arguments
        .first()
        .and_then(serde_json::Value::as_str)
        .and_then(|uri| Url::parse(uri).ok())
        .with_context(|| format!("`{PREVIEW_COMMAND}` takes the URI of a skill's file"))?;
    let path = uri
        .to_file_path()
        .map_err(|()| anyhow::anyhow!("`{uri}` is not a file"))?;
    let skill_file = if is_skill_file(&path) {
        path
    } else {
        let index = cx
            .workspace
            .skill_of(&path)
            .with_context(|| format!("{} is in no skill", path.display()))?;
        cx.workspace.job(index).0.clone()
    };
    let dir = skill_file.parent().unwrap_or(Path::new("."));
    let name = folder_name(dir);
    // The skills folder, so the listing shows the skill among its siblings; the skill's own
    // folder when that would leave the workspace (a skill at a workspace's root).
    let root = match dir.parent() {
        Some(parent)
            if cx
                .workspace
                .roots()
                .iter()
                .any(|root| parent.starts_with(root)) =>
        {
            parent.to_path_buf()
        }
        _ => dir.to_path_buf(),
    };
    let unsaved = cx.documents.get(&skill_file).is_some_and(|doc| {
        crate::fsx::read_capped(&skill_file, MAX_OUTPUT)
            .ok()
            .as_deref()
            != Some(doc.text.as_bytes())
    });
    Ok(Job {
        name,
        root,
        cwd: cx.workspace.cwd().to_path_buf(),
        unsaved,
    })
}

impl Job {
    /// Runs `preview` twice and writes the text into `folder`.
    pub(crate) fn run(self, folder: &Path) -> anyhow::Result<Shown> {
        let Self {
            name,
            root,
            cwd,
            unsaved,
        } = self;
        let root_arg = root.to_string_lossy().into_owned();
        let listing = preview(&["preview", &root_arg], &cwd)?;
        let invoke = format!("--invoke={name}");
        let invocation = preview(&["preview", &root_arg, &invoke], &cwd)?;
        let mut text = format!("# What the model sees: {name}\n\n");
        if unsaved {
            text.push_str(
                "> The editor has unsaved changes; this is the saved file. Save to preview them.\n\n",
            );
        }
        let _ = write!(
            text,
            "## The skill listing\n\n`skillpkg preview {root_arg}`\n\n{listing}\n\n## The invocation\n\n\
             `skillpkg preview {root_arg} --invoke {name}`\n\n{invocation}\n"
        );
        let file = folder.join(format!("{name} (what the model sees).md"));
        crate::fsx::write_atomically(
            &file,
            text.as_bytes(),
            ".skillpkg-preview-",
            crate::fsx::Permissions::Mode(0o600),
        )?;
        Ok(Shown {
            result: Preview {
                skill: name,
                text,
                unsaved,
            },
            file: Url::from_file_path(&file).ok(),
        })
    }
}

/// Runs this binary with `args`: what the model sees (stdout) in a fenced block, then the
/// report (stderr).
fn preview(args: &[&str], cwd: &Path) -> anyhow::Result<String> {
    let exe = std::env::current_exe().context("cannot find the skillpkg binary")?;
    let mut stdout = tempfile::tempfile()?;
    let mut stderr = tempfile::tempfile()?;
    let mut child = Command::new(&exe)
        .args(args)
        .args(["--color", "never"])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(stdout.try_clone()?)
        .stderr(stderr.try_clone()?)
        .spawn()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            anyhow::bail!(
                "`skillpkg {}` took longer than {} s",
                args.join(" "),
                TIMEOUT.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let read = |file: &mut std::fs::File| -> anyhow::Result<String> {
        file.rewind()?;
        let mut bytes = Vec::new();
        file.take(MAX_OUTPUT).read_to_end(&mut bytes)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    let shown = read(&mut stdout)?;
    let report = read(&mut stderr)?;
    let mut out = String::new();
    if !shown.is_empty() {
        out.push_str(&super::features::fenced(shown.trim_end_matches('\n')));
    }
    if !report.trim().is_empty() {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&super::features::fenced(report.trim_end_matches('\n')));
    }
    if !status.success() && out.is_empty() {
        out.push_str("(preview failed without a message)");
    }
    Ok(out)
}

/// A private folder for preview files, removed when the server stops.
pub(crate) fn folder() -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix("skillpkg-preview-")
        .tempdir()
}
