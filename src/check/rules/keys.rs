//! Rules about which keys the frontmatter may have.

use super::Context;
use crate::agent::{Family, Target};
use crate::check::diagnostic::Diagnostic;
use crate::check::fix::{Edit, Fix};
use crate::check::rule::{CLIENT_SPECIFIC_KEY, UNKNOWN_KEY};
use crate::skill::model::{KNOWN_KEYS, KeyOrigin, known_key};
use crate::skill::yaml::Style;

/// The label of an unknown key that is no misspelling of a known one: the author's own.
pub(crate) const OWN_KEY_LABEL: &str = "not a known key";

const SPEC_KEYS_NOTE: &str =
    "the spec allows only name, description, license, compatibility, metadata and allowed-tools";

/// The unsafe fix for `when_to_use` outside Claude Code: append it to `description` and remove
/// the key. Only for one-line descriptions, whose value can be replaced as a whole.
fn merge_when_to_use(cx: &Context<'_>) -> Option<Fix> {
    let description = cx.doc.description.as_deref()?;
    let when = cx.doc.when_to_use.as_deref()?;
    let (Ok(text), Ok(extra)) = (&description.value, &when.value) else {
        return None;
    };
    let scalar = cx.yaml.scalar(description.node)?;
    let source = cx.source.text();
    if matches!(scalar.style, Style::Literal | Style::Folded)
        || source[description.span.clone()].contains('\n')
        || description.span.is_empty()
    {
        return None;
    }
    let merged = format!("{} {}", text.trim(), extra.trim());
    let line_start = source[..when.key.start].rfind('\n').map_or(0, |at| at + 1);
    let line_end = source[when.span.end.max(when.key.end)..]
        .find('\n')
        .map_or(source.len(), |at| when.span.end.max(when.key.end) + at + 1);
    Some(Fix::unsafe_(
        "merge `when_to_use` into `description`",
        vec![
            Edit {
                range: description.span.clone(),
                text: crate::skill::yaml::scalar(&merged),
            },
            Edit {
                range: line_start..line_end,
                text: String::new(),
            },
        ],
    ))
}

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    // A skill in another agent's own folder is for that agent, which loads it whatever other
    // keys it has: only a misspelt key matters there.
    let lenient = cx.target == Target::AgentSkills
        && crate::agent::in_unmodelled_agents_folder(&cx.skill.dir);
    for (key, node) in &cx.doc.entries {
        let misspelt = misspelling(cx, &key.value, *node);
        let known = known_key(&key.value);
        let own_or_client = match known {
            Some(known) => !matches!(known.origin, KeyOrigin::Spec),
            None => misspelt.is_none(),
        };
        if lenient && own_or_client && key.value != "when_to_use" {
            continue;
        }
        match known_key(&key.value).map(|known| known.origin) {
            Some(KeyOrigin::Spec) => {}
            Some(KeyOrigin::ClaudeCode { since }) => {
                let diagnostic = match cx.family() {
                    // An agent that ignores keys it does not know (Codex, Gemini CLI, …) loses
                    // only what it would have shown: `when_to_use`'s text.
                    Family::Spec if cx.target != Target::AgentSkills => {
                        if key.value != "when_to_use" {
                            continue;
                        }
                        Diagnostic::warning(
                            &CLIENT_SPECIFIC_KEY,
                            format!("{} ignores `when_to_use`: its text never reaches the model there", cx.target.display()),
                        )
                        .help("move what it says into `description`")
                    }
                    Family::Spec => Diagnostic::warning(
                        &CLIENT_SPECIFIC_KEY,
                        format!("`{}` is honoured only by Claude Code", key.value),
                    )
                    .note("claude.ai uploads, the Skills API and skills-ref reject keys outside the six spec keys")
                    .help("remove it, or check with `--target claude-code` if the skill is only for Claude Code"),
                    Family::ClaudeAi => Diagnostic::error(
                        &CLIENT_SPECIFIC_KEY,
                        format!("claude.ai and the Skills API reject the key `{}`", key.value),
                    )
                    .note(SPEC_KEYS_NOTE)
                    .help("remove it"),
                    Family::SkillsRef => Diagnostic::error(
                        &CLIENT_SPECIFIC_KEY,
                        format!("skills-ref rejects the key `{}`", key.value),
                    )
                    .note(SPEC_KEYS_NOTE)
                    .help("remove it"),
                    Family::ClaudeCode { modern: false } => match since {
                        Some((major, minor, patch)) => Diagnostic::warning(
                            &CLIENT_SPECIFIC_KEY,
                            format!(
                                "Claude Code 2.1.88 ignores `{}`: it is read since {major}.{minor}.{patch}",
                                key.value
                            ),
                        ),
                        None => continue,
                    },
                    Family::ClaudeCode { modern: true } => continue,
                };
                let mut diagnostic = diagnostic.at(key.span.clone()).label("not a spec key");
                if key.value == "when_to_use"
                    && !cx.target.is_claude_code()
                    && let Some(fix) = merge_when_to_use(cx)
                {
                    diagnostic = diagnostic.fix(fix);
                }
                out.push(diagnostic);
            }
            // Claude Code ignores keys it does not know, so for it an unknown key matters only
            // when it is a misspelt known one (`allowed_tools`): `author` or `tags` are the
            // author's own notes, harmless there.
            None if (cx.target.is_claude_code() || cx.target.ignores_unknown_keys())
                && misspelt.is_none() => {}
            None => out.push(unknown_key(cx, key, misspelt)),
        }
    }
}

/// The finding about a key no agent knows: a misspelt known key, or the author's own.
fn unknown_key(
    cx: &Context<'_>,
    key: &crate::skill::model::Spanned<String>,
    misspelt: Option<&'static str>,
) -> Diagnostic {
    let mut diagnostic = if cx.target.is_claude_code() || cx.target.ignores_unknown_keys() {
        Diagnostic::warning(
            &UNKNOWN_KEY,
            format!(
                "{} ignores the unknown key `{}`",
                cx.target.display(),
                key.value
            ),
        )
    } else if misspelt.is_none() && cx.target == Target::AgentSkills {
        // Not a typo: the author's own key. Agents that load by the spec ignore
        // it (its client guide says to load leniently); the strict readers
        // refuse it, and have targets of their own.
        Diagnostic::warning(
            &UNKNOWN_KEY,
            format!("`{}` is not a key of the spec", key.value),
        )
        .note("agents ignore it, but skills-ref and claude.ai uploads refuse the skill")
    } else {
        Diagnostic::error(&UNKNOWN_KEY, format!("unknown key `{}`", key.value)).note(SPEC_KEYS_NOTE)
    };
    diagnostic = match misspelt {
        Some(known) => diagnostic.help(format!("did you mean `{known}`?")),
        None => {
            diagnostic.help("remove it; extra properties belong under `metadata:` as string values")
        }
    };
    let label = if misspelt.is_some() {
        "unknown key"
    } else {
        OWN_KEY_LABEL
    };
    diagnostic.at(key.span.clone()).label(label)
}

/// The known key `key` is a misspelling of ([`suggest`]), unless its value could not be that
/// key's: a list or mapping under a name close to a key that takes one text (`agents: [a, b]`
/// beside `agent`) is the author's own key, kept on purpose.
fn misspelling(
    cx: &Context<'_>,
    key: &str,
    node: crate::skill::yaml::NodeId,
) -> Option<&'static str> {
    let known = suggest(key)?;
    let structured = matches!(
        cx.yaml.resolve(node).kind,
        crate::skill::yaml::NodeKind::Sequence { .. }
            | crate::skill::yaml::NodeKind::Mapping { .. }
    );
    let takes_structure = known_key(known)
        .is_some_and(|known| known.expects.contains("list") || known.expects.contains("mapping"));
    (!structured || takes_structure).then_some(known)
}

/// The known key closest to `key`: the same words written another way (`allowed_tools`,
/// `Description`), or a small typo.
pub(crate) fn suggest(key: &str) -> Option<&'static str> {
    let wanted = normalise(key);
    if let Some(same) = KNOWN_KEYS
        .iter()
        .find(|known| normalise(known.name) == wanted)
    {
        return Some(same.name);
    }
    KNOWN_KEYS
        .iter()
        .map(|known| {
            (
                strsim::levenshtein(&wanted, &normalise(known.name)),
                known.name,
            )
        })
        .filter(|&(distance, name)| distance <= (name.len() / 4).clamp(1, 3))
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, name)| name)
}

/// Lowercase kebab-case: `allowed_tools`, `allowedTools` and `Allowed-Tools` all become
/// `allowed-tools`.
fn normalise(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    let mut previous_lower = false;
    for c in key.trim().chars() {
        if c == '_' || c == ' ' || c == '-' {
            out.push('-');
            previous_lower = false;
        } else if c.is_uppercase() {
            if previous_lower {
                out.push('-');
            }
            out.extend(c.to_lowercase());
            previous_lower = false;
        } else {
            out.push(c);
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_known_keys() {
        assert_eq!(suggest("descripton"), Some("description"));
        assert_eq!(suggest("allowed_tools"), Some("allowed-tools"));
        assert_eq!(suggest("allowedTools"), Some("allowed-tools"));
        assert_eq!(suggest("Name"), Some("name"));
        assert_eq!(suggest("when-to-use"), Some("when_to_use"));
        assert_eq!(suggest("licence"), Some("license"));
        assert_eq!(suggest("author"), None);
        assert_eq!(suggest("tags"), None);
    }
}
