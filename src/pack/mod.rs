//! `.skill` archives: which files go in ([`select`]), the deterministic writer ([`archive`]),
//! and safe extraction ([`extract`]). Format: `docs/architecture.md` §5.

pub mod archive;
pub mod build;
pub mod central;
pub mod extract;
pub mod select;

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
/// NTFS stream), a name Windows reserves for a device (`con`, `nul.txt`), a trailing dot or
/// space (which Windows drops, so `.git.` is `.git` there), or a character outside the ones
/// Go's module zips allow (`module.CheckFilePath`, whose `h1:` digest the content digest is):
/// letters of any script, digits, space and `!#$%&()+,-.=@[]^_{}~`. That leaves out what
/// Windows forbids (`"*<>?|\`), quotes and backticks that shells trip on, control characters,
/// and symbols, emoji and combining marks (write `é`, not `e` and U+0301).
pub(crate) fn unportable(part: &str) -> Option<&'static str> {
    if part.contains(':') {
        Some("a colon")
    } else if part.chars().any(|c| !go_file_name_char(c)) {
        Some("a character other than letters, digits, spaces and !#$%&()+,-.=@[]^_{}~")
    } else if part != "." && part != ".." && (part.ends_with('.') || part.ends_with(' ')) {
        Some("a trailing dot or space")
    } else if is_windows_device(part.split('.').next().unwrap_or(part)) {
        Some("a name Windows reserves for a device")
    } else {
        None
    }
}

/// Go's `fileNameOK`: an ASCII letter, digit, space or one of `!#$%&()+,-.=@[]^_{}~`, or a
/// letter (general category L) of any other script.
fn go_file_name_char(c: char) -> bool {
    use unicode_general_category::{GeneralCategory, get_general_category};
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || "!#$%&()+,-.=@[]^_{}~ ".contains(c);
    }
    matches!(
        get_general_category(c),
        GeneralCategory::UppercaseLetter
            | GeneralCategory::LowercaseLetter
            | GeneralCategory::TitlecaseLetter
            | GeneralCategory::ModifierLetter
            | GeneralCategory::OtherLetter
    )
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

    /// Every file path Go's `module.CheckFilePath` refuses (`golang.org/x/mod` `module_test.go`'s
    /// table, the rows marked bad for files), split into parts as skillpkg checks them, is
    /// refused; the good rows pass, except where skillpkg is stricter on purpose (a trailing
    /// space or `COM0`, which Windows mangles).
    #[test]
    fn go_module_file_path_rules() {
        let refused = |path: &str| {
            path.split('/')
                .any(|part| super::unportable(part).is_some())
        };
        for bad in [
            "x./z",
            "x.y\"/z",
            "x.y'/z",
            "x.y*/z",
            "x.y./zt",
            "x.y:/z",
            "x.y;/z",
            "x.y</z",
            "x.y>/z",
            "x.y?/z",
            "x.y\\/z",
            "x.y`/z",
            "x.y/z\"",
            "x.y/z'",
            "x.y/z*",
            "x.y/z:",
            "x.y/z;",
            "x.y/z<",
            "x.y/z>",
            "x.y/z?",
            "x.y/z\\",
            "x.y/z`",
            "x.y/aux.foo",
            "x.y/prn",
            "x.y/com1",
            "x.y/com1.txt",
            "x:y",
            "\\temp\\foo",
            "x\u{263a}y",
            "cafe\u{301}",
            "a\tb",
            "x\u{a0}y",
            "x\u{200b}y",
            "\u{1f600}.md",
        ] {
            assert!(refused(bad), "{bad:?}");
        }
        for good in [
            "x.y/z",
            "x.y",
            ".x/z",
            "-x/z",
            "x..y/z",
            "X.y/z",
            "!x.y/z",
            "_x.y/z",
            "x.y!/z",
            "x.y#/z",
            "x.y$/z",
            "x.y%/z",
            "x.y&/z",
            "x.y(/z",
            "x.y)/z",
            "x.y+/z",
            "x.y,/z",
            "x.y-/z",
            "x.y=/z",
            "x.y@/z",
            "x.y[/z",
            "x.y]/z",
            "x.y^/z",
            "x.y_/z",
            "x.y{/z",
            "x.y}/z",
            "x.y~/z",
            "x.y/z++",
            "x.y/x.foo",
            "x.y/prn2",
            "x.y/com",
            "x.y/calm1",
            "x.y/z~0",
            "x.y/z09~09z",
            "github.com/!123/logrus",
            "github.com/user/unicode/\u{438}\u{441}\u{43f}\u{44b}\u{442}\u{430}\u{43d}\u{438}\u{435}",
            ".gitignore",
            ".github/ISSUE_TEMPLATE",
            "caf\u{e9}.md",
            "a b.md",
        ] {
            assert!(!refused(good), "{good:?}");
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
