//! Claude Code 2.1.332's text clean-up of what it lists: Bun's ANSI stripping, the runs of
//! invisible characters that become one space (keeping the joiners of emoji and of Indic and
//! Arabic script), and `<`/`>` escaping (JavaScript's own rules are in `agent::js`). Ground truth: `docs/research/claude-code-conformance.md` §3, each
//! rule recorded against the real binary.

use unicode_general_category::{GeneralCategory, get_general_category};

/// The clean-up of a description, a `when_to_use` or a fallback line: ANSI escapes stripped,
/// each run of invisible characters made one space (joiners inside emoji and Indic or Arabic
/// words kept), then `<` and `>` escaped. Nothing is trimmed here.
pub(crate) fn sanitise(text: &str) -> String {
    let plain = strip_ansi(text);
    let marked = protected(&plain);
    let mut out = String::with_capacity(plain.len());
    let mut run = String::new();
    let mut in_run = false;
    for (index, c) in plain.chars().enumerate() {
        if is_invisible(c) {
            if !in_run {
                run.clear();
                in_run = true;
            }
            if marked.get(index).copied().unwrap_or(false) {
                run.push(c);
            } else if !run.ends_with(' ') {
                run.push(' ');
            }
            continue;
        }
        if in_run {
            out.push_str(&run);
            in_run = false;
        }
        out.push(c);
    }
    if in_run {
        out.push_str(&run);
    }
    escape(&out)
}

/// `<` and `>` as entities; nothing else is escaped.
pub(crate) fn escape(text: &str) -> String {
    text.replace('<', "&lt;").replace('>', "&gt;")
}

/// Characters that Claude Code turns into spaces: every control, format, surrogate, private-use
/// and unassigned character, the line and paragraph separators, and a list of other invisible
/// ones (fillers, variation selectors, the Braille blank…).
pub(crate) fn is_invisible(c: char) -> bool {
    if matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::Surrogate
            | GeneralCategory::PrivateUse
            | GeneralCategory::Unassigned
    ) {
        return true;
    }
    matches!(
        u32::from(c),
        0x2028 | 0x2029
            | 0x00AD
            | 0x034F
            | 0x061C
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFFB
            | 0x1107F
            | 0x13430..=0x1343F
            | 0x16FE4
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
            | 0x2800
    )
}

/// The longest text (in UTF-16 units) whose joiners are looked at; longer texts lose them all.
const MAX_PROTECTED_UNITS: usize = 4096;

/// Which characters (by index) are kept inside a run: those of RGI emoji, and the joiners of
/// Indic conjuncts and of Arabic words. Only looked at in texts of at most 4,096 UTF-16 units
/// that hold a joiner (ZWNJ, ZWJ, VS16 or the tag terminator).
fn protected(text: &str) -> Vec<bool> {
    let units: usize = text.chars().map(char::len_utf16).sum();
    if units > MAX_PROTECTED_UNITS
        || !text.contains(['\u{200c}', '\u{200d}', '\u{fe0f}', '\u{e007f}'])
    {
        return Vec::new();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut marked = vec![false; chars.len()];
    // Emoji: from each position, the longest RGI emoji that starts there (as a regular
    // expression's `\p{RGI_Emoji}` scans), then on after it.
    let mut at = 0;
    let mut piece = String::new();
    while at < chars.len() {
        let mut matched = 0;
        for length in (1..=MAX_EMOJI_CHARS.min(chars.len() - at)).rev() {
            piece.clear();
            piece.extend(&chars[at..at + length]);
            if is_rgi(&piece) {
                matched = length;
                break;
            }
        }
        if matched > 0 {
            marked[at..at + matched].fill(true);
            at += matched;
        } else {
            at += 1;
        }
    }
    for (at, &c) in chars.iter().enumerate() {
        if !matches!(c, '\u{200c}' | '\u{200d}') || at == 0 {
            continue;
        }
        let before = chars[at - 1];
        let after = chars.get(at + 1).copied();
        let indic = virama_script(before).is_some_and(|script| {
            let consonant = chars[..at - 1]
                .iter()
                .rev()
                .find(|&&b| !is_nukta(b))
                .copied();
            consonant.is_some_and(|k| in_script(k, script) && is_letter(k))
                && after.is_some_and(|a| in_script(a, script) && is_letter(a))
        });
        let sinhala = c == '\u{200d}'
            && before == '\u{0dca}'
            && at >= 2
            && is_sinhala_consonant(chars[at - 2])
            && after.is_some_and(is_sinhala_consonant);
        let arabic =
            c == '\u{200c}' && is_arabic_letter(before) && after.is_some_and(is_arabic_letter);
        if indic || sinhala || arabic {
            marked[at] = true;
        }
    }
    marked
}

/// The most code points in one RGI emoji (a family of four with skin tones has 11).
const MAX_EMOJI_CHARS: usize = 16;

fn is_rgi(text: &str) -> bool {
    emojis::get(text).is_some_and(|emoji| emoji.as_str() == text)
}

/// The script block of a virama (Devanagari, Bengali, Gujarati, Oriya, Telugu, Kannada,
/// Malayalam), as the block's first code point.
fn virama_script(c: char) -> Option<u32> {
    match c {
        '\u{094d}' => Some(0x0900),
        '\u{09cd}' => Some(0x0980),
        '\u{0acd}' => Some(0x0a80),
        '\u{0b4d}' => Some(0x0b00),
        '\u{0c4d}' => Some(0x0c00),
        '\u{0ccd}' => Some(0x0c80),
        '\u{0d4d}' => Some(0x0d00),
        _ => None,
    }
}

fn is_nukta(c: char) -> bool {
    matches!(
        c,
        '\u{093c}'
            | '\u{09bc}'
            | '\u{0abc}'
            | '\u{0b3c}'
            | '\u{0c3c}'
            | '\u{0cbc}'
            | '\u{094d}'
            | '\u{09cd}'
            | '\u{0acd}'
            | '\u{0b4d}'
            | '\u{0c4d}'
            | '\u{0ccd}'
            | '\u{0d4d}'
    )
}

fn in_script(c: char, block: u32) -> bool {
    (block..block + 0x80).contains(&u32::from(c))
}

fn is_letter(c: char) -> bool {
    get_general_category(c) == GeneralCategory::OtherLetter
}

fn is_sinhala_consonant(c: char) -> bool {
    ('\u{0d9a}'..='\u{0dc6}').contains(&c)
}

fn is_arabic_letter(c: char) -> bool {
    matches!(u32::from(c), 0x0620..=0x064A | 0x066E..=0x06D3 | 0x06D5 | 0x06EE..=0x06FF | 0x0750..=0x077F)
        && is_letter(c)
}

/// Bun's `stripANSI`: CSI (`ESC [` or U+009B) up to its final byte; OSC (`ESC ]` or U+009D) up
/// to BEL, `ESC \` or U+009C; DCS, SOS, PM and APC (`ESC P X ^ _` or their C1 forms) up to
/// `ESC \` or U+009C only; `ESC`, intermediates and a final byte; and a lone `ESC` before
/// anything else. An unterminated sequence takes the rest of the text.
pub(crate) fn strip_ansi(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let next = chars.get(at + 1).copied();
        let (kind, body) = match (c, next) {
            ('\u{1b}', Some('[')) | ('\u{9b}', _) => {
                (Kind::Csi, at + if c == '\u{9b}' { 1 } else { 2 })
            }
            ('\u{1b}', Some(']')) | ('\u{9d}', _) => {
                (Kind::Osc, at + if c == '\u{9d}' { 1 } else { 2 })
            }
            ('\u{1b}', Some('P' | 'X' | '^' | '_')) => (Kind::String, at + 2),
            ('\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}', _) => (Kind::String, at + 1),
            ('\u{1b}', _) => (Kind::Escape, at + 1),
            _ => {
                out.push(c);
                at += 1;
                continue;
            }
        };
        at = match kind {
            Kind::Csi => chars[body..]
                .iter()
                .position(|c| ('@'..='~').contains(c))
                .map_or(chars.len(), |end| body + end + 1),
            Kind::Osc | Kind::String => {
                let mut end = chars.len();
                let mut i = body;
                while i < chars.len() {
                    let c = chars[i];
                    if (kind == Kind::Osc && c == '\u{7}') || c == '\u{9c}' {
                        end = i + 1;
                        break;
                    }
                    if c == '\u{1b}' && chars.get(i + 1) == Some(&'\\') {
                        end = i + 2;
                        break;
                    }
                    i += 1;
                }
                end
            }
            Kind::Escape => {
                let mut i = body;
                while chars.get(i).is_some_and(|c| (' '..='/').contains(c)) {
                    i += 1;
                }
                match chars.get(i) {
                    Some(c) if ('0'..='~').contains(c) => i + 1,
                    // Only the ESC goes.
                    _ => body,
                }
            }
        };
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Csi,
    Osc,
    String,
    Escape,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_is_stripped_as_bun_strips_it() {
        for (input, output) in [
            ("a\u{1b}[31mb", "ab"),
            ("a\u{1b}]0;title\u{7}b", "ab"),
            ("a\u{1b}b", "a"),
            ("a\u{1b}Pq\u{7}b", "a"),
            ("a\u{1b}(Bb", "ab"),
            ("a\u{1b}#8b", "ab"),
            ("a\u{1b} b", "a"),
            ("a\u{1b}ébc", "aébc"),
            ("a\u{1b}\nb", "a\nb"),
            ("a\u{1b}\u{1b}[31mb", "ab"),
            ("a\u{9b}12", "a"),
            ("a\u{9b}b c", "a c"),
            ("a\u{1b}[12;3 tail", "aail"),
        ] {
            assert_eq!(strip_ansi(input), output, "{input:?}");
        }
    }

    #[test]
    fn runs_become_one_space_but_emoji_keep_their_joiners() {
        for (input, output) in [
            ("a \u{1} b", "a   b"),
            ("a\u{200b}\u{200b}b", "a b"),
            (
                "\u{200b}👨\u{200d}👩\u{200d}👧\u{200b}",
                " 👨\u{200d}👩\u{200d}👧 ",
            ),
            ("🐱\u{200d}🚀", "🐱 🚀"),
            ("❤\u{fe0f} love", "❤\u{fe0f} love"),
            ("a\u{fe0f}b", "a b"),
            ("1\u{fe0f}\u{20e3}", "1\u{fe0f}\u{20e3}"),
            (
                "👨\u{200d}👩\u{200d}👧\u{200d}✌\u{fe0e} x",
                "👨\u{200d}👩\u{200d}👧 ✌  x",
            ),
            ("a\u{e000}b\u{fdd0}c", "a b c"),
            ("x < y", "x &lt; y"),
            ("क्\u{200d}ष", "क्\u{200d}ष"),
            ("a\u{a0}b", "a\u{a0}b"),
        ] {
            assert_eq!(sanitise(input), output, "{input:?}");
        }
        let long = format!("{}👨\u{200d}👩\u{200d}👧", "a".repeat(4096));
        assert!(sanitise(&long).ends_with("👨 👩 👧"));
    }
}
