//! `skillpkg rule`: the rule catalogue, or one rule's documentation.

use std::fmt::Write as _;
use std::io::Write;

use super::{ExitStatus, UserError};
use crate::check::rule::{self, Applies, Fixable, Kind, Rule};
use crate::output::Printer;

/// Explain a rule, or list them all.
///
/// Without an argument, lists every rule: code, name, default level, which command runs it
/// (validate rules also run in lint), and whether it has a fix. With a code (SK303) or a name
/// (broken-reference), prints what the rule does, why it matters and an example.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg rule                      # every rule, with its summary
  skillpkg rule SK303                # what broken-reference checks, why, an example
  skillpkg rule broken-reference
  skillpkg rule --format json")]
pub struct RuleArgs {
    /// A rule's code or kebab name
    #[arg(value_name = "RULE")]
    pub rule: Option<String>,

    /// Output format: text, json (one object per rule, with its documentation), or markdown
    /// (the whole catalogue, as in docs/rules.md)
    #[arg(long, value_enum, default_value_t, value_name = "FORMAT")]
    pub format: RuleFormat,

    /// The same as --format json (kept for scripts written before --format)
    #[arg(long, hide = true)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum RuleFormat {
    #[default]
    Text,
    Json,
    /// The whole catalogue as Markdown, one heading per rule (docs/rules.md)
    Markdown,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn run(args: RuleArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let json_out = args.json || args.format == RuleFormat::Json;
    let mut out = printer.stdout();
    match &args.rule {
        None if args.format == RuleFormat::Markdown => out.write_all(markdown().as_bytes())?,
        None if json_out => {
            let all: Vec<serde_json::Value> = rule::ALL.iter().map(|rule| json(rule)).collect();
            serde_json::to_writer_pretty(&mut out, &all)?;
            writeln!(out)?;
        }
        None => {
            for rule in rule::ALL {
                writeln!(
                    out,
                    "{}  {:<28} {:<8} {:<10} {:<10} {}",
                    rule.code,
                    rule.name,
                    rule.default.as_str(),
                    kind(rule),
                    match rule.fix {
                        Fixable::No => "",
                        Fixable::Safe => "fix",
                        Fixable::Unsafe => "unsafe fix",
                    },
                    rule.summary
                )?;
            }
        }
        Some(name) => {
            let Some(rule) = rule::find(name) else {
                let close = rule::ALL
                    .iter()
                    .map(|rule| (strsim::jaro_winkler(rule.name, name), rule))
                    .filter(|(score, _)| *score > 0.8)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, rule)| format!("did you mean `{}` ({})?", rule.name, rule.code));
                return Err(UserError {
                    message: format!("no rule is called `{name}`"),
                    hints: close
                        .into_iter()
                        .chain(std::iter::once(
                            "`skillpkg rule` lists every rule".to_owned(),
                        ))
                        .collect(),
                }
                .into());
            };
            if json_out {
                serde_json::to_writer_pretty(&mut out, &json(rule))?;
                writeln!(out)?;
            } else {
                writeln!(out, "{} ({}): {}\n", rule.code, rule.name, rule.summary)?;
                writeln!(out, "{}\n", facts(rule))?;
                writeln!(out, "{}", rule.doc)?;
            }
        }
    }
    out.flush()?;
    Ok(ExitStatus::Success)
}

/// A rule's level, commands, targets and fix, in a sentence each.
fn facts(rule: &Rule) -> String {
    format!(
        "Default level: {}. Run by: {}. Targets: {}. Fix: {}.",
        rule.default.as_str(),
        match rule.kind {
            Kind::Validate => "validate and lint",
            Kind::Lint => "lint",
        },
        match rule.applies {
            Applies::All => "all",
            Applies::ClaudeCode => "claude-code, claude-code@2.1.88",
        },
        match rule.fix {
            Fixable::No => "none",
            Fixable::Safe => "safe (`skillpkg lint --fix`)",
            Fixable::Unsafe => "unsafe (`skillpkg lint --fix --unsafe-fixes`)",
        }
    )
}

/// `docs/rules.md`: every rule under a heading whose anchor is `sk303-broken-reference`, which
/// the language server's diagnostics link to.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Rules\n\nEvery rule `skillpkg validate` and `skillpkg lint` check, by code. This file \
         is generated by `skillpkg rule --format markdown` (a test keeps it in step with the \
         code); `skillpkg rule CODE` prints one rule. Choose rules with `--select`/`--ignore` or \
         `[lint]` in skillpkg.toml ([configuration](config.md)).\n",
    );
    for rule in rule::ALL {
        let _ = write!(
            out,
            "\n### {}: {}\n\n{}.\n\n{}\n\n{}\n",
            rule.code,
            rule.name,
            upper_first(rule.summary),
            facts(rule),
            rule.doc
        );
    }
    out
}

/// `text` with its first letter in upper case.
pub(crate) fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn kind(rule: &Rule) -> &'static str {
    match (rule.kind, rule.applies) {
        (Kind::Validate, _) => "validate",
        (Kind::Lint, Applies::All) => "lint",
        (Kind::Lint, Applies::ClaudeCode) => "lint (cc)",
    }
}

fn json(rule: &Rule) -> serde_json::Value {
    serde_json::json!({
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "default": rule.default,
        "kind": rule.kind,
        "applies": rule.applies,
        "fix": rule.fix,
        "doc": rule.doc,
    })
}
