//! `skillpkg owner`: list, add or remove a skill's owners.

use std::io::Write;
use std::path::Path;

use super::{FormatFlag, RegistryFlag, client_error, print_json};
use crate::commands::ExitStatus;
use crate::output::Printer;
use crate::registry::client::Client;
use crate::registry::credentials;

/// List, add or remove a skill's owners.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg owner list pdf-forms
  skillpkg owner add pdf-forms bob
  skillpkg owner remove pdf-forms bob
  skillpkg owner list pdf-forms --format json --registry https://skills.example.com")]
pub struct OwnerArgs {
    #[command(subcommand)]
    pub command: OwnerCommand,
    #[command(flatten)]
    pub format: FormatFlag,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[derive(Debug, clap::Subcommand)]
pub enum OwnerCommand {
    /// List the skill's owners
    List {
        /// The skill
        name: String,
    },
    /// Add owners (users the registry already knows)
    Add {
        /// The skill
        name: String,
        /// The users to add
        #[arg(required = true, value_name = "USER")]
        users: Vec<String>,
    },
    /// Remove owners (a skill keeps at least one)
    Remove {
        /// The skill
        name: String,
        /// The users to remove
        #[arg(required = true, value_name = "USER")]
        users: Vec<String>,
    },
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn owner(args: OwnerArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let registry = args.registry.resolve(Path::new("."))?;
    // Owner changes are made as the user, on the registry they named: the token goes along
    // (SKILLPKG_TOKEN included), as for publish and yank.
    let client = Client::new(&registry, credentials::token(&registry)?).map_err(client_error)?;
    let json = args.format.is_json();
    let mut out = printer.stdout();
    match &args.command {
        OwnerCommand::List { name } => {
            let users = client.owners(name).map_err(client_error)?.users;
            if json {
                print_json(
                    printer,
                    &serde_json::json!({ "name": name, "owners": users }),
                )?;
            } else {
                for user in users {
                    writeln!(out, "{user}")?;
                }
            }
        }
        OwnerCommand::Add { name, users } => {
            client
                .change_owners(name, users, true)
                .map_err(client_error)?;
            if json {
                print_json(
                    printer,
                    &serde_json::json!({ "name": name, "added": users }),
                )?;
            }
            let mut err = printer.status();
            writeln!(err, "Added {} to the owners of `{name}`", users.join(", "))?;
            err.flush()?;
        }
        OwnerCommand::Remove { name, users } => {
            client
                .change_owners(name, users, false)
                .map_err(client_error)?;
            if json {
                print_json(
                    printer,
                    &serde_json::json!({ "name": name, "removed": users }),
                )?;
            }
            let mut err = printer.status();
            writeln!(
                err,
                "Removed {} from the owners of `{name}`",
                users.join(", ")
            )?;
            err.flush()?;
        }
    }
    out.flush()?;
    Ok(ExitStatus::Success)
}
