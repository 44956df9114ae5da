//! The properties the fuzz targets check, one function per target, each panicking when its
//! property fails. Shared by the fuzz targets (`fuzz_targets/*.rs`) and the test suite, which
//! runs every input in `fuzz/corpus/` and `fuzz/regressions/` through them
//! (`tests/it/fuzzed.rs`), so a crash the fuzzer once found stays fixed.

#![allow(dead_code)]

use std::io::Cursor;
use std::path::{Component, Path, PathBuf};

use skillpkg::agent::Target;
use skillpkg::check::engine::{self, CliRules, Settings};
use skillpkg::check::fix::fix_until_stable;
use skillpkg::check::lint::Bundle;
use skillpkg::check::{Checked, check_set, check_skill};
use skillpkg::output::{self, Format, Report};
use skillpkg::pack::archive::folder_digest;
use skillpkg::pack::central;
use skillpkg::pack::extract::{self, Limits, Options};
use skillpkg::publish::json_edit;
use skillpkg::registry::lockfile::Lockfile;
use skillpkg::render::claude_code::{self, InvokeOptions, Invoker, Version};
use skillpkg::render::view::{Scope, SkillView};
use skillpkg::skill::Skill;

/// A SKILL.md of any bytes: reading it, every validate and lint rule for every target, the
/// suppressions, every report format and Claude Code's invocation never panic.
pub(crate) fn skill_md(bytes: &[u8]) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = skillpkg::agent::read_as_every_agent(text);
    }
    let checked = linted(bytes, &Target::ALL);
    for target in [Target::ClaudeCode, Target::ClaudeCode2188] {
        let Some(view) = SkillView::new(&checked.skill, Scope::Project, target, Vec::new(), true)
        else {
            continue;
        };
        let version = if target == Target::ClaudeCode {
            Version::Current
        } else {
            Version::V2188
        };
        for invoker in [Invoker::User, Invoker::Model] {
            let options = InvokeOptions {
                version,
                invoker,
                args: Some("one 'two three' $0".into()),
                session_id: "session".into(),
                project_dir: "/project".into(),
                effort: "medium".into(),
                exec: None,
                invocation_index: 1,
                tokens_left: None,
                launched_as: None,
            };
            let _ = claude_code::invoke(&view, &options);
        }
    }
    let mut all = vec![checked];
    check_set(&mut all);
    let report = Report {
        checked: &all,
        root: PathBuf::from("/"),
        kind: skillpkg::check::rule::Kind::Lint,
    };
    for format in [
        Format::Human,
        Format::Concise,
        Format::Json,
        Format::Github,
        Format::Sarif,
    ] {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        output::write(format, &report, &mut out, &mut err).expect("writing to memory");
    }
}

const TARGETS: [Target; 3] = [Target::AgentSkills, Target::ClaudeCode, Target::Codex];

/// `bytes` as the SKILL.md of a skill folder named `fuzz`.
fn skill(bytes: &[u8]) -> Skill {
    Skill::from_bytes(
        PathBuf::from("fuzz/SKILL.md"),
        "fuzz".into(),
        bytes.to_vec(),
    )
}

/// What `validate` and `lint` report for `bytes` for `targets`, suppressions applied (no
/// configuration): the lint engine's own analysis, the one `lint --fix` runs after each round.
fn linted(bytes: &[u8], targets: &[Target]) -> Checked {
    let cli = CliRules::default();
    let settings = Settings {
        cli: &cli,
        config: None,
    };
    engine::analyse(
        skill(bytes),
        &Bundle::default(),
        targets,
        &settings,
        Path::new("/"),
    )
    .0
}

/// What `lint --fix` analyses after each round.
fn analyse(bytes: &[u8]) -> (Checked, ()) {
    (linted(bytes, &TARGETS), ())
}

/// `lint --fix` on any SKILL.md: fixing twice changes nothing more than fixing once, and a
/// skill that validated still validates after its fixes, for every target.
pub(crate) fn lint_fix(bytes: &[u8]) {
    let once = fix_until_stable(bytes, Some(false), analyse);
    if once.exhausted {
        // The rounds ran out (the user is told to run --fix again): more may change.
        return;
    }
    let twice = fix_until_stable(&once.bytes, Some(false), analyse);
    assert_eq!(
        String::from_utf8_lossy(&twice.bytes),
        String::from_utf8_lossy(&once.bytes),
        "a second --fix changed the file"
    );
    let valid = |bytes: &[u8]| check_skill(skill(bytes), &TARGETS).is_valid();
    if valid(bytes) {
        assert!(
            valid(&once.bytes),
            "--fix broke a valid skill: {:?}",
            String::from_utf8_lossy(&once.bytes)
        );
    }
}

/// Every path under `dir`.
fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = fs_err::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        out.push(path.clone());
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            walk(&path, out);
        }
    }
}

/// Any bytes as a `.skill` archive: extraction never panics, never writes outside its folder,
/// and what it reports is what it wrote.
pub(crate) fn extract(bytes: &[u8]) {
    let work = tempfile::tempdir_in(
        std::env::var_os("SKILLPKG_FUZZ_TMP").unwrap_or_else(|| std::env::temp_dir().into()),
    )
    .expect("a temporary folder");
    let archive = work.path().join("in.skill");
    fs_err::write(&archive, bytes).expect("write the archive");
    let out = work.path().join("out");
    let options = Options {
        limits: Limits {
            max_bytes: 8 * 1024 * 1024,
            ratio_allowance: 1024 * 1024,
            max_files: 2_000,
            ..Limits::default()
        },
        ..Options::new("fallback")
    };
    if let Ok(extracted) = extract::extract(&archive, &out, &options) {
        assert_eq!(extracted.dir, out.join(&extracted.name));
        assert!(skillpkg::pack::valid_skill_name(&extracted.name));
        let digest = folder_digest(&extracted.dir, &[], &Limits::default())
            .expect("read back")
            .expect("only regular files");
        assert_eq!(
            digest, extracted.content_digest,
            "the digest is of what was written"
        );
        let mut written = Vec::new();
        walk(&out, &mut written);
        for path in written {
            assert!(
                path.starts_with(&extracted.dir),
                "{} is outside the skill",
                path.display()
            );
        }
    } else {
        // A refusal leaves nothing behind.
        let mut left = Vec::new();
        walk(&out, &mut left);
        assert!(left.is_empty(), "a refused archive left {left:?}");
    }
    let mut everything = Vec::new();
    walk(work.path(), &mut everything);
    for path in everything {
        assert!(path.starts_with(work.path()));
    }
}

/// The central-directory audit on any bytes: never panics, never allocates past the input, and
/// what it accepts the zip reader reads with the same entries, in the same order.
pub(crate) fn zip_audit(bytes: &[u8]) {
    let Ok(records) = central::audit(&mut Cursor::new(bytes), bytes.len() as u64) else {
        return;
    };
    let mut names = std::collections::HashSet::new();
    for record in &records {
        assert!(
            names.insert(record.name.clone()),
            "a name twice was accepted"
        );
        assert!(record.offset < bytes.len() as u64);
    }
    if let Ok(mut zip) = zip::ZipArchive::new(Cursor::new(bytes)) {
        assert_eq!(zip.len(), records.len());
        for (index, record) in records.iter().enumerate() {
            let entry = zip
                .by_index_raw(index)
                .expect("an entry the audit accepted");
            assert_eq!(entry.name_raw(), record.name.as_slice());
        }
    }
}

/// `skills.lock` of any text: parsing never panics; an accepted lock names only valid skills in
/// folders inside the project, and survives being written and read back.
pub(crate) fn lockfile(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(lock) = Lockfile::parse(text) else {
        return;
    };
    for entry in &lock.skills {
        assert!(
            skillpkg::pack::valid_skill_name(&entry.name),
            "{:?}",
            entry.name
        );
        let folder = entry.folder();
        assert!(folder.is_relative(), "{}", folder.display());
        assert!(
            folder
                .components()
                .all(|part| matches!(part, Component::Normal(_) | Component::CurDir)),
            "{} leaves the project",
            folder.display()
        );
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("skills.lock");
    lock.write(&path).expect("write the lock");
    let again = Lockfile::read(&path).expect("read it back");
    let mut sorted = lock.clone();
    sorted
        .skills
        .sort_by(|a, b| (&a.dir, &a.name).cmp(&(&b.dir, &b.name)));
    assert_eq!(again, sorted);
}

/// A SKILL.md body rendered for its web page: whatever the Markdown, the HTML has only the tags
/// Markdown itself makes, no event-handler or style attributes, and links only to http(s),
/// mailto, fragments or the skill's own files.
pub(crate) fn markdown(bytes: &[u8]) {
    const TAGS: &[&str] = &[
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "code",
        "ul",
        "ol",
        "li",
        "em",
        "strong",
        "del",
        "a",
        "hr",
        "br",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "input",
    ];
    let Ok(body) = std::str::from_utf8(bytes) else {
        return;
    };
    let html = skillpkg::registry::server::page_markdown(body, "fuzzed", "1.0.0");
    let mut rest = html.as_str();
    while let Some(at) = rest.find('<') {
        let tag = &rest[at + 1..];
        let tag = tag.strip_prefix('/').unwrap_or(tag);
        let end = tag
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(tag.len());
        let name = &tag[..end];
        assert!(TAGS.contains(&name), "a <{name}> tag in {html:?}");
        // Attributes: key="value", with `"` never inside a value (it is escaped as &quot;).
        let mut attributes = &tag[end..];
        loop {
            attributes = attributes.trim_start();
            if attributes.starts_with('>') || attributes.starts_with("/>") {
                break;
            }
            let key_end = attributes
                .find(|c: char| c == '=' || c == '>' || c.is_whitespace())
                .expect("every tag closes");
            let key = attributes[..key_end].to_ascii_lowercase();
            attributes = &attributes[key_end..];
            let value = if let Some(quoted) = attributes.strip_prefix("=\"") {
                let close = quoted.find('"').expect("every value closes");
                attributes = &quoted[close + 1..];
                &quoted[..close]
            } else {
                ""
            };
            attribute(&key, value, &html);
        }
        let close = tag.len() - attributes.len();
        rest = &tag[close..];
    }
}

/// One attribute of the page's Markdown HTML: only those Markdown itself writes, with safe
/// values.
fn attribute(key: &str, value: &str, html: &str) {
    assert!(
        matches!(
            key,
            "href" | "title" | "start" | "type" | "disabled" | "checked" | "style" | "class"
        ),
        "attribute {key:?} in {html:?}"
    );
    if key == "class" {
        // A fenced block's language (escaped by the renderer).
        assert!(value.starts_with("language-"), "{html:?}");
    }
    if key == "style" {
        // Table alignment only.
        assert!(value.starts_with("text-align:"), "{html:?}");
    }
    if key == "href" {
        // Schemes in any case, as a browser reads them; `https:x` without slashes is
        // still an https URL (or none at all), never a script.
        let lower = value.to_ascii_lowercase();
        assert!(
            [
                "http:",
                "https:",
                "mailto:",
                "#",
                "/skills/fuzzed/1.0.0/files/"
            ]
            .iter()
            .any(|start| lower.starts_with(start)),
            "a link to {value:?} in {html:?}"
        );
        // A link into the skill's files stays there once a browser decodes it.
        if let Some(path) = value.strip_prefix("/skills/fuzzed/1.0.0/files/") {
            let decoded = skillpkg::registry::server::percent_decoded(&path.replace("&amp;", "&"))
                .unwrap_or_default();
            assert!(
                !decoded.split(['/', '?', '#']).any(|part| part == "..")
                    && !decoded.starts_with('/')
                    && !decoded.contains('\\'),
                "a link out of the skill's files: {value:?}"
            );
        }
    }
}

/// A `.claude-plugin/marketplace.json` of any text: adding or updating plugin `x` never panics;
/// an accepted edit is JSON whose one plugin `x` has the version set, and doing it again changes
/// nothing.
pub(crate) fn marketplace_json(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let version = serde_json::json!("1.0.0");
    let fields = [("version", &version)];
    let Ok((edited, _)) = json_edit::upsert_element(text, &["plugins"], "name", "x", &fields)
    else {
        return;
    };
    let document: serde_json::Value =
        serde_json::from_str(edited.strip_prefix('\u{feff}').unwrap_or(&edited))
            .unwrap_or_else(|error| panic!("the edit is not JSON ({error}): {edited:?}"));
    let plugins = document["plugins"]
        .as_array()
        .expect("`plugins` is an array");
    let entries: Vec<_> = plugins
        .iter()
        .filter(|plugin| plugin["name"] == "x")
        .collect();
    assert_eq!(entries.len(), 1, "{edited:?}");
    assert_eq!(entries[0]["version"], "1.0.0", "{edited:?}");
    let (again, existed) = json_edit::upsert_element(&edited, &["plugins"], "name", "x", &fields)
        .unwrap_or_else(|error| panic!("the edit is refused ({error}): {edited:?}"));
    assert!(existed, "{edited:?}");
    assert_eq!(again, edited, "a second edit changed the text");
}

/// Any bytes as a tar stream: unpacking never panics, never writes outside its folder, keeps
/// to its limits, and a refusal leaves nothing behind.
pub(crate) fn tar_extract(bytes: &[u8]) {
    let work = tempfile::tempdir_in(
        std::env::var_os("SKILLPKG_FUZZ_TMP").unwrap_or_else(|| std::env::temp_dir().into()),
    )
    .expect("a temporary folder");
    let out = work.path().join("out");
    let limits = Limits {
        max_bytes: 1024 * 1024,
        max_files: 64,
        ..Limits::default()
    };
    match skillpkg::pack::tar::unpack(bytes, &out, &limits) {
        Ok(files) => {
            assert!(files.len() <= limits.max_files);
            let mut written = Vec::new();
            walk(&out, &mut written);
            for path in &written {
                assert!(path.starts_with(&out), "{} is outside", path.display());
            }
            for file in &files {
                assert!(
                    out.join(file).is_file(),
                    "{file} was reported but not written"
                );
            }
        }
        Err(_) => assert!(!out.exists(), "a refused archive left its folder"),
    }
    let mut everything = Vec::new();
    walk(work.path(), &mut everything);
    for path in everything {
        assert!(path.starts_with(work.path()));
    }
}

/// Any text as an S3 `ListObjectsV2` answer: reading it never panics, finds no more objects
/// than it has `<Contents>`, and every time it reads lies within years 0 to 9999.
pub(crate) fn s3_list(bytes: &[u8]) {
    let Ok(xml) = std::str::from_utf8(bytes) else {
        return;
    };
    if let Ok((objects, _next)) = skillpkg::registry::store::s3_listing(xml) {
        assert!(objects.len() <= xml.matches("<Contents>").count());
        for (_, _, modified) in objects {
            if let Some(seconds) = modified {
                assert!(
                    (-62_200_000_000..=253_500_000_000).contains(&seconds),
                    "{seconds}"
                );
            }
        }
    }
}

/// The language server's copy of an edited document, and its features on it.
pub(crate) fn lsp_document(bytes: &[u8]) {
    skillpkg::commands::lsp::fuzz_document(bytes);
}
