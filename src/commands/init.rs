//! `skillpkg init`: scaffold a skill from a template.
//!
//! Everything is decided and checked before anything is written: the name against the same
//! rules as `validate`, the rendered SKILL.md against every target. The files are then written
//! into a temporary folder beside the destination and renamed into place, so an interrupted
//! init leaves either the whole skill or nothing.

use std::io::{self, BufRead, IsTerminal as _, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::common::{self, TargetArgs};
use super::{ExitStatus, Refusal, UserError};
use crate::agent::{Family, Target};
use crate::check::config::ConfigFinder;
use crate::check::lint::PLACEHOLDER_DESCRIPTION;
use crate::check::rules::name::{check_name_text, suggest_name};
use crate::check::{Checked, check_skill};
use crate::fsx::{set_mode, sync_folder};
use crate::output::{self, Format, Printer, Report};
use crate::scaffold::{self, DEFAULT_TEMPLATE, File, Resource, Template, Values};
use crate::skill::Skill;

/// Create a new skill from a template.
///
/// Creates the folder NAME (inside --path, default the current folder) holding a SKILL.md
/// that passes `skillpkg validate` for every target, and the resource folders the template
/// uses, each with a working example file. Nothing is written when the name is invalid or the
/// folder exists and is not empty.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  skillpkg init pdf-forms -d \"Fills in PDF forms. Use when \
asked to fill a form.\"\n  skillpkg init csv-report --template script \
--resources scripts,assets\n  skillpkg init --list"
)]
pub struct InitArgs {
    /// The skill's name, also its folder's: lowercase letters, digits and hyphens
    #[arg(value_name = "NAME", required_unless_present = "list")]
    pub name: Option<String>,

    /// Create the skill folder inside DIR (created if missing) [default: .]
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,

    /// The template to start from (see --list)
    #[arg(long, value_name = "TEMPLATE", default_value = DEFAULT_TEMPLATE,
          value_parser = clap::builder::PossibleValuesParser::new(template_names()))]
    pub template: String,

    /// Resource folders to create, comma-separated: scripts, references, assets
    /// [default: the template's]
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "LIST",
        conflicts_with = "no_resources"
    )]
    pub resources: Option<Vec<Resource>>,

    /// Create no scripts/, references/ or assets/ folder
    #[arg(long)]
    pub no_resources: bool,

    /// What the skill does and when to use it, in one line (asked for on a terminal)
    #[arg(long, short = 'd', value_name = "TEXT")]
    pub description: Option<String>,

    /// The skill's licence, as an SPDX identifier such as MIT or Apache-2.0
    #[arg(long, value_name = "SPDX")]
    pub license: Option<String>,

    #[command(flatten)]
    pub targets: TargetArgs,

    /// List the templates and exit
    #[arg(long, exclusive = true)]
    pub list: bool,
}

fn template_names() -> Vec<&'static str> {
    scaffold::templates().iter().map(|t| t.name).collect()
}

pub fn run(args: InitArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    if args.list {
        let mut out = printer.stdout();
        list_templates(&mut out)?;
        out.flush()?;
        return Ok(ExitStatus::Success);
    }
    let InitArgs {
        name,
        path,
        template,
        resources,
        no_resources,
        description,
        license,
        targets,
        list: _,
    } = args;
    let name = name.unwrap_or_default();
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let shown = path
        .as_ref()
        .map_or_else(|| PathBuf::from(&name), |dir| dir.join(&name));
    let parent = path.unwrap_or_else(|| PathBuf::from("."));
    if parent.exists() && !parent.is_dir() {
        return Err(UserError {
            message: format!("`{}` is not a folder", parent.display()),
            hints: vec!["--path names the folder to create the skill in".into()],
        }
        .into());
    }
    let targets = resolve_targets(&targets.given(), &cwd, &parent)?;

    // Refusals first, before asking anything.
    let destination = parent.join(&name);
    let refusal = match check_name(&name, &targets) {
        Some(refusal) => Some(refusal),
        None => occupied(&destination, &shown)?,
    };
    if let Some(refusal) = refusal {
        return Err(refusal.into());
    }

    let license = license
        .as_deref()
        .map(|text| one_line(text, "--license"))
        .transpose()?;
    let (description, placeholder) = gather_description(description, &name, printer)?;
    let template = scaffold::find(&template).expect("clap only accepts known templates");
    let mut resources = if no_resources {
        Vec::new()
    } else {
        resources.unwrap_or_else(|| template.resources.clone())
    };
    resources.sort();
    resources.dedup();
    let values = Values {
        name: name.clone(),
        description,
        license,
        year: current_year(),
        resources,
    };
    let files = scaffold::render(template, &values)?;
    passes_validation(&files, &shown, &name, &targets, cwd, printer)?;

    write_skill(&parent, &destination, &name, &files)
        .with_context(|| format!("cannot create `{}`", shown.display()))?;

    if placeholder {
        // A warning, which --quiet keeps: the skill is not finished.
        let mut err = printer.stderr();
        let yellow = anstyle::AnsiColor::Yellow.on_default().bold();
        writeln!(
            err,
            "{yellow}warning{yellow:#}: no --description was given and input is not a terminal, \
             so the description is a placeholder (`lint` reports it, `publish` refuses it)\n"
        )?;
        err.flush()?;
    }
    let mut err = printer.status();
    print_created(&mut err, &shown, template, &files, placeholder)?;
    err.flush()?;
    Ok(ExitStatus::Success)
}

/// The command line's targets, else the nearest skillpkg.toml's above `parent`, else the
/// default.
fn resolve_targets(targets: &[Target], cwd: &Path, parent: &Path) -> anyhow::Result<Vec<Target>> {
    let cli = targets.to_vec();
    if !cli.is_empty() {
        return Ok(cli);
    }
    let config = ConfigFinder::new(cwd.to_path_buf())
        .for_dir(parent)
        .map_err(|error| UserError {
            message: error.to_string(),
            hints: vec!["fix skillpkg.toml, or pass --target to override it".into()],
        })?;
    Ok(common::targets_for(&cli, config.as_deref(), parent))
}

/// The description to use, and whether it is the placeholder: the flag's, else asked for on a
/// terminal, else the placeholder.
fn gather_description(
    given: Option<String>,
    name: &str,
    printer: Printer,
) -> anyhow::Result<(String, bool)> {
    if let Some(text) = given {
        return Ok((one_line(&text, "--description")?, false));
    }
    if !io::stdin().is_terminal() {
        return Ok((PLACEHOLDER_DESCRIPTION.to_owned(), true));
    }
    let mut err = printer.stderr();
    match ask_description(&mut io::stdin().lock(), &mut err, name)? {
        Some(text) => Ok((text, false)),
        None => Err(UserError {
            message: "no description given; nothing was created".into(),
            hints: vec!["pass it with --description \"...\"".into()],
        }
        .into()),
    }
}

/// Checks the generated SKILL.md for `targets` before anything is written, printing any
/// findings; a refusal when it has errors.
fn passes_validation(
    files: &[File],
    shown: &Path,
    name: &str,
    targets: &[Target],
    cwd: PathBuf,
    printer: Printer,
) -> anyhow::Result<()> {
    let skill_md = files
        .iter()
        .find(|file| file.path == "SKILL.md")
        .expect("every template renders a SKILL.md");
    let skill = Skill::from_bytes(
        shown.join("SKILL.md"),
        name.to_owned(),
        skill_md.contents.clone().into_bytes(),
    );
    let checked = [check_skill(skill, targets)];
    if checked[0].diagnostics.is_empty() {
        return Ok(());
    }
    let report = Report {
        checked: &checked,
        root: cwd,
        kind: crate::check::rule::Kind::Validate,
    };
    output::print(Format::Human, &report, printer)?;
    if checked.iter().all(Checked::is_valid) {
        return Ok(());
    }
    Err(Refusal::new(
        "the new skill would not pass `skillpkg validate`; nothing was created",
        &["change the description or license the messages above point at"],
    )
    .into())
}

/// `skillpkg init --list`: one line per template.
fn list_templates(out: &mut dyn Write) -> io::Result<()> {
    let templates = scaffold::templates();
    let width = templates.iter().map(|t| t.name.len()).max().unwrap_or(0) + 2;
    for template in templates {
        let folders: Vec<&str> = template.resources.iter().map(|r| r.folder()).collect();
        let creates = if folders.is_empty() {
            "SKILL.md".to_owned()
        } else {
            format!("SKILL.md, {}/", folders.join("/, "))
        };
        let default = if template.name == DEFAULT_TEMPLATE {
            " (default)"
        } else {
            ""
        };
        writeln!(
            out,
            "{:width$}{}{default}\n{:width$}creates {creates}",
            template.name, template.summary, ""
        )?;
    }
    Ok(())
}

/// Why `name` cannot be a skill's name, for the spec and for each target; `None` when it can.
fn check_name(name: &str, targets: &[Target]) -> Option<Refusal> {
    if name.trim().is_empty() {
        return Some(Refusal {
            message: "the skill name is empty".into(),
            hints: vec!["try `skillpkg init my-skill`".into()],
        });
    }
    // Claude Code accepts any folder name, but a new skill should load everywhere: the spec's
    // rules always apply, and claude.ai's stricter ones when it is a target.
    let mut rule_sets = vec![Target::AgentSkills];
    if targets.iter().any(|t| t.family() == Family::ClaudeAi) {
        rule_sets.push(Target::ClaudeAi);
    }
    let mut reasons: Vec<String> = Vec::new();
    let mut suggestion = None;
    for target in rule_sets {
        for diagnostic in check_name_text(name, None, target, 0..0) {
            if !reasons.contains(&diagnostic.message) {
                reasons.push(diagnostic.message.clone());
            }
            if target == Target::ClaudeAi || suggestion.is_none() {
                suggestion = Some(scaffold_suggestion(name, target));
            }
        }
    }
    if reasons.is_empty() {
        return None;
    }
    let suggestion = suggestion.unwrap_or_else(|| "my-skill".into());
    let mut hints = vec![format!("try `skillpkg init {suggestion}`")];
    if let Some((dir, last)) = name.rsplit_once(['/', '\\'])
        && !last.is_empty()
        && check_name_text(last, None, Target::AgentSkills, 0..0).is_empty()
    {
        hints.insert(
            0,
            format!("to create `{last}` inside `{dir}`, run `skillpkg init {last} --path {dir}`"),
        );
    }
    let listed: Vec<String> = reasons
        .iter()
        .map(|reason| format!("\n  - {reason}"))
        .collect();
    Some(Refusal {
        message: format!("`{name}` is not a valid skill name:{}", listed.concat()),
        hints,
    })
}

fn scaffold_suggestion(name: &str, target: Target) -> String {
    let suggestion = suggest_name(name, target.family() == Family::ClaudeAi);
    if target.family() == Family::ClaudeAi {
        // Drop the words claude.ai reserves, and the hyphens they leave behind.
        let kept: Vec<&str> = suggestion
            .split('-')
            .filter(|word| !word.contains("claude") && !word.contains("anthropic"))
            .collect();
        if kept.is_empty() {
            "my-skill".into()
        } else {
            kept.join("-")
        }
    } else {
        suggestion
    }
}

/// Refuses a destination that exists and is not an empty folder.
fn occupied(destination: &Path, shown: &Path) -> anyhow::Result<Option<Refusal>> {
    let metadata = match fs_err::symlink_metadata(destination) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error.into()),
    };
    let message = if metadata.is_dir() {
        if fs_err::read_dir(destination)?.next().is_none() {
            return Ok(None);
        }
        format!(
            "`{}` already exists and is not empty; nothing was changed",
            shown.display()
        )
    } else {
        format!(
            "`{}` already exists and is not a folder; nothing was changed",
            shown.display()
        )
    };
    Ok(Some(Refusal {
        message,
        hints: vec![
            "choose another name, or pass --path to create the skill somewhere else".into(),
        ],
    }))
}

/// A flag's value as one trimmed, non-empty line.
fn one_line(text: &str, flag: &str) -> anyhow::Result<String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(UserError {
            message: format!("{flag} is empty"),
            hints: vec![],
        }
        .into());
    }
    if trimmed.chars().any(char::is_control) {
        return Err(UserError {
            message: format!("{flag} must be one line of text, without line breaks or tabs"),
            hints: vec![],
        }
        .into());
    }
    Ok(trimmed.to_owned())
}

/// Asks for a description until a non-empty line is given; `None` at end of input.
pub(crate) fn ask_description(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    name: &str,
) -> io::Result<Option<String>> {
    writeln!(
        output,
        "Describe `{name}` in one line: what it does, then when to use it.\n\
         Agents read this to decide when to load the skill. For example:\n  \
         Fills in PDF forms. Use when the user asks to complete or check a PDF form."
    )?;
    loop {
        write!(output, "description: ")?;
        output.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(output)?;
            return Ok(None);
        }
        let trimmed = line.trim();
        if trimmed.chars().any(char::is_control) {
            writeln!(output, "Please use one line of text, without tabs.")?;
        } else if trimmed.is_empty() {
            writeln!(
                output,
                "A description is required: it is how agents find the skill."
            )?;
        } else {
            return Ok(Some(trimmed.to_owned()));
        }
    }
}

/// The year for `{{year}}`: from `SOURCE_DATE_EPOCH` when set (reproducible output), else now.
fn current_year() -> i32 {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|value| value.trim().parse::<i64>().ok())
        .unwrap_or_else(crate::dates::now);
    year_of(seconds)
}

/// The proleptic Gregorian year of a Unix time.
fn year_of(seconds: i64) -> i32 {
    let (year, _, _) = crate::dates::civil_from_days(seconds.div_euclid(86_400));
    i32::try_from(year).unwrap_or(i32::MAX)
}

/// Writes `files` into a fresh folder beside `destination`, then renames it into place.
fn write_skill(parent: &Path, destination: &Path, name: &str, files: &[File]) -> io::Result<()> {
    fs_err::create_dir_all(parent)?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".init")
        .tempdir_in(parent)
        .map_err(|error| io::Error::new(error.kind(), format!("{}: {error}", parent.display())))?;
    for file in files {
        let path = staging.path().join(&file.path);
        if let Some(folder) = path.parent() {
            fs_err::create_dir_all(folder)?;
            set_mode(folder, 0o755)?;
        }
        let mut handle = fs_err::File::create(&path)?;
        handle.write_all(file.contents.as_bytes())?;
        handle.sync_all()?;
        set_mode(&path, if file.executable { 0o755 } else { 0o644 })?;
    }
    set_mode(staging.path(), 0o755)?;
    // An empty folder at the destination is replaced; `rename` refuses anything else.
    if destination.is_dir() {
        fs_err::remove_dir(destination)?;
    }
    fs_err::rename(staging.path(), destination)?;
    // The staging folder is now the skill: it must not be cleaned up.
    let _ = staging.keep();
    sync_folder(parent);
    Ok(())
}

/// What was created, as a tree, and what to do next.
fn print_created(
    out: &mut dyn Write,
    shown: &Path,
    template: &Template,
    files: &[File],
    placeholder: bool,
) -> io::Result<()> {
    let green = anstyle::AnsiColor::Green.on_default().bold();
    let bold = anstyle::Style::new().bold();
    let dim = anstyle::Style::new().dimmed();
    let display = output::slash_path(shown);
    writeln!(
        out,
        "{green}Created{green:#} skill `{display}` from the `{}` template\n",
        template.name
    )?;
    writeln!(out, "  {bold}{display}/{bold:#}")?;
    for line in tree(files) {
        writeln!(out, "  {line}")?;
    }
    let quoted = shell_quote(&display);
    writeln!(out, "\n{bold}Next steps:{bold:#}")?;
    if placeholder {
        writeln!(
            out,
            "  1. Edit {display}/SKILL.md: replace the placeholder description (what the skill does\n     \
             and when to use it), then adapt the steps to your task."
        )?;
    } else {
        writeln!(
            out,
            "  1. Edit {display}/SKILL.md: adapt the steps and examples to your task."
        )?;
    }
    if files.len() > 1 {
        writeln!(
            out,
            "     Adapt or delete the example files, and keep SKILL.md's Resources section in step."
        )?;
    }
    let steps = [
        (
            "lint",
            "check that it loads in your agents and will work well",
        ),
        ("preview", "see what the model sees"),
        ("package", "build a .skill archive to share"),
    ]
    .map(|(command, why)| (format!("skillpkg {command} {quoted}"), why));
    let width = steps
        .iter()
        .map(|(command, _)| command.len())
        .max()
        .unwrap_or(0);
    for (number, (command, why)) in (2..).zip(steps) {
        writeln!(out, "  {number}. {command:<width$}  {dim}{why}{dim:#}")?;
    }
    Ok(())
}

/// The files as tree lines (`├── scripts/`, `│   └── run.py  (executable)`).
fn tree(files: &[File]) -> Vec<String> {
    // Folders and files as one sorted list of entries with their depth.
    let mut entries: Vec<(Vec<&str>, bool)> = Vec::new();
    for file in files {
        let parts: Vec<&str> = file.path.split('/').collect();
        for depth in 1..parts.len() {
            let folder = parts[..depth].to_vec();
            if !entries
                .iter()
                .any(|(path, is_dir)| *is_dir && *path == folder)
            {
                entries.push((folder, true));
            }
        }
        entries.push((parts, false));
    }
    entries.sort();
    let mut lines = Vec::new();
    for (index, (path, is_dir)) in entries.iter().enumerate() {
        let depth = path.len() - 1;
        let parent = &path[..depth];
        let is_last = !entries[index + 1..]
            .iter()
            .any(|(other, _)| other.len() == path.len() && other[..depth] == *parent);
        let mut prefix = String::new();
        for level in 0..depth {
            let ancestor = &path[..=level];
            let ancestor_last = !entries.iter().any(|(other, _)| {
                other.len() == level + 1
                    && other[..level] == ancestor[..level]
                    && other.as_slice() > ancestor
            });
            prefix.push_str(if ancestor_last { "    " } else { "│   " });
        }
        let branch = if is_last { "└── " } else { "├── " };
        let name = path[depth];
        let line = if *is_dir {
            format!("{prefix}{branch}{name}/")
        } else {
            let executable = files
                .iter()
                .any(|file| file.executable && file.path == path.join("/"));
            if executable {
                format!("{prefix}{branch}{name}  (executable)")
            } else {
                format!("{prefix}{branch}{name}")
            }
        };
        lines.push(line);
    }
    lines
}

/// `text` as one shell word.
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '+' | ','))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_again_until_a_description_is_given() {
        let mut input = io::Cursor::new("\n   \nhas\ta tab\nFormats notes. Use when asked.\n");
        let mut output = Vec::new();
        let answer = ask_description(&mut input, &mut output, "notes").unwrap();
        assert_eq!(answer.as_deref(), Some("Formats notes. Use when asked."));
        let shown = String::from_utf8(output).unwrap();
        assert_eq!(shown.matches("description: ").count(), 4);
        assert_eq!(shown.matches("A description is required").count(), 2);
        assert_eq!(shown.matches("without tabs").count(), 1);
    }

    #[test]
    fn end_of_input_while_asking_gives_none() {
        let mut input = io::Cursor::new("\n");
        let mut output = Vec::new();
        assert_eq!(ask_description(&mut input, &mut output, "x").unwrap(), None);
    }

    #[test]
    fn years_of_unix_times() {
        assert_eq!(year_of(0), 1970);
        assert_eq!(year_of(1_764_460_800), 2025); // 2025-11-30
        assert_eq!(year_of(1_767_225_599), 2025); // 2025-12-31T23:59:59
        assert_eq!(year_of(1_767_225_600), 2026);
        assert_eq!(year_of(951_782_400), 2000); // 2000-02-29
        assert_eq!(year_of(-1), 1969);
    }

    fn file(path: &str, executable: bool) -> File {
        File {
            path: path.into(),
            contents: String::new(),
            executable,
        }
    }

    #[test]
    fn trees_draw_nested_folders() {
        let files = [
            file("SKILL.md", false),
            file("assets/a.md", false),
            file("references/deep/one.md", false),
            file("references/two.md", false),
            file("scripts/run.py", true),
        ];
        assert_eq!(
            tree(&files),
            [
                "├── SKILL.md",
                "├── assets/",
                "│   └── a.md",
                "├── references/",
                "│   ├── deep/",
                "│   │   └── one.md",
                "│   └── two.md",
                "└── scripts/",
                "    └── run.py  (executable)",
            ]
        );
    }

    #[test]
    fn a_failed_rename_leaves_no_staging_folder_and_touches_nothing() {
        let parent = tempfile::tempdir().unwrap();
        let destination = parent.path().join("taken");
        fs_err::create_dir(&destination).unwrap();
        fs_err::write(destination.join("keep.md"), "mine").unwrap();
        // The folder filled up after the up-front check: the final step must refuse.
        let files = [file("SKILL.md", false), file("scripts/run.py", true)];
        let error = write_skill(parent.path(), &destination, "taken", &files).unwrap_err();
        assert!(error.to_string().contains("taken"), "{error}");
        let left: Vec<_> = fs_err::read_dir(parent.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(left, ["taken"]);
        let kept: Vec<_> = fs_err::read_dir(&destination)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(kept, ["keep.md"]);
        assert_eq!(
            fs_err::read_to_string(destination.join("keep.md")).unwrap(),
            "mine"
        );
    }

    #[test]
    fn shell_words() {
        assert_eq!(shell_quote("skills/pdf-forms"), "skills/pdf-forms");
        assert_eq!(shell_quote("my skills/x"), "'my skills/x'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
