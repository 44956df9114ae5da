//! What Claude Code sends when a skill is invoked: arguments and variables substituted, inline
//! shell judged (and, when asked, run through the command layer's runner), the messages built.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::agent::claude_code::Version;
use crate::agent::claude_code::arguments::substitute_arguments;
use crate::agent::claude_code::shell::{self, Inline, Permissions, Verdict};
use crate::render::view::SkillView;

/// How a skill is invoked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Invoker {
    /// The model calls the Skill tool.
    Model,
    /// The user types `/name args`.
    User,
}

/// The values substitution needs.
#[derive(Clone, Debug)]
pub struct InvokeOptions {
    pub version: Version,
    pub invoker: Invoker,
    /// `None`: no arguments were given at all.
    pub args: Option<String>,
    pub session_id: String,
    pub project_dir: String,
    pub effort: String,
    /// Runs an inline shell command (the command, the working folder) and returns what the
    /// model would see in its place; `None` shows markers instead. The command layer supplies
    /// it: rendering never runs anything itself.
    pub exec: Option<fn(&str, &str) -> String>,
    /// Which invocation of the skill in the session (1 for the first).
    pub invocation_index: usize,
    /// The tokens left, for the `<total_tokens>` reminder legacy models get after a tool
    /// result; `None` leaves the reminder out.
    pub tokens_left: Option<u64>,
    /// The name the model called the skill by, when not its folder's (Claude Code echoes it).
    pub launched_as: Option<String>,
}

/// One block of a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Block {
    /// `text` or `tool_result`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub text: String,
    /// Shown to the user in the transcript (the skill content is not).
    pub visible: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

/// A message the agent sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: &'static str,
    /// Who gets it: the main conversation, or the forked sub-agent.
    pub to: &'static str,
    pub content: Vec<Block>,
}

/// An inline shell command and what Claude Code does with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShellCommand {
    /// The whole match, `` !`…` `` or the ```` ```! ```` block.
    pub pattern: String,
    pub command: String,
    /// Whether it runs and why (shown as `read-only`, `allowed by Bash(…)`, or `aborts`).
    pub verdict: Verdict,
    /// The rule `allowed-tools` would need, when it aborts.
    pub needs: Option<String>,
}

/// What invoking a skill sends.
#[derive(Clone, Debug, Serialize)]
pub struct Invocation {
    pub messages: Vec<Message>,
    pub shell: Vec<ShellCommand>,
    /// Why nothing is sent, when Claude Code refuses.
    pub refused: Option<String>,
    /// The placeholders substituted, for the report.
    pub substituted: bool,
}

/// The messages Claude Code sends when `skill` is invoked.
pub fn invoke(skill: &SkillView, options: &InvokeOptions) -> Invocation {
    let name = &skill.dir_name;
    if options.invoker == Invoker::User && !skill.claude.user_invocable {
        let message = format!(
            "This skill can only be invoked by Claude, not directly by users. Ask Claude to use the \"{name}\" skill for you."
        );
        return Invocation {
            messages: Vec::new(),
            shell: Vec::new(),
            refused: Some(message),
            substituted: false,
        };
    }
    if options.invocation_index > 1 && options.invoker == Invoker::Model && !skill.claude.fork {
        return again(name, options);
    }
    let dir = slash(&skill.dir);
    // A plain legacy command has no folder of its own: no base directory line.
    let content = if skill.command {
        skill.claude.body.clone()
    } else {
        format!(
            "Base directory for this skill: {dir}\n\n{}",
            skill.claude.body
        )
    };
    let (mut text, substituted) = substitute_arguments(
        &content,
        options.args.as_deref(),
        &skill.claude.arguments,
        options.version,
    );
    text = substitute_variables(&text, (!skill.command).then_some(dir.as_str()), options);
    let (text, shell) = inline_shell(&text, &skill.claude.allowed_tools, &dir, options);
    let mut messages = Vec::new();
    if let Some(abort) = shell.iter().find(|command| !command.verdict.runs()) {
        let message = format!(
            "Shell command permission check failed for pattern \"{}\": {} needs approval, and Claude Code does not ask for commands in skills.",
            abort.pattern, abort.command
        );
        if options.invoker == Invoker::Model {
            messages.push(Message {
                role: "user",
                to: "main",
                content: vec![Block {
                    kind: "tool_result",
                    text: message.clone(),
                    visible: true,
                    is_error: true,
                }],
            });
        }
        return Invocation {
            messages,
            shell,
            refused: Some(message),
            substituted,
        };
    }
    let content_block = Block {
        kind: "text",
        text,
        visible: false,
        is_error: false,
    };
    if skill.claude.fork {
        messages.extend(forked(name, content_block, options));
        return Invocation {
            messages,
            shell,
            refused: None,
            substituted,
        };
    }
    let mut blocks = match options.invoker {
        Invoker::Model => vec![launching(name, options)],
        Invoker::User => metadata(name, options.args.as_deref()),
    };
    blocks.push(content_block);
    messages.push(Message {
        role: "user",
        to: "main",
        content: blocks,
    });
    Invocation {
        messages,
        shell,
        refused: None,
        substituted,
    }
}

/// A skill invoked again in the same session: Claude Code sends a note instead of the content.
fn again(name: &str, options: &InvokeOptions) -> Invocation {
    Invocation {
        messages: vec![Message {
            role: "user",
            to: "main",
            content: vec![
                launching(name, options),
                Block {
                    kind: "text",
                    text: match options.args.as_deref().filter(|args| !args.is_empty()) {
                        Some(args) => format!(
                            "Skill /{name} is already loaded above; instructions unchanged. Arguments: {args}"
                        ),
                        None => format!(
                            "Skill /{name} is already loaded above; instructions unchanged."
                        ),
                    },
                    visible: false,
                    is_error: false,
                },
            ],
        }],
        shell: Vec::new(),
        refused: None,
        substituted: false,
    }
}

/// The Skill tool's result: `Launching skill: NAME` (the name the model used), with the
/// reminder legacy models get when it is asked for.
fn launching(name: &str, options: &InvokeOptions) -> Block {
    Block {
        kind: "tool_result",
        text: with_reminder(
            format!(
                "Launching skill: {}",
                options.launched_as.as_deref().unwrap_or(name)
            ),
            options,
        ),
        visible: true,
        is_error: false,
    }
}

/// A tool result with the `<total_tokens>` reminder legacy models get, when it is asked for.
fn with_reminder(text: String, options: &InvokeOptions) -> String {
    match options.tokens_left {
        Some(left) => format!(
            "{text}\n\n<system-reminder>\n<total_tokens>{left} tokens left</total_tokens>\n</system-reminder>"
        ),
        None => text,
    }
}

/// `context: fork`: the content is a sub-agent's first message; the main conversation gets the
/// completion notice (captures §9), whose result is the sub-agent's answer.
fn forked(name: &str, content: Block, options: &InvokeOptions) -> Vec<Message> {
    let mut result = if options.invoker == Invoker::User {
        metadata(name, options.args.as_deref())
    } else {
        Vec::new()
    };
    result.push(Block {
        kind: if options.invoker == Invoker::Model {
            "tool_result"
        } else {
            "text"
        },
        text: format!(
            "Skill \"{name}\" completed (forked execution).\n\nResult:\n⟨the sub-agent's final answer⟩"
        ),
        visible: true,
        is_error: false,
    });
    vec![
        Message {
            role: "user",
            to: "sub-agent",
            content: vec![content],
        },
        Message {
            role: "user",
            to: "main",
            content: result,
        },
    ]
}

/// The metadata block of a typed command (captures §7): each line ends in `\n`.
fn metadata(name: &str, args: Option<&str>) -> Vec<Block> {
    let mut text = format!(
        "<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n"
    );
    if let Some(args) = args.filter(|args| !args.is_empty()) {
        let _ = writeln!(text, "<command-args>{args}</command-args>");
    }
    vec![Block {
        kind: "text",
        text,
        visible: true,
        is_error: false,
    }]
}

fn slash(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// `${CLAUDE_SKILL_DIR}`, `${CLAUDE_SESSION_ID}`, and in 2.1.332 `${CLAUDE_PROJECT_DIR}` and
/// `${CLAUDE_EFFORT}`; anything else stays literal.
fn substitute_variables(text: &str, dir: Option<&str>, options: &InvokeOptions) -> String {
    let mut out = match dir {
        Some(dir) => text.replace("${CLAUDE_SKILL_DIR}", dir),
        None => text.to_owned(),
    }
    .replace("${CLAUDE_SESSION_ID}", &options.session_id);
    if options.version == Version::Current {
        out = out
            .replace("${CLAUDE_PROJECT_DIR}", &options.project_dir)
            .replace("${CLAUDE_EFFORT}", &options.effort);
    }
    out
}

/// Inline commands (`` !`cmd` `` and ```` ```! ```` blocks): markers (or, with `exec`, their
/// output) in place of each, and the verdict on each. The rules in `allowed-tools` get the same
/// variable substitution as the text, so `Bash(${CLAUDE_SKILL_DIR}/run.sh)` still matches.
fn inline_shell(
    text: &str,
    allowed: &[String],
    dir: &str,
    options: &InvokeOptions,
) -> (String, Vec<ShellCommand>) {
    let tools: Vec<String> = allowed
        .iter()
        .map(|tool| substitute_variables(tool, Some(dir), options))
        .collect();
    let permissions = Permissions::new(&tools);
    let mut commands = Vec::new();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for Inline { range, command } in shell::inline_commands(text) {
        let verdict = permissions.verdict(&command);
        out.push_str(&text[at..range.start]);
        let replacement = match options.exec {
            Some(run) if verdict.runs() => run(&command, &options.project_dir),
            _ => format!("⟦shell: {command}⟧"),
        };
        out.push_str(&replacement);
        at = range.end;
        commands.push(ShellCommand {
            pattern: text[range].to_owned(),
            needs: verdict.needs().map(ToString::to_string),
            command,
            verdict,
        });
    }
    out.push_str(&text[at..]);
    (out, commands)
}
