//! Claude Code's skill listing, rendered in full: every entry, its cap, the budget and who keeps
//! a description when the listing is over it.

use std::collections::HashMap;

use serde::Serialize;

use crate::agent::claude_code::listing::HEADER;
use crate::agent::claude_code::listing::{self, CapStyle};
use crate::agent::claude_code::{Model, Version, names};
use crate::agent::collate;
use crate::render::view::{Scope, SkillView};

/// How a skill's listing entry is overridden in settings (`skillOverrides`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Override {
    /// Listed as usual (a later settings file's `on` undoes an earlier one's override).
    On,
    NameOnly,
    /// Hidden from the model; the user can still type `/name`.
    UserInvocableOnly,
    Off,
}

/// A skill's usage, from `skillUsage` in `~/.claude.json`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Usage {
    pub count: f64,
    /// Milliseconds since the Unix epoch.
    pub last_used: f64,
}

/// Everything that shapes the listing.
#[derive(Clone, Debug)]
pub struct IndexOptions {
    pub version: Version,
    pub model: Model,
    pub context_window: usize,
    pub budget_fraction: f64,
    /// A fixed budget, like `SLASH_COMMAND_TOOL_CHAR_BUDGET`.
    pub budget: Option<usize>,
    /// Columns Claude Code's own skills take.
    pub reserve: usize,
    pub max_desc_chars: usize,
    pub usage: HashMap<String, Usage>,
    /// Now, in milliseconds since the Unix epoch, for usage decay.
    pub now: f64,
    pub overrides: HashMap<String, Override>,
}

impl IndexOptions {
    /// `skillpkg preview`'s defaults for `model` (Claude Code 2.1.332): 1% of its context
    /// window, Claude Code's own skills reserved, the 1,536-unit cap, no settings or usage.
    pub fn new(model: Model) -> Self {
        Self {
            version: Version::Current,
            context_window: model.context_window,
            model,
            budget_fraction: 0.01,
            budget: None,
            reserve: listing::BUNDLED_RESERVE,
            max_desc_chars: listing::CAP_CURRENT,
            usage: HashMap::new(),
            now: 0.0,
            overrides: HashMap::new(),
        }
    }
}

/// What happened to one entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum EntryStatus {
    Full,
    /// Cut by the per-entry cap (or 2.1.88's share): the model sees `kept` of `total` units.
    Cut {
        kept: usize,
        total: usize,
    },
    /// Listed by name only: the model loses the whole description.
    NameOnly {
        lost: usize,
        reason: String,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct EntryReport {
    pub name: String,
    pub scope: Scope,
    #[serde(flatten)]
    pub status: EntryStatus,
}

/// The listing and what it cost.
#[derive(Clone, Debug, Serialize)]
pub struct Index {
    /// Exactly the text the model receives.
    #[serde(skip)]
    pub text: String,
    /// Where it goes.
    pub placement: String,
    pub budget: usize,
    pub budget_source: String,
    /// Columns the listing takes with Claude Code's own skills (`reserve`) counted.
    pub used: usize,
    pub reserve: usize,
    pub chars: usize,
    pub tokens: usize,
    pub entries: Vec<EntryReport>,
    /// Skills left out, and why.
    pub left_out: Vec<(String, String)>,
}

struct Line {
    name: String,
    /// The frontmatter `name`, which may be shown beside the folder's.
    shown: Option<String>,
    scope: Scope,
    /// The capped entry text; `None` for a name-only override.
    text: Option<String>,
    /// Units before the cap.
    total: usize,
    priority: f64,
}

/// The listing of `skills` as Claude Code shows it.
pub fn index(skills: &[SkillView], options: &IndexOptions) -> Index {
    let mut left_out = Vec::new();
    let mut lines = listed(skills, options, &mut left_out);
    let (budget, budget_source) = budget(options);
    let mut entries: Vec<EntryReport> = lines
        .iter()
        .map(|line| EntryReport {
            name: line.name.clone(),
            scope: line.scope,
            status: match &line.text {
                None => EntryStatus::NameOnly {
                    lost: line.total,
                    reason: "skillOverrides: name-only".into(),
                },
                Some(text) if listing::utf16_len(text) < line.total => EntryStatus::Cut {
                    kept: listing::utf16_len(text).saturating_sub(1),
                    total: line.total,
                },
                Some(_) => EntryStatus::Full,
            },
        })
        .collect();
    let used = match options.version {
        Version::Current => hand_back(&mut lines, &mut entries, budget, options.reserve),
        Version::V2188 => equal_share(&mut lines, &mut entries, budget, options.reserve),
    };
    let body: Vec<String> = lines
        .iter()
        .map(|line| match &line.text {
            Some(text) => format!("- {}: {text}", line.name),
            None => format!("- {}", line.name),
        })
        .collect();
    let slice = format!("{HEADER}\n\n{}", body.join("\n"));
    let legacy = options.model.legacy || options.version == Version::V2188;
    let (text, placement) = if legacy {
        (
            format!("<system-reminder>\n{slice}\n</system-reminder>"),
            "a <system-reminder> text block in the first user message".to_owned(),
        )
    } else {
        (
            slice,
            "part of a system-role message after the first user message, between the agent types and today's date".to_owned(),
        )
    };
    Index {
        chars: text.chars().count(),
        tokens: crate::agent::estimate_tokens(&text),
        text,
        placement,
        budget,
        budget_source,
        used,
        reserve: options.reserve,
        entries,
        left_out,
    }
}

/// The skills Claude Code lists, in its order, with their capped text.
fn listed(
    skills: &[SkillView],
    options: &IndexOptions,
    left_out: &mut Vec<(String, String)>,
) -> Vec<Line> {
    let style = match options.version {
        Version::Current => CapStyle::Current,
        Version::V2188 => CapStyle::V2188,
    };
    let cap = match options.version {
        Version::Current => options.max_desc_chars,
        Version::V2188 => listing::CAP_2188,
    };
    let mut order: Vec<&SkillView> = skills.iter().collect();
    match options.version {
        // User-level skills first, each group in ICU order (captures §3).
        // User-level skills first, then each project folder, nearest first, then the legacy
        // commands together; each group in ICU order (captures §3).
        Version::Current => order.sort_by(|a, b| {
            a.group
                .cmp(&b.group)
                .then_with(|| collate::compare(&a.dir_name, &b.dir_name))
                .then_with(|| a.tiebreak.cmp(&b.tiebreak))
                .then_with(|| a.scope.cmp(&b.scope))
        }),
        // 2.1.88: the order the folders were read in.
        Version::V2188 => order.sort_by_key(|skill| skill.scope),
    }
    let mut seen: std::collections::HashMap<&str, &SkillView> = std::collections::HashMap::new();
    let mut lines: Vec<Line> = Vec::new();
    for skill in order {
        let name = &skill.dir_name;
        if let Some(winner) = seen.get(name.as_str()) {
            left_out.push((name.clone(), shadowed_by(winner, skill).into()));
            continue;
        }
        seen.insert(name, skill);
        let claude = &skill.claude;
        if options.version == Version::Current && !names::is_accepted_folder(name) {
            left_out.push((
                name.clone(),
                "Claude Code does not load a skill from a folder of this name".into(),
            ));
            continue;
        }
        if claude.disable_model_invocation {
            left_out.push((name.clone(), "disable-model-invocation: true".into()));
            continue;
        }
        if claude.paths && options.version == Version::Current {
            left_out.push((
                name.clone(),
                "`paths`: listed only after the model reads a matching file".into(),
            ));
            continue;
        }
        let over = options.overrides.get(name).copied();
        if over == Some(Override::Off) {
            left_out.push((name.clone(), "skillOverrides: off".into()));
            continue;
        }
        if over == Some(Override::UserInvocableOnly) {
            left_out.push((name.clone(), "skillOverrides: user-invocable-only".into()));
            continue;
        }
        let description = claude
            .description
            .clone()
            .or_else(|| claude.fallback.clone())
            .unwrap_or_default();
        let raw = listing::entry_text(&description, claude.when_to_use.as_deref(), style);
        let total = listing::utf16_len(&raw);
        let priority = options.usage.get(name).map_or(0.0, |usage| {
            let days = (options.now - usage.last_used) / 86_400_000.0;
            usage.count * 0.5f64.powf(days / 7.0).max(0.1)
        });
        lines.push(Line {
            name: name.clone(),
            shown: claude.name.clone(),
            scope: skill.scope,
            text: (over != Some(Override::NameOnly)).then(|| listing::capped(&raw, cap)),
            total,
            priority,
        });
    }
    if options.version == Version::Current {
        label(&mut lines, skills);
    }
    lines
}

/// Claude Code 2.1.332 shows a skill as `folder (name)` when its frontmatter `name` differs
/// from the folder, may be shown (letters, marks, digits, `_:.-`), passes its name check, and
/// leads to this skill: no command of Claude Code's, no other skill's folder and no skill
/// listed earlier answers to it.
fn label(lines: &mut [Line], skills: &[SkillView]) {
    let folders: std::collections::HashSet<&str> =
        skills.iter().map(|skill| skill.dir_name.as_str()).collect();
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    for line in lines.iter_mut() {
        let facing = line
            .shown
            .take()
            .filter(|name| !name.is_empty() && names::is_clean_name(name));
        let Some(shown) = facing else {
            continue;
        };
        let first = taken.insert(shown.clone());
        if shown != line.name
            && !line.name.ends_with(&format!(":{shown}"))
            && names::is_showable(&shown)
            && !names::COMMAND_NAMES.contains(&shown.as_str())
            && !folders.contains(shown.as_str())
            && first
        {
            line.name = format!("{} ({shown})", line.name);
        }
    }
}

fn budget(options: &IndexOptions) -> (usize, String) {
    if let Some(budget) = options.budget {
        return (
            budget,
            "--budget, like SLASH_COMMAND_TOOL_CHAR_BUDGET".to_owned(),
        );
    }
    let per_token = match options.version {
        Version::Current => options.model.chars_per_token(),
        Version::V2188 => 4,
    };
    #[expect(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "the budget is a few million columns at most: exact in f64, and floored to a count"
    )]
    let budget = ((options.context_window * per_token) as f64 * options.budget_fraction)
        .floor()
        .max(1.0) as usize;
    (
        budget,
        format!(
            "{} tokens × {per_token} characters per token × {} = {budget}",
            options.context_window, options.budget_fraction
        ),
    )
}

fn full_width(line: &Line) -> usize {
    match &line.text {
        Some(text) => listing::width(&format!("- {}: {text}", line.name)),
        None => listing::width(&format!("- {}", line.name)),
    }
}

/// 2.1.332: everything fits, or names for all and whole descriptions handed back by usage
/// priority (ties in listing order), skipping what does not fit (captures §5).
fn hand_back(
    lines: &mut [Line],
    entries: &mut [EntryReport],
    budget: usize,
    reserve: usize,
) -> usize {
    // Claude Code's own 11 bundled skills and its 2 prompt commands share the separators.
    let separators = (lines.len() + 11 + 2).saturating_sub(1);
    let builtins: usize = listing::BUILTIN_ENTRIES
        .iter()
        .map(|(name, text)| listing::width(&format!("- {name}: {text}")))
        .sum();
    let full: usize = lines.iter().map(full_width).sum::<usize>() + builtins + separators + reserve;
    if full <= budget {
        return full;
    }
    let bare = |name: &str| listing::width(&format!("- {name}"));
    let mut used = lines.iter().map(|line| bare(&line.name)).sum::<usize>()
        + listing::BUILTIN_ENTRIES
            .iter()
            .map(|(name, _)| bare(name))
            .sum::<usize>()
        + separators
        + reserve;
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|&a, &b| lines[b].priority.total_cmp(&lines[a].priority));
    let mut keep = vec![false; lines.len()];
    for index in order {
        let Some(text) = &lines[index].text else {
            continue;
        };
        let extra = listing::width(&format!(": {text}"));
        if used + extra <= budget {
            used += extra;
            keep[index] = true;
        }
    }
    for (index, line) in lines.iter_mut().enumerate() {
        if !keep[index] && line.text.is_some() {
            entries[index].status = EntryStatus::NameOnly {
                lost: line.total,
                reason: "over budget: the description did not fit".into(),
            };
            line.text = None;
        }
    }
    // The prompt commands get theirs back last, when there is room.
    for (name, text) in listing::BUILTIN_ENTRIES {
        let extra = listing::width(&format!(": {text}"));
        let _ = name;
        if used + extra <= budget {
            used += extra;
        }
    }
    used
}

/// 2.1.88: an equal share of what is left for every description, names only under 20 columns.
fn equal_share(
    lines: &mut [Line],
    entries: &mut [EntryReport],
    budget: usize,
    reserve: usize,
) -> usize {
    let full: usize =
        lines.iter().map(full_width).sum::<usize>() + lines.len().saturating_sub(1) + reserve;
    if full <= budget || lines.is_empty() {
        return full;
    }
    let overhead: usize = lines
        .iter()
        .map(|line| listing::width(&line.name) + 4)
        .sum::<usize>()
        + lines.len().saturating_sub(1);
    let share = budget.saturating_sub(reserve + overhead) / lines.len();
    for (index, line) in lines.iter_mut().enumerate() {
        let Some(text) = &line.text else { continue };
        if share < 20 {
            entries[index].status = EntryStatus::NameOnly {
                lost: line.total,
                reason: format!("over budget: a share of {share} columns is under 20"),
            };
            line.text = None;
        } else if listing::width(text) > share {
            let cut = truncate_width(text, share);
            entries[index].status = EntryStatus::Cut {
                kept: listing::utf16_len(&cut).saturating_sub(1),
                total: line.total,
            };
            line.text = Some(cut);
        }
    }
    lines.iter().map(full_width).sum::<usize>() + lines.len().saturating_sub(1) + reserve
}

/// Cuts `text` to `columns` terminal columns, the last one being `…`.
fn truncate_width(text: &str, columns: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let width = listing::width(c.encode_utf8(&mut [0; 4]));
        if used + width > columns.saturating_sub(1) {
            break;
        }
        used += width;
        out.push(c);
    }
    out.push('…');
    out
}

/// Why `loser` is left out for `winner`, a skill or command of the same name listed before it.
fn shadowed_by(winner: &SkillView, loser: &SkillView) -> &'static str {
    match (winner.scope, loser.scope, winner.command, loser.command) {
        (Scope::User, Scope::Project, false, _) => "a user-level skill of the same name wins",
        (Scope::User, Scope::Project, true, _) => {
            "a user-level legacy command of the same name wins"
        }
        (_, _, false, true) => "a skill of the same name wins over a legacy command",
        (_, _, true, true) => "a legacy command of the same name in a nearer folder wins",
        _ if winner.group < loser.group => {
            "a skill of the same name in a nearer project folder wins"
        }
        _ => "a skill of the same name listed before it wins",
    }
}
