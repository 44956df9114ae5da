//! `.skill` archives: which files go in ([`select`]), the deterministic writer ([`archive`]),
//! and safe extraction ([`extract`]). Format: `docs/architecture.md` §5.

pub mod archive;
pub mod build;
pub mod central;
pub mod extract;
pub mod select;
pub mod tar;

/// Whether `name` can name a skill's folder wherever an archive is unpacked or installed: the
/// spec's name format (lowercase ASCII letters, digits and single hyphens, at most 64
/// characters, no hyphen at either end), and not a name Windows reserves for a device (`con`,
/// `nul`, `com1`…). So `.git`, `.ssh`, `-rf` and `CON` never become folders.
pub fn valid_skill_name(name: &str) -> bool {
    let format = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    format && !is_windows_device(name)
}

/// Why `part` (one component of a path inside a skill) is not safe as a file or folder name on
/// every system an archive may be unpacked on, if it is not: a colon (a drive, `C:x`, or an
/// NTFS stream), a character Windows forbids in names (`<>"|?*`), a name Windows reserves for a
/// device (`con`, `nul.txt`), or a trailing dot or space (which Windows drops, so `.git.` is
/// `.git` there). Letters of every script, marks, quotes and symbols are fine everywhere.
pub(crate) fn unportable(part: &str) -> Option<&'static str> {
    if part.contains(':') {
        Some("a colon")
    } else if part.contains(['<', '>', '"', '|', '?', '*']) {
        Some("a character Windows forbids in file names (one of <>\"|?*)")
    } else if part != "." && part != ".." && (part.ends_with('.') || part.ends_with(' ')) {
        Some("a trailing dot or space")
    } else if is_windows_device(part.split('.').next().unwrap_or(part)) {
        Some("a name Windows reserves for a device")
    } else {
        None
    }
}

/// `con`, `prn`, `aux`, `nul`, `com0`-`com9` and `lpt0`-`lpt9`: Windows opens the device
/// whatever the folder.
fn is_windows_device(name: &str) -> bool {
    let lower = name.trim_end_matches([' ', '.']).to_ascii_lowercase();
    matches!(lower.as_str(), "con" | "prn" | "aux" | "nul")
        || (lower.len() == 4
            && (lower.starts_with("com") || lower.starts_with("lpt"))
            && lower.as_bytes()[3].is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::valid_skill_name;

    #[test]
    fn unportable_names() {
        for bad in [
            "C:", "C:x", "a:b", "x.", "x ", "CON", "nul.txt", "com1.md", "lpt9",
        ] {
            assert!(super::unportable(bad).is_some(), "{bad}");
        }
        for good in ["SKILL.md", "a.b", "con1", "console.md", ".git", "..", "."] {
            assert!(super::unportable(good).is_none(), "{good}");
        }
    }

    /// Windows' forbidden characters are refused; names in any script, with marks, quotes or
    /// symbols, are not (Go's dirhash, whose `h1:` digest skillpkg computes, refuses only a line
    /// break, which no name here can hold).
    #[test]
    fn windows_forbidden_characters_and_nothing_more() {
        for bad in ["a?b.md", "a*b", "a<b", "a>b", "a|b", "say \"hi\".md", "C:x"] {
            assert!(super::unportable(bad).is_some(), "{bad:?}");
        }
        for good in [
            "O'Reilly notes.md",
            "cafe\u{301}.md",
            "\u{939}\u{93f}\u{902}\u{926}\u{940}.md",
            "\u{65e5}\u{672c}\u{8a9e}\u{30fb}\u{30e1}\u{30e2}.md",
            "notes \u{2014} draft.md",
            "a b.md",
            "x+y=z (1) [draft] {v2} ~ok~ #1 @me & 100% ^_^ !.md",
        ] {
            assert!(super::unportable(good).is_none(), "{good:?}");
        }
    }

    #[test]
    fn folder_names_are_the_spec_s_and_never_special() {
        for good in ["pdf", "pdf-forms", "a1", "com", "console", "com10"] {
            assert!(valid_skill_name(good), "{good}");
        }
        let long = "a".repeat(65);
        for bad in [
            "", ".git", ".ssh", "-rf", "CON", "con", "nul", "com1", "lpt9", "a--b", "a-", "A",
            "a_b", "a/b", "..", &long,
        ] {
            assert!(!valid_skill_name(bad), "{bad}");
        }
    }
}
