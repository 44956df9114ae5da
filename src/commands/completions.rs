//! `skillpkg completions` and `skillpkg man`: shell completions and manual pages, generated
//! from the command-line definitions themselves, so they never drift from `--help`.

use std::io::Write as _;
use std::path::PathBuf;

use clap::CommandFactory as _;

use super::{Cli, ExitStatus};
use crate::output::Printer;

/// Print a shell completion script.
///
/// Install it where your shell looks for completions; see the examples below.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg completions bash > ~/.local/share/bash-completion/completions/skillpkg
  skillpkg completions zsh > \"${fpath[1]}/_skillpkg\"
  skillpkg completions fish > ~/.config/fish/completions/skillpkg.fish
  skillpkg completions powershell >> $PROFILE")]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Print the manual page, or write one per command into a folder.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg man | man -l -
  skillpkg man --out-dir ~/.local/share/man/man1")]
pub struct ManArgs {
    /// Write skillpkg.1 and a page per command (skillpkg-validate.1, …) into this folder
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn completions(args: CompletionsArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let mut command = Cli::command();
    let mut out = printer.stdout();
    clap_complete::generate(args.shell, &mut command, "skillpkg", &mut out);
    out.flush()?;
    Ok(ExitStatus::Success)
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn man(args: ManArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let command = Cli::command();
    let Some(dir) = &args.out_dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(command).render(&mut page)?;
        let mut out = printer.stdout();
        out.write_all(&page)?;
        out.flush()?;
        return Ok(ExitStatus::Success);
    };
    fs_err::create_dir_all(dir)?;
    let mut written = Vec::new();
    write_pages(&command, "skillpkg", dir, &mut written)?;
    let mut out = printer.stdout();
    for path in &written {
        writeln!(out, "{}", path.display())?;
    }
    out.flush()?;
    Ok(ExitStatus::Success)
}

/// Writes the page of `command` (named `name`) and of each of its subcommands, each through a
/// temporary file renamed into place.
fn write_pages(
    command: &clap::Command,
    name: &str,
    dir: &std::path::Path,
    written: &mut Vec<PathBuf>,
) -> anyhow::Result<()> {
    let command = command.clone().name(name.to_owned());
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut page)?;
    let path = dir.join(format!("{name}.1"));
    // Readable by everyone, like any manual page (installed with sudo, read by users).
    crate::fsx::write_atomically(
        &path,
        &page,
        ".skillpkg-man-",
        crate::fsx::Permissions::Mode(0o644),
    )?;
    written.push(path);
    for sub in command.get_subcommands() {
        if sub.get_name() == "help" || sub.is_hide_set() {
            continue;
        }
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, written)?;
    }
    Ok(())
}
