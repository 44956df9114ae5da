//! The `skillpkg` binary: parse the arguments, run the command, turn the result into an exit
//! code. Everything else lives in the library.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use skillpkg::commands::{self, Cli, ErrorKind, Refusal, UserError};
use skillpkg::output;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !cli.command.is_server() {
        skillpkg::interrupt::install();
    }
    let result = commands::run(cli);
    skillpkg::interrupt::settle();
    match result {
        Ok(status) => ExitCode::from(status.code()),
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            report(&error);
            ExitCode::from(ErrorKind::of(&error).exit_status().code())
        }
    }
}

/// Whether the error is a closed pipe on output (`skillpkg … | head`): not worth a word.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn report(error: &anyhow::Error) {
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
    let mut err = anstream::stderr().lock();
    let _ = output::print_error(&mut err, &format!("{error:#}"), &hints);
    let _ = err.flush();
}
