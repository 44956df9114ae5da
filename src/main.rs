//! The `skillpkg` binary: parse the arguments, run the command, turn the result into an exit
//! code. Everything else lives in the library.

use std::process::ExitCode;

use clap::Parser;
use skillpkg::commands::{self, Cli, ErrorKind};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !cli.command.is_server() {
        skillpkg::interrupt::install();
    }
    let printer = cli.printer();
    let result = commands::run(cli);
    skillpkg::interrupt::settle();
    match result {
        Ok(status) => ExitCode::from(status.code()),
        Err(error) if commands::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = commands::report_error(&error, printer);
            ExitCode::from(ErrorKind::of(&error).exit_status().code())
        }
    }
}
