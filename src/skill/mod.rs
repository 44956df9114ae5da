//! Skills on disk: finding them, reading them once, and seeing them as each agent does.
//!
//! Every command starts from a [`Skill`]: the bytes of one `SKILL.md`, decoded and normalised
//! once ([`text`]), split into frontmatter and body ([`frontmatter`]), the frontmatter parsed into
//! a span-keeping YAML tree ([`yaml`]) and a typed document ([`model`]). Agents disagree on
//! where the frontmatter ends, so a skill can also be read as a given agent reads it
//! ([`Skill::reading_as`]); when that agent sees the same text as skillpkg, the parse is shared.

pub mod discover;
pub mod frontmatter;
pub mod model;
pub mod secrets;
pub mod text;
pub mod yaml;

use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use frontmatter::{Reader, Region, Split};
use model::SkillDoc;
use text::{InvalidUtf8, SourceText};
use yaml::{Yaml, YamlError};

/// How the skill file is spelt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileName {
    /// `SKILL.md`.
    Exact,
    /// `skill.md`: found by skills-ref and case-insensitive file systems only.
    Lowercase,
    /// Any other spelling, such as `Skill.md`.
    OtherCase(String),
}

impl FileName {
    /// Classifies a file name; `None` if it is not a spelling of `SKILL.md` at all.
    pub(crate) fn classify(name: &OsStr) -> Option<Self> {
        let name = name.to_str()?;
        if name == "SKILL.md" {
            Some(Self::Exact)
        } else if name == "skill.md" {
            Some(Self::Lowercase)
        } else if name.eq_ignore_ascii_case("skill.md") {
            Some(Self::OtherCase(name.to_owned()))
        } else {
            None
        }
    }
}

/// One reader's view of a `SKILL.md`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    pub reader: Reader,
    pub split: Split,
    /// The parsed frontmatter, when the split found one.
    pub yaml: Option<Result<Yaml, YamlError>>,
    /// The typed frontmatter, when the YAML parsed into a mapping.
    pub doc: Option<SkillDoc>,
}

impl Reading {
    /// Reads `source` as `reader` does.
    pub fn new(source: &SourceText, reader: Reader) -> Self {
        let split = frontmatter::split(source.text(), source.had_bom(), reader);
        let yaml = match &split {
            Split::Found(region) => Some(yaml::parse(source.text(), region.yaml.clone())),
            Split::Missing | Split::Unclosed { .. } => None,
        };
        let doc = match &yaml {
            Some(Ok(yaml)) => SkillDoc::from_yaml(yaml),
            _ => None,
        };
        Self {
            reader,
            split,
            yaml,
            doc,
        }
    }

    /// The frontmatter region, if found.
    pub fn region(&self) -> Option<&Region> {
        match &self.split {
            Split::Found(region) => Some(region),
            Split::Missing | Split::Unclosed { .. } => None,
        }
    }
}

/// One `SKILL.md`, read once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skill {
    /// The folder that holds the skill file.
    pub dir: PathBuf,
    /// The skill file.
    pub path: PathBuf,
    pub file_name: FileName,
    /// The folder's own name, as agents compare it with `name`.
    pub dir_name: String,
    content: Content,
    /// The SHA-256 of the file's bytes: two skills with the same digest are copies of one.
    digest: [u8; 32],
    /// When the skill file is a symbolic link that leads to no regular file: what the link
    /// says. Such a skill has no text.
    broken_link: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Content {
    Text {
        source: SourceText,
        reading: Box<Reading>,
    },
    NotUtf8(Box<InvalidUtf8>),
}

impl Skill {
    /// Builds a skill from the bytes of its file.
    ///
    /// `dir_name` is the name of the folder as the author sees it; pass it explicitly because
    /// `dir` may be `.` or relative.
    pub fn from_bytes(path: PathBuf, dir_name: String, bytes: Vec<u8>) -> Self {
        let file_name = path
            .file_name()
            .and_then(FileName::classify)
            .unwrap_or(FileName::Exact);
        let dir = parent_dir(&path).to_path_buf();
        let digest = <sha2::Sha256 as sha2::Digest>::digest(&bytes).into();
        let content = match SourceText::decode(bytes) {
            Ok(source) => {
                let reading = Box::new(Reading::new(&source, Reader::SKILLPKG));
                Content::Text { source, reading }
            }
            Err(invalid) => Content::NotUtf8(invalid),
        };
        Self {
            dir,
            path,
            file_name,
            dir_name,
            content,
            digest,
            broken_link: None,
        }
    }

    /// A skill whose file is a symbolic link to `target`, which is missing (or is no regular
    /// file): agents skip it, and `validate` reports it.
    pub(crate) fn broken_link(path: PathBuf, dir_name: String, target: String) -> Self {
        let mut skill = Self::from_bytes(path, dir_name, Vec::new());
        skill.broken_link = Some(target);
        skill
    }

    /// What the skill file's link says, when it leads to no regular file.
    pub(crate) fn link_target(&self) -> Option<&str> {
        self.broken_link.as_deref()
    }

    /// The SHA-256 of the skill file's bytes.
    pub(crate) fn digest(&self) -> &[u8; 32] {
        &self.digest
    }

    /// Reads the skill file at `path` from disk.
    pub fn load(path: &Path) -> std::io::Result<Self> {
        let dir_name = folder_name(parent_dir(path));
        Ok(match read_skill_file(path)? {
            Ok(bytes) => Self::from_bytes(path.to_path_buf(), dir_name, bytes),
            Err(target) => Self::broken_link(path.to_path_buf(), dir_name, target),
        })
    }

    /// The decoded text, or why it could not be decoded.
    pub fn source(&self) -> Result<&SourceText, &InvalidUtf8> {
        match &self.content {
            Content::Text { source, .. } => Ok(source),
            Content::NotUtf8(invalid) => Err(invalid),
        }
    }

    /// The text to show in reports: the decoded text, or a lossy decoding of invalid bytes.
    pub(crate) fn display_source(&self) -> &SourceText {
        match &self.content {
            Content::Text { source, .. } => source,
            Content::NotUtf8(invalid) => &invalid.lossy,
        }
    }

    /// skillpkg's own reading, if the file is UTF-8.
    pub fn reading(&self) -> Option<&Reading> {
        match &self.content {
            Content::Text { reading, .. } => Some(reading),
            Content::NotUtf8(_) => None,
        }
    }

    /// The skill as `reader` sees it. Shares skillpkg's parse when `reader` finds the same
    /// frontmatter text.
    pub(crate) fn reading_as(&self, reader: Reader) -> Option<Cow<'_, Reading>> {
        let Content::Text { source, reading } = &self.content else {
            return None;
        };
        if reader == reading.reader {
            return Some(Cow::Borrowed(reading));
        }
        let split = frontmatter::split(source.text(), source.had_bom(), reader);
        let same = match (&split, &reading.split) {
            (Split::Found(theirs), Split::Found(ours)) => {
                theirs.close.start == ours.close.start
                    && theirs.yaml.start <= ours.yaml.start
                    && source.text()[theirs.yaml.start..ours.yaml.start]
                        .trim()
                        .is_empty()
            }
            (Split::Missing, Split::Missing) | (Split::Unclosed { .. }, Split::Unclosed { .. }) => {
                true
            }
            _ => false,
        };
        if same {
            let mut shared = (**reading).clone();
            shared.reader = reader;
            shared.split = split;
            return Some(Cow::Owned(shared));
        }
        Some(Cow::Owned(Reading::new(source, reader)))
    }

    /// The Markdown body as `reading` sees it (empty once the text was released).
    pub fn body<'a>(&'a self, reading: &Reading) -> &'a str {
        let Ok(source) = self.source() else {
            return "";
        };
        let text = source.text();
        match &reading.split {
            Split::Found(region) => text.get(region.body..).unwrap_or_default(),
            Split::Missing | Split::Unclosed { .. } => text,
        }
    }

    /// Drops the lines of the body that no range of `keep` touches, the parsed YAML tree and
    /// the typed fields the rules across skills do not read ([`SkillDoc::keep_set_fields`]),
    /// once a command no longer needs them: reports read the lines their findings point at, and
    /// the rules across skills a few fields of the frontmatter. Ten thousand skills' texts and
    /// trees are most of `lint`'s memory.
    pub(crate) fn release_body(&mut self, keep: &[std::ops::Range<usize>]) {
        if let Content::Text { source, reading } = &mut self.content {
            reading.yaml = None;
            if let Some(doc) = &mut reading.doc {
                doc.keep_set_fields();
            }
            let frontmatter_end = match &reading.split {
                Split::Found(region) => region.close.end,
                Split::Missing | Split::Unclosed { .. } => 0,
            };
            let mut keep = keep.to_vec();
            keep.push(0..frontmatter_end);
            source.keep_lines(&keep);
        }
    }
}

/// The largest skill file skillpkg reads: 1 MiB is over 250,000 tokens, more than any model's
/// context window, so no agent could use a larger one; the cap keeps a hostile file (a link to
/// `/dev/zero`, a generated monster) from taking the machine's memory.
pub(crate) const MAX_SKILL_FILE_BYTES: u64 = 1024 * 1024;

/// Reads a whole skill file: a regular file (never a FIFO or a device, even behind a link) of at
/// most [`MAX_SKILL_FILE_BYTES`], through a buffer reused by each thread.
pub(crate) fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0; 64 * 1024]);
    }
    let file = crate::fsx::open_regular(path)?;
    let mut file = file.take(MAX_SKILL_FILE_BYTES + 1);
    let bytes = SCRATCH.with_borrow_mut(|buffer| {
        let mut len = 0;
        loop {
            if len == buffer.len() {
                buffer.resize(buffer.len() * 2, 0);
            }
            match file.read(&mut buffer[len..]) {
                Ok(0) => break,
                Ok(read) => len += read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        // A buffer grown by one huge file is not kept for the rest of the run.
        let bytes = buffer[..len].to_vec();
        buffer.truncate(64 * 1024);
        buffer.shrink_to(64 * 1024);
        Ok(bytes)
    })?;
    if bytes.len() as u64 > MAX_SKILL_FILE_BYTES {
        return Err(crate::fsx::too_large(path, MAX_SKILL_FILE_BYTES));
    }
    Ok(bytes)
}

/// The skill file at `path`: its bytes, or `Err` with the link's text when it is a symbolic
/// link that leads to nothing (a missing target, a loop) or to a folder, which is a defect of
/// the skill rather than of the machine. Other failures (a link to a device) are I/O errors.
pub(crate) fn read_skill_file(path: &Path) -> std::io::Result<Result<Vec<u8>, String>> {
    match read_file(path) {
        Ok(bytes) => Ok(Ok(bytes)),
        Err(error) => {
            // A link to nothing or to a folder; a link to a device or a FIFO is refused as such.
            let is_link = fs_err::symlink_metadata(path).is_ok_and(|meta| meta.is_symlink());
            let broken = is_link && fs_err::metadata(path).map_or(true, |meta| meta.is_dir());
            match fs_err::read_link(path) {
                Ok(target) if broken => Ok(Err(target.to_string_lossy().into_owned())),
                _ => Err(error),
            }
        }
    }
}

/// The folder holding `path`; `.` for a bare file name.
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// The name of a folder as agents compare it with `name`; `.` and relative paths are resolved
/// against the current directory.
pub(crate) fn folder_name(dir: &Path) -> String {
    // `SKILL.md`'s parent is the empty path: the current folder (`lint` run inside a skill).
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let named = dir
        .file_name()
        .filter(|name| !name.is_empty())
        .map(|name| name.to_string_lossy().into_owned());
    named.unwrap_or_else(|| {
        std::path::absolute(dir)
            .ok()
            .and_then(|abs| {
                // `absolute` keeps `.` and `..` components; normalise them away.
                let mut clean = PathBuf::new();
                for part in abs.components() {
                    match part {
                        std::path::Component::CurDir => {}
                        std::path::Component::ParentDir => {
                            clean.pop();
                        }
                        other => clean.push(other),
                    }
                }
                clean.file_name().map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontmatter::Delimiters;

    fn skill(text: &str) -> Skill {
        Skill::from_bytes(
            PathBuf::from("s/SKILL.md"),
            "s".into(),
            text.as_bytes().to_vec(),
        )
    }

    #[test]
    fn releasing_the_body_keeps_the_frontmatter_and_its_typed_fields() {
        let frontmatter =
            "---\nname: s\ndescription: Does a thing.\nlicense: MIT\nmetadata:\n  a: b\n---\n";
        let mut skill = skill(&format!("{frontmatter}\n# S\n\nLine one.\nLine two.\n"));
        skill.release_body(&[]);
        let source = skill.source().unwrap();
        assert_eq!(source.text(), frontmatter);
        // Only the fields the rules across skills and the reports read are kept.
        let doc = skill.reading().unwrap().doc.as_ref().unwrap();
        assert!(doc.entries.is_empty() && doc.license.is_none() && doc.metadata.is_none());
        let reading = skill.reading().unwrap();
        // The tree is gone; the typed frontmatter the rules across skills read is not.
        assert!(reading.yaml.is_none());
        let doc = reading.doc.as_ref().unwrap();
        assert_eq!(doc.name.as_deref().unwrap().value.as_deref(), Ok("s"));
        let description = doc.description.as_deref().unwrap();
        assert_eq!(description.value.as_deref(), Ok("Does a thing."));
        assert_eq!(&source.text()[description.span.clone()], "Does a thing.");
    }

    #[test]
    fn agents_that_see_the_same_frontmatter_share_the_parse() {
        let skill = skill("---\nname: s\ndescription: d\n---\nbody\n");
        let claude = Reader {
            delimiters: Delimiters::FirstDashes,
            bom_hides_frontmatter: false,
        };
        let reading = skill.reading_as(claude).unwrap();
        assert_eq!(reading.doc, skill.reading().unwrap().doc);
    }

    #[test]
    fn agents_that_cut_early_get_their_own_parse() {
        let skill = skill("---\nname: s\ndescription: \"a --- b\"\n---\nbody\n");
        let claude = Reader {
            delimiters: Delimiters::FirstDashes,
            bom_hides_frontmatter: false,
        };
        let reading = skill.reading_as(claude).unwrap();
        assert!(matches!(reading.yaml, Some(Err(_))));
        assert!(skill.reading().unwrap().doc.is_some());
    }

    #[test]
    fn a_bare_file_name_lives_in_the_current_folder() {
        let skill = Skill::from_bytes(PathBuf::from("SKILL.md"), "x".into(), Vec::new());
        assert_eq!(skill.dir, PathBuf::from("."));
        assert_eq!(parent_dir(Path::new("SKILL.md")), Path::new("."));
    }

    #[test]
    fn folder_name_resolves_dot() {
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            folder_name(Path::new(".")),
            cwd.file_name().unwrap().to_string_lossy()
        );
        assert_eq!(folder_name(Path::new("a/b")), "b");
        assert_eq!(
            folder_name(Path::new("")),
            cwd.file_name().unwrap().to_string_lossy()
        );
    }
}
