//! Rules about the skill file itself: its name, its encoding, a byte-order mark.

use crate::agent::{Family, Target};
use crate::check::diagnostic::Diagnostic;
use crate::check::rule::{BROKEN_SKILL_LINK, INVALID_UTF8, SKILL_FILE_NAME, UTF8_BOM};
use crate::skill::text::{InvalidUtf8, SourceText};
use crate::skill::{FileName, Skill};

pub(super) fn check_file_name(skill: &Skill, target: Target, out: &mut Vec<Diagnostic>) {
    match &skill.file_name {
        FileName::Exact => {}
        FileName::Lowercase => {
            let note = if target.family() == Family::SkillsRef {
                "skills-ref accepts `skill.md`, but Claude Code and most agents look for `SKILL.md` and never see this file on case-sensitive file systems (Linux, CI runners)"
            } else {
                "agents look for `SKILL.md`; on case-sensitive file systems (Linux, CI runners) they never see `skill.md`"
            };
            out.push(
                Diagnostic::warning(
                    &SKILL_FILE_NAME,
                    "the skill file is named `skill.md`, not `SKILL.md`",
                )
                .note(note)
                .help("rename it to `SKILL.md`"),
            );
        }
        FileName::OtherCase(name) => out.push(
            Diagnostic::error(
                &SKILL_FILE_NAME,
                format!("the skill file is named `{name}`; agents only find `SKILL.md`"),
            )
            .help("rename it to `SKILL.md`"),
        ),
    }
}

/// A skill file that is a link to `target`, which leads to no regular file.
pub(super) fn broken_link(target: &str) -> Diagnostic {
    Diagnostic::error(
        &BROKEN_SKILL_LINK,
        format!("the skill file is a symbolic link to `{target}`, which is not a file"),
    )
    .note("agents follow the link, find nothing and skip the skill")
    .help("point the link at the skill's SKILL.md, or remove the skill's folder")
}

pub(super) fn invalid_utf8(invalid: &InvalidUtf8) -> Diagnostic {
    let source = &invalid.lossy;
    // Point at the replacement character that stands for the first bad byte.
    let start = source.line_range(invalid.position.line).start
        + source
            .line(invalid.position.line)
            .chars()
            .take(invalid.position.column - 1)
            .map(char::len_utf8)
            .sum::<usize>();
    let end = source.text()[start..]
        .chars()
        .next()
        .map_or(start, |c| start + c.len_utf8());
    let help = if invalid.utf16 {
        "the file is UTF-16; save it as UTF-8"
    } else {
        "save the file as UTF-8 (it looks like a legacy encoding such as Windows-1252)"
    };
    Diagnostic::error(
        &INVALID_UTF8,
        format!(
            "SKILL.md is not valid UTF-8: invalid byte sequence at byte {}",
            invalid.offset
        ),
    )
    .at(start..end)
    .label("not UTF-8")
    .help(help)
}

pub(super) fn check_bom(source: &SourceText, target: Target, out: &mut Vec<Diagnostic>) {
    if !source.had_bom() {
        return;
    }
    let diagnostic = if target.bom_is_fatal() {
        Diagnostic::error(
            &UTF8_BOM,
            format!(
                "SKILL.md starts with a UTF-8 byte-order mark: {} sees no frontmatter",
                target.display()
            ),
        )
    } else {
        Diagnostic::warning(&UTF8_BOM, "SKILL.md starts with a UTF-8 byte-order mark").note(
            "skills-ref, Anthropic's packager and claude.ai uploads see no frontmatter after it",
        )
    };
    out.push(
        diagnostic
            .at(0..3.min(source.text().len()))
            .label("a byte-order mark precedes this")
            .help("save the file as UTF-8 without a byte-order mark"),
    );
}
