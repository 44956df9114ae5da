//! The command line: one module per subcommand, each with its clap arguments next to its `run`.

pub mod common;
pub mod completions;
pub mod init;
pub mod lint;
pub mod lsp;
pub mod package;
pub mod preview;
mod preview_agent;
pub mod registry;
pub mod rule;
pub mod validate;
mod watch;

use clap::{Parser, Subcommand};

use crate::output::{ColorChoice, Printer};

/// Check, preview, package and publish Agent Skills.
///
/// A skill is a folder with a SKILL.md (YAML frontmatter and Markdown instructions) and
/// optional scripts/, references/ and assets/. skillpkg checks skills against the agents that
/// load them (Claude Code, claude.ai, Codex, Gemini CLI and others), exactly as those agents
/// read them.
#[derive(Debug, Parser)]
#[command(
    name = "skillpkg",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// When to use colour: auto (on a terminal, unless NO_COLOR is set), always or never
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t,
        value_name = "WHEN",
        display_order = 1000
    )]
    pub color: ColorChoice,

    /// Print only what went wrong and what was found: no summaries, notes or progress
    #[arg(
        long,
        short = 'q',
        global = true,
        conflicts_with = "verbose",
        display_order = 1001
    )]
    pub quiet: bool,

    /// Also print what was looked at (skills, configuration, targets) and how long it took
    #[arg(long, short = 'v', global = true, display_order = 1002)]
    pub verbose: bool,
}

impl Cli {
    /// The printer for this command line: its colour and verbosity.
    pub fn printer(&self) -> Printer {
        let verbosity = if self.quiet {
            crate::output::Verbosity::Quiet
        } else if self.verbose {
            crate::output::Verbosity::Verbose
        } else {
            crate::output::Verbosity::Normal
        };
        Printer::with_verbosity(self.color, verbosity)
    }
}

/// The commands, in the order of a skill's life: create, check, look, pack, ship, consume.
#[derive(Debug, Subcommand)]
pub enum Command {
    Init(init::InitArgs),
    Validate(validate::ValidateArgs),
    Lint(lint::LintArgs),
    Preview(preview::PreviewArgs),
    Package(package::PackageArgs),
    Unpack(package::UnpackArgs),
    Publish(registry::PublishArgs),
    Login(registry::LoginArgs),
    Logout(registry::LogoutArgs),
    Search(registry::SearchArgs),
    Info(registry::InfoArgs),
    Install(registry::InstallArgs),
    Update(registry::UpdateArgs),
    Remove(registry::RemoveArgs),
    List(registry::ListArgs),
    Yank(registry::YankArgs),
    Owner(registry::OwnerArgs),
    Registry(registry::RegistryArgs),
    Lsp(lsp::LspArgs),
    Rule(rule::RuleArgs),
    Completions(completions::CompletionsArgs),
    Man(completions::ManArgs),
}

impl Command {
    /// Whether the command runs a server, which handles its own signals.
    pub fn is_server(&self) -> bool {
        matches!(self, Self::Registry(_) | Self::Lsp(_))
    }
}

/// How a command ended; the process exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Everything checked is fine (warnings allowed).
    Success,
    /// The checked thing has errors, or the operation was refused.
    Failure,
    /// Usage, I/O or internal error.
    Error,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            Self::Success => 0,
            Self::Failure => 1,
            Self::Error => 2,
        }
    }
}

/// An error the user can fix, with hints on how: a usage or setup error (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct UserError {
    pub message: String,
    pub hints: Vec<String>,
}

/// The thing checked or asked for was refused (exit 1): a skill with errors, an archive unpack
/// would refuse, a registry that says no (not an owner, no such skill, the version exists).
/// Whatever explains it (a report of diagnostics) is printed before it.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    pub message: String,
    pub hints: Vec<String>,
}

impl Refusal {
    pub fn new(message: impl Into<String>, hints: &[&str]) -> Self {
        Self {
            message: message.into(),
            hints: hints.iter().map(|&hint| hint.to_owned()).collect(),
        }
    }
}

/// What kind of failure ended a command, which decides its exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The checked thing is invalid or the operation was refused: exit 1.
    Refused,
    /// The command line, the configuration or the credentials are wrong: exit 2.
    Usage,
    /// Reading, writing or the network failed: exit 2.
    Io,
    /// Anything else, a bug included: exit 2.
    Internal,
}

impl ErrorKind {
    /// The kind of `error`, from the first cause in its chain that says.
    pub fn of(error: &anyhow::Error) -> Self {
        for cause in error.chain() {
            if cause.is::<Refusal>() {
                return Self::Refused;
            }
            if cause.is::<UserError>() {
                return Self::Usage;
            }
            if let Some(client) = cause.downcast_ref::<crate::registry::client::ClientError>() {
                use crate::registry::client::ClientError;
                return match client {
                    _ if client.is_refusal() => Self::Refused,
                    ClientError::Setup(_)
                    | ClientError::BadUrl(_)
                    | ClientError::PlainHttpToken { .. }
                    | ClientError::Status { status: 401, .. } => Self::Usage,
                    _ => Self::Io,
                };
            }
            if cause.is::<std::io::Error>() {
                return Self::Io;
            }
        }
        Self::Internal
    }

    pub fn exit_status(self) -> ExitStatus {
        match self {
            Self::Refused => ExitStatus::Failure,
            Self::Usage | Self::Io | Self::Internal => ExitStatus::Error,
        }
    }
}

/// Whether the error is a closed pipe on output (`skillpkg … | head`): not worth a word.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Prints `error` as `error: …` with the hints a [`UserError`] or [`Refusal`] carries.
pub fn report_error(error: &anyhow::Error, printer: Printer) -> std::io::Result<()> {
    use std::io::Write as _;
    let hints: Vec<&str> = error
        .downcast_ref::<UserError>()
        .map(|user| &user.hints)
        .or_else(|| {
            error
                .downcast_ref::<Refusal>()
                .map(|refusal| &refusal.hints)
        })
        .map(|hints| hints.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let mut err = printer.stderr();
    crate::output::print_error(&mut err, &format!("{error:#}"), &hints)?;
    err.flush()
}

/// Runs the command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    let printer = cli.printer();
    let started = std::time::Instant::now();
    let status = run_command(cli, printer);
    {
        use std::io::Write as _;
        let mut verbose = printer.verbose();
        let _ = writeln!(verbose, "finished in {:.2?}", started.elapsed());
        let _ = verbose.flush();
    }
    status
}

fn run_command(cli: Cli, printer: Printer) -> anyhow::Result<ExitStatus> {
    match cli.command {
        Command::Init(args) => init::run(args, printer),
        Command::Lint(args) => lint::run(args, printer),
        Command::Package(args) => package::run(args, printer),
        Command::Unpack(args) => package::unpack(args, printer),
        Command::Preview(args) => preview::run(args, printer),
        Command::Login(args) => registry::login(args, printer),
        Command::Publish(args) => registry::publish(args, printer),
        Command::Search(args) => registry::search(args, printer),
        Command::Info(args) => registry::info(args, printer),
        Command::Install(args) => registry::install(args, printer),
        Command::Update(args) => registry::update(args, printer),
        Command::Remove(args) => registry::remove(args, printer),
        Command::List(args) => registry::list(args, printer),
        Command::Yank(args) => registry::yank(args, printer),
        Command::Owner(args) => registry::owner(args, printer),
        Command::Registry(args) => registry::registry(args, printer),
        Command::Logout(args) => registry::logout(args, printer),
        Command::Lsp(args) => lsp::run(args),
        Command::Rule(args) => rule::run(args, printer),
        Command::Validate(args) => validate::run(args, printer),
        Command::Completions(args) => completions::completions(args, printer),
        Command::Man(args) => completions::man(args, printer),
    }
}
