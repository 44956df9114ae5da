//! Finding the YAML frontmatter in a `SKILL.md`, the way each reader does it.
//!
//! skillpkg reads a skill the way the format is meant to be read: the first line is exactly
//! `---` (trailing blanks allowed) and the frontmatter ends at the next line that is exactly
//! `---`. Real readers are sloppier. Claude Code and the reference validator `skills-ref` end the
//! frontmatter at the first `---` *anywhere*, even inside a quoted value, and `skills-ref` accepts
//! any first line that merely starts with `---`. To say what those agents will see, the splitter
//! takes the reader as a parameter instead of hard-coding one rule.

use std::ops::Range;

/// How a reader delimits the frontmatter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Delimiters {
    /// skillpkg and the open spec: whole `---` lines.
    WholeLine,
    /// Claude Code: an opening `---` line, closed by the first `---` anywhere after it.
    FirstDashes,
    /// `skills-ref`: the file starts with `---`; `content.split("---", 2)` does the rest.
    PythonSplit,
}

/// A reader of `SKILL.md`: where it looks for delimiters and whether a BOM hides them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reader {
    pub delimiters: Delimiters,
    /// The reader does not strip a UTF-8 byte-order mark, so a file that starts with one has no
    /// frontmatter for it.
    pub bom_hides_frontmatter: bool,
}

impl Reader {
    /// skillpkg's own reading.
    pub(crate) const SKILLPKG: Self = Self {
        delimiters: Delimiters::WholeLine,
        bom_hides_frontmatter: false,
    };
}

/// The frontmatter as one reader sees it. All ranges are byte offsets in the normalised text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The opening `---` (without its line ending).
    pub open: Range<usize>,
    /// The YAML text between the delimiters.
    pub yaml: Range<usize>,
    /// The closing `---` as this reader found it; possibly in the middle of a line.
    pub close: Range<usize>,
    /// Where the Markdown body starts.
    pub body: usize,
}

/// The outcome of looking for frontmatter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Split {
    Found(Region),
    /// The file does not start with an opening delimiter.
    Missing,
    /// An opening delimiter but no closing one.
    Unclosed {
        open: Range<usize>,
    },
}

/// Finds the frontmatter in `text` as `reader` does. `had_bom` says whether the original file
/// started with a byte-order mark (already stripped from `text`).
pub fn split(text: &str, had_bom: bool, reader: Reader) -> Split {
    if had_bom && reader.bom_hides_frontmatter {
        return Split::Missing;
    }
    match reader.delimiters {
        Delimiters::WholeLine => split_whole_line(text),
        Delimiters::FirstDashes => split_first_dashes(text),
        Delimiters::PythonSplit => split_python(text),
    }
}

/// Whether `line` is a `---` delimiter line: three dashes, then only spaces or tabs.
fn is_delimiter_line(line: &str) -> bool {
    line.trim_end_matches([' ', '\t']) == "---"
}

fn first_line(text: &str) -> (&str, usize) {
    match text.find('\n') {
        Some(end) => (&text[..end], end + 1),
        None => (text, text.len()),
    }
}

fn split_whole_line(text: &str) -> Split {
    let (first, yaml_start) = first_line(text);
    if !is_delimiter_line(first) {
        return Split::Missing;
    }
    let open = 0..3;
    let mut line_start = yaml_start;
    while line_start < text.len() {
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i);
        if is_delimiter_line(&text[line_start..line_end]) {
            return Split::Found(Region {
                open,
                yaml: yaml_start..line_start,
                close: line_start..line_start + 3,
                body: (line_end + 1).min(text.len()),
            });
        }
        line_start = line_end + 1;
    }
    Split::Unclosed { open }
}

fn split_first_dashes(text: &str) -> Split {
    let (first, yaml_start) = first_line(text);
    // Claude Code's opening is `^---\s*\n`: dashes, whitespace, a line break.
    if first.trim_end() != "---" || !text[..yaml_start].ends_with('\n') {
        return Split::Missing;
    }
    let open = 0..3;
    match text[yaml_start..].find("---") {
        Some(at) => {
            let close = yaml_start + at..yaml_start + at + 3;
            Split::Found(Region {
                open,
                yaml: yaml_start..close.start,
                body: close.end,
                close,
            })
        }
        None => Split::Unclosed { open },
    }
}

fn split_python(text: &str) -> Split {
    if !text.starts_with("---") {
        return Split::Missing;
    }
    let open = 0..3;
    match text[3..].find("---") {
        Some(at) => {
            let close = 3 + at..6 + at;
            Split::Found(Region {
                open,
                yaml: 3..close.start,
                body: close.end,
                close,
            })
        }
        None => Split::Unclosed { open },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE_CODE: Reader = Reader {
        delimiters: Delimiters::FirstDashes,
        bom_hides_frontmatter: false,
    };
    const SKILLS_REF: Reader = Reader {
        delimiters: Delimiters::PythonSplit,
        bom_hides_frontmatter: true,
    };

    fn found(text: &str, reader: Reader) -> Region {
        match split(text, false, reader) {
            Split::Found(frontmatter) => frontmatter,
            other => panic!("expected frontmatter, got {other:?}"),
        }
    }

    #[test]
    fn whole_line_delimiters_allow_trailing_blanks() {
        let text = "--- \nname: a\n---\t\nbody\n";
        let frontmatter = found(text, Reader::SKILLPKG);
        assert_eq!(&text[frontmatter.yaml.clone()], "name: a\n");
        assert_eq!(&text[frontmatter.body..], "body\n");
    }

    #[test]
    fn whole_line_ignores_dashes_inside_values() {
        let text = "---\ndescription: \"a --- b\"\n---\n";
        let frontmatter = found(text, Reader::SKILLPKG);
        assert_eq!(&text[frontmatter.yaml], "description: \"a --- b\"\n");
    }

    #[test]
    fn agents_cut_at_the_first_dashes() {
        let text = "---\ndescription: \"a --- b\"\n---\n";
        let claude_code = found(text, CLAUDE_CODE);
        assert_eq!(&text[claude_code.yaml], "description: \"a ");
        let skills_ref = found(text, SKILLS_REF);
        assert_eq!(&text[skills_ref.yaml], "\ndescription: \"a ");
        assert_eq!(&text[skills_ref.body..], " b\"\n---\n");
    }

    #[test]
    fn missing_and_unclosed() {
        assert_eq!(split("# title\n", false, Reader::SKILLPKG), Split::Missing);
        assert_eq!(split("\n---\n", false, Reader::SKILLPKG), Split::Missing);
        assert_eq!(
            split("---\nname: a\n", false, Reader::SKILLPKG),
            Split::Unclosed { open: 0..3 }
        );
        assert_eq!(
            split("---", false, Reader::SKILLPKG),
            Split::Unclosed { open: 0..3 }
        );
        assert_eq!(
            split("---\nname: a\n----\n", false, Reader::SKILLPKG),
            Split::Unclosed { open: 0..3 }
        );
    }

    #[test]
    fn python_split_accepts_a_dirty_opening_line() {
        let text = "---yaml\nname: a\n---\n";
        let frontmatter = found(text, SKILLS_REF);
        assert_eq!(&text[frontmatter.yaml], "yaml\nname: a\n");
        assert_eq!(split(text, false, Reader::SKILLPKG), Split::Missing);
    }

    #[test]
    fn a_bom_hides_frontmatter_only_from_readers_that_keep_it() {
        assert_eq!(split("---\n---\n", true, SKILLS_REF), Split::Missing);
        assert!(matches!(
            split("---\n---\n", true, CLAUDE_CODE),
            Split::Found(_)
        ));
    }
}
