//! Lint rules about `description`: does it tell the agent when to use the skill, and does the
//! agent see all of it?

use super::LintContext;
use crate::agent::claude_code::listing::{self, CapStyle};
use crate::agent::{Family, Target};
use crate::check::diagnostic::Diagnostic;
use crate::check::rule::{
    DESCRIPTION_NO_TRIGGER, DESCRIPTION_PERSON, DESCRIPTION_TRUNCATED, DESCRIPTION_VAGUE,
};

/// The description `init` writes when none is given and there is no terminal to ask on.
/// `validate` accepts it; `lint` reports it, so it cannot be published by accident.
pub const PLACEHOLDER_DESCRIPTION: &str = "TODO: say what this skill does and when to use it, \
for example: Converts X to Y. Use when the user asks to convert X.";

/// Phrases that say when to use a skill.
const TRIGGERS: &[&str] = &[
    "when",
    "whenever",
    "if ",
    "use for",
    "use to ",
    "use this",
    "use it",
    "used for",
    "used to ",
    "trigger",
    "triggers",
    "triggered",
    "activate",
    "activates",
    "invoke",
    "for tasks",
    "for requests",
    "for questions",
    "for any",
    "in response to",
    "asks",
    "mentions",
    "user needs",
    "user wants",
    "user says",
    "user requests",
    "needs to",
    "wants to",
    "use after",
    "use before",
    "use during",
    "use once",
];

/// Phrases that say when to use a skill in Chinese and Japanese ("…の時に使用", "用于…",
/// "…时使用", "…場合"), which have no spaces to find English phrases by.
const CJK_TRIGGERS: &[&str] = &[
    "時に",
    "ときに",
    "場合",
    "際に",
    "使用",
    "使う",
    "用于",
    "适用",
    "时使用",
    "時使用",
    "当用户",
    "需要时",
];

/// Phrases that say nothing specific.
const VAGUE: &[&str] = &[
    "helps with",
    "help with",
    "various tasks",
    "various things",
    "useful tool",
    "general purpose",
    "general-purpose",
    "does stuff",
    "and more",
    "misc",
];

/// First-person words (matched whole, case-insensitively except `I`).
const FIRST_PERSON: &[&str] = &[
    "i", "i'm", "i'll", "i've", "me", "my", "mine", "we", "we're", "we'll", "our", "ours",
];

/// Second-person words.
const SECOND_PERSON: &[&str] = &["you", "you're", "you'll", "your", "yours"];

pub(super) fn check(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let Some(doc) = cx.doc else {
        return;
    };
    let Some(field) = &doc.description else {
        return;
    };
    let Ok(description) = &field.value else {
        return;
    };
    let text = description.trim();
    if text.is_empty() || text.starts_with(&PLACEHOLDER_DESCRIPTION[..20]) {
        // Empty is validate's business; the placeholder is `placeholder-text`'s.
        return;
    }
    let span = field.span.clone();
    let lower = text.to_lowercase();
    let when_to_use = doc
        .when_to_use
        .as_ref()
        .and_then(|field| field.value.as_ref().ok())
        .is_some_and(|text| !text.trim().is_empty());
    // A skill only the user invokes (or a command typed with arguments) is not chosen by the
    // model from its description.
    let user_only = doc
        .disable_model_invocation
        .as_ref()
        .is_some_and(|field| field.value == Ok(true))
        || doc.argument_hint.is_some();
    // "For evolutionary analysis, …": a sentence that starts with "For" names the use.
    let for_clause = lower.starts_with("for ") || lower.contains(". for ");
    let cjk_trigger = CJK_TRIGGERS.iter().any(|trigger| text.contains(trigger));
    if !when_to_use
        && !user_only
        && !for_clause
        && !cjk_trigger
        && !TRIGGERS
            .iter()
            .any(|trigger| contains_phrase(&lower, trigger))
    {
        out.push(
            Diagnostic::warning(
                &DESCRIPTION_NO_TRIGGER,
                "the description says what the skill does, but not when to use it",
            )
            .at(span.clone())
            .note("agents choose a skill from its description alone")
            .help("add a trigger such as \"Use when the user asks to …\""),
        );
    }
    if let Some((found, word)) = personal_word(text) {
        out.push(
            Diagnostic::warning(
                &DESCRIPTION_PERSON,
                format!("the description is written in the {} person (`{word}`)", if SECOND_PERSON.contains(&word.to_lowercase().as_str()) { "second" } else { "first" }),
            )
            .at(super::span_in_value(cx.text(), &span, description, offset_of(description, text) + found.start..offset_of(description, text) + found.end))
            .note("the description is injected into the agent's system prompt; write it in the third person")
            .help("e.g. \"Formats release notes. Use when the user asks for a changelog.\""),
        );
    }
    let words = text.split_whitespace().count();
    let chars = text.chars().count();
    // Chinese and Japanese have no spaces between words: the length says it, in characters
    // (one such character carries about what an English word does).
    let wide = text.chars().filter(|c| is_cjk(*c)).count();
    let too_short = if wide * 2 >= chars {
        wide < 12
    } else {
        chars < 40 || words < 6
    };
    if too_short {
        out.push(
            Diagnostic::warning(
                &DESCRIPTION_VAGUE,
                format!("the description is too short to choose the skill by ({chars} characters, {words} words)"),
            )
            .at(span.clone())
            .help("say what the skill does, on what input, and when to use it"),
        );
    } else if words < 15
        && let Some(phrase) = VAGUE.iter().find(|phrase| contains_phrase(&lower, phrase))
    {
        out.push(
            Diagnostic::warning(
                &DESCRIPTION_VAGUE,
                format!("the description is vague (`{phrase}`)"),
            )
            .at(span.clone())
            .help("name the task, the inputs and the output, and when to use the skill"),
        );
    }
}

/// A Han, Hiragana or Katakana character.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

/// Where `text` (a trimmed slice) starts in `value`.
fn offset_of(value: &str, text: &str) -> usize {
    (text.as_ptr() as usize).saturating_sub(value.as_ptr() as usize)
}

/// Whether `phrase` occurs in `haystack` starting at a word boundary.
fn contains_phrase(haystack: &str, phrase: &str) -> bool {
    haystack.match_indices(phrase).any(|(at, _)| {
        let before = haystack[..at].chars().next_back();
        let after = haystack[at + phrase.len()..].chars().next();
        before.is_none_or(|c| !c.is_alphanumeric())
            && (phrase.ends_with(' ') || after.is_none_or(|c| !c.is_alphanumeric()))
    })
}

/// Where a description's own voice stops and a list of what users say begins: `TRIGGERS -`,
/// `Triggers on:`, `trigger phrases`, `keywords:`.
fn trigger_list_start(text: &str) -> usize {
    let lower = text.to_ascii_lowercase();
    [
        "triggers",
        "trigger phrases",
        "trigger with",
        "trigger on",
        "keywords:",
        "phrases like",
    ]
    .iter()
    .filter_map(|marker| lower.find(marker))
    .min()
    .unwrap_or(text.len())
}

/// The word that shows the description is not in the third person, with its byte range: the
/// first first-person word, or the second second-person one. Quotes, code, trigger lists
/// (users' own words), `I/O`, `wa.me` and a "you" right after "when" or "if" (which speaks to
/// the agent, as the system prompt does) do not count.
fn personal_word(text: &str) -> Option<(std::ops::Range<usize>, &str)> {
    let end = trigger_list_start(text);
    let mut quoted = false;
    let mut code = false;
    let mut start: Option<usize> = None;
    let mut previous = "";
    let mut second: Option<(std::ops::Range<usize>, &str)> = None;
    let mut seconds = 0;
    let mut words: Vec<(usize, usize, bool)> = Vec::new();
    for (at, c) in text[..end].char_indices() {
        // An apostrophe inside a word (`I'm`) belongs to it; a quote mark does not.
        let apostrophe = (c == '\'' || c == '\u{2019}')
            && text[..at]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
            && text[at + c.len_utf8()..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
        let word_char = c.is_alphanumeric() || apostrophe;
        if word_char {
            start.get_or_insert(at);
            continue;
        }
        if let Some(from) = start.take() {
            words.push((from, at, !quoted && !code));
        }
        // A single quote opens a quotation after a space, and closes one before a space.
        let single = c == '\''
            && (text[..at]
                .chars()
                .next_back()
                .is_none_or(char::is_whitespace)
                && !quoted
                || quoted
                    && text[at + 1..]
                        .chars()
                        .next()
                        .is_none_or(|n| !n.is_alphanumeric()));
        match c {
            '"' | '\u{201C}' | '\u{201D}' => quoted = !quoted,
            '\'' if single => quoted = !quoted,
            '`' => code = !code,
            _ => {}
        }
    }
    if let Some(from) = start {
        words.push((from, end, !quoted && !code));
    }
    // Second-person words in the "Use when…" clause describe the situation ("use when you
    // need the numbers for your CRM"), as Anthropic's own descriptions do; before it, "you"
    // speaks to the reader instead of saying what the skill does.
    let lower_text = text[..end].to_lowercase();
    let use_clause = [
        "use when",
        "use this when",
        "use this skill when",
        "use it when",
        "use for",
        "use if",
    ]
    .iter()
    .filter_map(|phrase| lower_text.find(phrase))
    .min()
    .unwrap_or(end);
    // A "I" among Roman numerals (`Type I`, `Phantom I, Phantom II`) is a number.
    let roman = words
        .iter()
        .any(|&(from, to, _)| matches!(&text[from..to], "II" | "III" | "IV"));
    for (from, to, counted) in words {
        let word = &text[from..to];
        let before = text[..from].chars().next_back();
        let after = text[to..].chars().next();
        let glued = before.is_some_and(|c| matches!(c, '.' | '/' | '-' | '@'))
            || after.is_some_and(|c| matches!(c, '.' | '/' | '-' | '@'))
                && text[to..].chars().nth(1).is_some_and(char::is_alphanumeric);
        let lower = word.to_lowercase();
        let first = if word == "I" || word.starts_with("I'") {
            true
        } else {
            lower != "i" && !lower.starts_with("i'") && FIRST_PERSON.contains(&lower.as_str())
        };
        let was = std::mem::replace(&mut previous, word);
        if !counted || glued {
            continue;
        }
        if first && word == "I" && (roman || numbered(text, from, was)) {
            continue;
        }
        if first {
            return Some((from..to, word));
        }
        if SECOND_PERSON.contains(&lower.as_str())
            && from < use_clause
            && !["when", "if", "whenever", "unless", "once"].contains(&was.to_lowercase().as_str())
        {
            seconds += 1;
            if seconds == 1 {
                second = Some((from..to, word));
            } else {
                return second;
            }
        }
    }
    None
}

/// Whether the `I` at `at`, after the word `previous`, is a numeral: it follows a capitalised
/// word that is no sentence's first (`Type I`, `Stage I`), within a sentence.
fn numbered(text: &str, at: usize, previous: &str) -> bool {
    let capitalised = previous.chars().next().is_some_and(char::is_uppercase)
        && previous.chars().skip(1).any(char::is_lowercase);
    if !capitalised {
        return false;
    }
    // The previous word starts a sentence ("When I…", "Then I…"): a pronoun follows.
    let before = text[..at].trim_end();
    let before = before[..before.len().saturating_sub(previous.len())].trim_end();
    !(before.is_empty() || before.ends_with(['.', '!', '?', ':', ';', '(', '"', '\u{201C}']))
}

/// Claude Code only: the listing's per-entry cap.
pub(super) fn check_claude_code(cx: &LintContext<'_>, target: Target, out: &mut Vec<Diagnostic>) {
    let Some(doc) = cx.doc else {
        return;
    };
    let Some(field) = &doc.description else {
        return;
    };
    let Ok(description) = &field.value else {
        return;
    };
    let when_to_use = doc
        .when_to_use
        .as_ref()
        .and_then(|field| field.value.as_ref().ok())
        .map(String::as_str);
    let style = match target.family() {
        Family::ClaudeCode { modern: true } => CapStyle::Current,
        _ => CapStyle::V2188,
    };
    let Some(cut) = listing::entry_cut(description, when_to_use, style) else {
        return;
    };
    let seen = shorten_tail(&cut.kept, 40);
    let mut diagnostic = Diagnostic::warning(
        &DESCRIPTION_TRUNCATED,
        format!(
            "{} cuts this description in its skill listing after {} of {} characters",
            target.display(),
            cut.kept_units,
            cut.total_units
        ),
    )
    .note(format!("the model sees \"…{seen}…\" and nothing after it"))
    .help(if cut.in_when_to_use {
        "shorten `description` and `when_to_use`; put the trigger first".to_owned()
    } else {
        format!(
            "keep the description under {} characters; put the trigger first",
            cut.cap
        )
    });
    diagnostic = match cut.source_offset.filter(|_| !cut.in_when_to_use) {
        Some(offset) => {
            let at = super::span_in_value(cx.text(), &field.span, description, offset..offset);
            if at.is_empty() {
                let end = cx.text()[at.start..]
                    .chars()
                    .next()
                    .map_or(at.start, |c| at.start + c.len_utf8());
                diagnostic
                    .at(at.start..end)
                    .label("the listing is cut here")
            } else {
                diagnostic.at(at)
            }
        }
        None => match (&doc.when_to_use, cut.in_when_to_use) {
            (Some(field), true) => diagnostic
                .at(field.span.clone())
                .label("the cut falls in `when_to_use`"),
            _ => diagnostic.at(field.span.clone()),
        },
    };
    out.push(diagnostic);
}

fn shorten_tail(text: &str, limit: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(limit)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_personal_words_outside_quotes() {
        assert_eq!(personal_word("I can help you").map(|(_, w)| w), Some("I"));
        // Roman numerals, and the situation a "Use when" clause describes, are not a person.
        assert_eq!(personal_word("Classifies Type I and Type 2 errors."), None);
        assert_eq!(
            personal_word("Controls Phantom I, Phantom II speakers."),
            None
        );
        assert_eq!(
            personal_word(
                "Summarises calls. Use when the team feels stretched and you need the numbers for your CRM."
            ),
            None
        );
        assert_eq!(
            personal_word("Summarises calls. When I ask, it logs them.").map(|(_, w)| w),
            Some("I")
        );
        assert_eq!(
            personal_word("You can use this to summarise calls for your team.").map(|(_, w)| w),
            Some("You")
        );
        // "when you" speaks to the agent; one "your" is not a voice; two are.
        assert_eq!(personal_word("Use when you need it").map(|(_, w)| w), None);
        assert_eq!(personal_word("Checks your token").map(|(_, w)| w), None);
        assert_eq!(
            personal_word("Sends what you made so your friends see it").map(|(_, w)| w),
            Some("you")
        );
        // Not pronouns: `I/O`, `wa.me`; users' own words in a trigger list.
        assert_eq!(
            personal_word("Speeds up I/O-bound code").map(|(_, w)| w),
            None
        );
        assert_eq!(personal_word("Builds wa.me links").map(|(_, w)| w), None);
        assert_eq!(
            personal_word("Exports notes. TRIGGERS - export my notes, back up").map(|(_, w)| w),
            None
        );
        assert_eq!(
            personal_word("Answers \"what do you mean\" questions").map(|(_, w)| w),
            None
        );
        assert_eq!(personal_word("Reads `my.cnf` files").map(|(_, w)| w), None);
        assert_eq!(
            personal_word("Formats notes for the user").map(|(_, w)| w),
            None
        );
        assert_eq!(
            personal_word("Handles US and EU dates; i18n").map(|(_, w)| w),
            None
        );
    }

    #[test]
    fn phrases_match_at_word_starts() {
        assert!(contains_phrase("use when asked", "when"));
        assert!(!contains_phrase("somewhen", "when"));
        assert!(contains_phrase("only if x", "if "));
        assert!(!contains_phrase("gif files", "if "));
    }
}
