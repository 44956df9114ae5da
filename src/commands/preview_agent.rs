//! `skillpkg preview --target codex|gemini-cli`: the skills those agents find, as they find
//! them (their own folders under `--home` and in the project), and what they send the model.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::preview::{PreviewArgs, PreviewFormat};
use super::{ExitStatus, UserError};
use crate::agent::{Target, codex, gemini};
use crate::output::Printer;
use crate::render::agents;

/// How a path given to `preview` is read.
enum Given {
    /// A project: the agent runs here and reads its own folders (`.agents/skills`, …).
    Project(PathBuf),
    /// Any other folder: read as one skills folder.
    Folder(PathBuf),
}

/// A path is a project when it holds one of the agent's folders, or when it is the current
/// folder by default and `--home` is given (the agent's view of a run here).
fn classify(target: Target, args: &PreviewArgs, paths: &[PathBuf]) -> Vec<Given> {
    let marks: &[&str] = match target {
        Target::Codex => &[".agents", ".codex"],
        _ => &[".agents", ".gemini"],
    };
    paths
        .iter()
        .map(|path| {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            let agent_folder = marks.iter().any(|mark| path.join(mark).is_dir());
            if agent_folder || (args.paths.is_empty() && args.home.is_some()) {
                Given::Project(path)
            } else {
                Given::Folder(path)
            }
        })
        .collect()
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The listing, or with `--invoke` the activation, for Codex or Gemini CLI.
pub(crate) fn run(
    args: &PreviewArgs,
    paths: &[PathBuf],
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let home = args.home.as_deref().map(absolute);
    let user: Vec<PathBuf> = args.user.iter().map(|dir| absolute(dir)).collect();
    let given = classify(args.target, args, paths);
    let (text, role, report) = if args.target == Target::Codex {
        codex_view(args, &given, home.as_deref(), &user)?
    } else {
        gemini_view(args, &given, home.as_deref(), &user)?
    };
    if args.format == PreviewFormat::Json {
        let document = serde_json::json!({
            "version": 1,
            "target": args.target,
            "messages": [{ "role": role, "content": [{ "type": "text", "text": text, "visible": false }] }],
            "report": report,
        });
        // DEL written raw would be dropped by the terminal-safe stdout: JSON-escape it.
        let json = serde_json::to_string_pretty(&document)?.replace('\u{7f}', "\\u007f");
        let mut out = printer.stdout();
        writeln!(out, "{json}")?;
        out.flush()?;
        return Ok(ExitStatus::Success);
    }
    let listed_nothing = text.is_empty() && report["left_out"].as_array().is_none_or(Vec::is_empty);
    if args.invoke.is_none() && listed_nothing {
        super::preview::nothing_to_preview(paths, printer)?;
        return Ok(ExitStatus::Success);
    }
    let mut out = printer.stdout();
    super::preview::print_text(&mut out, &text)?;
    out.flush()?;
    if args.invoke.is_none() {
        let mut err = printer.status();
        let bold = anstyle::Style::new().bold();
        writeln!(
            err,
            "{bold}{}{bold:#}: {}",
            args.target.display(),
            report["placement"].as_str().unwrap_or_default()
        )?;
        if let Some(budget) = report["budget"]["tokens"].as_u64() {
            writeln!(err, "  budget: {budget} tokens (2% of the context window)")?;
        } else {
            writeln!(err, "  no listing budget")?;
        }
        writeln!(
            err,
            "  {} characters, about {} tokens",
            report["chars"], report["tokens"]
        )?;
        for entry in report["left_out"].as_array().into_iter().flatten() {
            writeln!(
                err,
                "  {}: {}",
                entry[0].as_str().unwrap_or_default(),
                entry[1].as_str().unwrap_or_default()
            )?;
        }
        err.flush()?;
    }
    Ok(ExitStatus::Success)
}

/// The agent's roots for what was given: each project's own folders (the first project's with
/// the home folder's and `--user`'s), and each other folder as one skills folder. With no
/// project, the home folder's and `--user`'s come first (`home_first`) or last.
fn gather<R>(
    given: &[Given],
    home: Option<&Path>,
    user: &[PathBuf],
    project: impl Fn(Option<&Path>, Option<&Path>, &[PathBuf]) -> Vec<R>,
    folder: impl Fn(&Path) -> Option<R>,
    home_first: bool,
) -> Vec<R> {
    let mut roots = Vec::new();
    let mut first = true;
    for item in given {
        match item {
            Given::Project(dir) => {
                let (home, user) = if first { (home, user) } else { (None, &[][..]) };
                roots.extend(project(Some(dir), home, user));
                first = false;
            }
            Given::Folder(dir) => roots.extend(folder(dir)),
        }
    }
    if first {
        let own = project(None, home, user);
        if home_first {
            roots.splice(0..0, own);
        } else {
            roots.extend(own);
        }
    }
    roots
}

/// The text, the message role and the report for `preview --target codex`.
fn codex_view(
    args: &PreviewArgs,
    given: &[Given],
    home: Option<&Path>,
    user: &[PathBuf],
) -> anyhow::Result<(String, &'static str, serde_json::Value)> {
    let roots = gather(
        given,
        home,
        user,
        codex::roots,
        |dir| {
            std::fs::canonicalize(dir).ok().map(|path| codex::Root {
                path,
                scope: codex::Scope::Repo,
            })
        },
        false,
    );
    let catalog = codex::load(roots);
    Ok(if let Some(name) = &args.invoke {
        let skill = codex::mentioned(&catalog, name).map_err(|message| UserError {
            message,
            hints: vec!["Codex injects a skill for `$name` in the prompt, by its `name`".into()],
        })?;
        (
            agents::codex_activation(skill),
            "user",
            serde_json::Value::Null,
        )
    } else {
        let window = args.context_window.unwrap_or(codex::DEFAULT_CONTEXT_WINDOW);
        let limit = codex::budget(window);
        let (text, notes) = agents::codex_listing(&catalog, limit);
        let mut left_out = catalog.dropped.clone();
        left_out.extend(notes);
        let report = serde_json::json!({
            "placement": "a developer-role input item (input[2] for the default model gpt-6.2-sol, input[1] for gpt-5.5); Codex's bundled system skills, listed first when enabled, are not shown",
            "budget": { "tokens": limit, "context_window": window },
            "chars": text.chars().count(),
            "tokens": crate::agent::estimate_tokens(&text),
            "left_out": left_out,
        });
        (text, "developer", report)
    })
}

/// The text, the message role and the report for `preview --target gemini-cli`.
fn gemini_view(
    args: &PreviewArgs,
    given: &[Given],
    home: Option<&Path>,
    user: &[PathBuf],
) -> anyhow::Result<(String, &'static str, serde_json::Value)> {
    let roots = gather(
        given,
        home,
        user,
        gemini::roots,
        |dir| Some(dir.to_path_buf()),
        true,
    );
    let disabled = match home {
        Some(home) => gemini::disabled(home),
        None => Some(Vec::new()),
    };
    let skills = disabled.map_or_else(Vec::new, |off| gemini::load(&roots, &off));
    Ok(if let Some(name) = &args.invoke {
        let skill = gemini::activated(&skills, name).map_err(|message| UserError {
            message: format!("activate_skill({name:?}): {message}"),
            hints: vec!["the model must pass a listed name exactly".into()],
        })?;
        (
            agents::gemini_activation(name, skill),
            "tool",
            serde_json::Value::Null,
        )
    } else {
        let text = agents::gemini_listing(&skills);
        let report = serde_json::json!({
            "placement": "the system instruction; Gemini CLI's builtin skills (skill-creator, antigravity-support), listed first unless disabled, are not shown",
            "budget": null,
            "chars": text.chars().count(),
            "tokens": crate::agent::estimate_tokens(&text),
            "left_out": [],
        });
        (text, "system", report)
    })
}
