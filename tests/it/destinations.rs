//! `skillpkg publish --to claude-marketplace|well-known` and `install --from|--from-marketplace`:
//! real folders, real git repositories, archives read back by a zip reader, and a real HTTP
//! server on loopback serving the site. (The real clients, Claude Code and the `skills` CLI,
//! read the same output in `conformance/run destinations`.)

use std::fmt::Write as _;
use std::io::{BufRead as _, BufReader, Read as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::Digest as _;

use crate::common::{TestContext, run};
use crate::snapshot;

const ONE: &str = "---\nname: pdf-forms\ndescription: Fills in PDF forms from a JSON file. Use when the user asks to fill, complete or populate a PDF form.\nmetadata:\n  version: \"1.2.0\"\n---\n\n# PDF forms\n\nRun scripts/fill.py; read references/fields.md.\n";
const TWO: &str = "---\nname: release-notes\ndescription: Writes release notes from the commits since the last tag. Use when the user asks for release notes or a changelog entry.\nmetadata:\n  version: \"1.2.0\"\n---\n\n# Release notes\n\nList the commits, group them, write the notes.\n";

/// A marketplace.json as people write it: four-space indentation, an inline owner, keys in no
/// particular order, another plugin that must survive byte for byte.
const HAND_WRITTEN: &str = "{\n    \"name\": \"acme-tools\",\n    \"owner\": {\"name\": \"Acme\", \"email\": \"tools@acme.test\"},\n    \"metadata\": {\"description\": \"Acme's plugins\", \"version\": \"3.0.0\"},\n    \"plugins\": [\n        {\n            \"name\": \"linter\",\n            \"source\": \"./plugins/linter\",\n            \"description\": \"Lints things\",\n            \"category\": \"quality\"\n        }\n    ]\n}\n";

fn skills(context: &TestContext) {
    context.skill("skills/pdf-forms", ONE);
    context.write(
        "skills/pdf-forms/references/fields.md",
        "# Fields\n\nName, date.\n",
    );
    context.write("skills/pdf-forms/scripts/fill.py", "print('fill')\n");
    context.skill("skills/release-notes", TWO);
}

fn publish(context: &TestContext, args: &[&str]) -> Command {
    let mut all = vec!["publish"];
    all.extend_from_slice(args);
    let mut command = context.command(&all);
    command
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.test")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.test")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1");
    command
}

fn read(path: &Path) -> String {
    fs_err::read_to_string(path).unwrap()
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .fold(String::new(), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// The names and contents of a zip's entries, read by the zip crate's reader.
fn zip_entries(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(fs_err::File::open(path).unwrap()).unwrap();
    (0..archive.len())
        .map(|index| {
            let mut entry = archive.by_index(index).unwrap();
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes).unwrap();
            (entry.name().to_owned(), bytes)
        })
        .collect()
}

#[test]
fn a_plugin_is_added_to_a_hand_written_marketplace_and_nothing_else_moves() {
    let context = TestContext::new();
    skills(&context);
    context.write("mkt/.claude-plugin/marketplace.json", HAND_WRITTEN);
    snapshot!(
        context,
        "publish_marketplace_add",
        publish(
            &context,
            &[
                "skills/pdf-forms",
                "skills/release-notes",
                "--to",
                "claude-marketplace",
                "--marketplace",
                "mkt",
                "--plugin",
                "docs-kit",
                "--no-git"
            ]
        )
    );
    let after = read(&context.root().join("mkt/.claude-plugin/marketplace.json"));
    // The hand-written part is there byte for byte; the new entry follows the old one.
    let (head, _) = HAND_WRITTEN.rsplit_once("\n    ]\n}\n").unwrap();
    assert!(
        after.starts_with(&format!("{head},\n        {{\n")),
        "{after}"
    );
    let value: serde_json::Value = serde_json::from_str(&after).unwrap();
    let entry = &value["plugins"][1];
    assert_eq!(entry["name"], "docs-kit");
    assert_eq!(entry["source"], "./plugins/docs-kit");
    assert_eq!(entry["version"], "1.2.0");
    let plugin: serde_json::Value = serde_json::from_str(&read(
        &context
            .root()
            .join("mkt/plugins/docs-kit/.claude-plugin/plugin.json"),
    ))
    .unwrap();
    assert_eq!(plugin["version"], entry["version"]);
    assert_eq!(plugin["author"]["name"], "Acme");
    for (skill, file) in [
        ("pdf-forms", "SKILL.md"),
        ("pdf-forms", "scripts/fill.py"),
        ("release-notes", "SKILL.md"),
    ] {
        assert_eq!(
            fs_err::read(context.root().join(format!("skills/{skill}/{file}"))).unwrap(),
            fs_err::read(
                context
                    .root()
                    .join(format!("mkt/plugins/docs-kit/skills/{skill}/{file}"))
            )
            .unwrap()
        );
    }
    republish(&context, &after);
}

/// Publishing the same plugin again: unchanged; changed contents under the same version:
/// refused; a new version: the entry's version line is the whole diff.
fn republish(context: &TestContext, after: &str) {
    // Again: nothing changes, and it says so.
    let (code, _, stderr) = run(publish(
        context,
        &[
            "skills/pdf-forms",
            "skills/release-notes",
            "--to",
            "claude-marketplace",
            "--marketplace",
            "mkt",
            "--plugin",
            "docs-kit",
            "--no-git",
        ],
    ));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("nothing changed"), "{stderr}");
    assert_eq!(
        read(&context.root().join("mkt/.claude-plugin/marketplace.json")),
        after
    );
    // The same version with other contents is refused: installed plugins are cached by version.
    context.write("skills/release-notes/references/extra.md", "# More\n");
    let (code, _, stderr) = run(publish(
        context,
        &[
            "skills/pdf-forms",
            "skills/release-notes",
            "--to",
            "claude-marketplace",
            "--marketplace",
            "mkt",
            "--plugin",
            "docs-kit",
            "--no-git",
        ],
    ));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("already in the marketplace with other contents"),
        "{stderr}"
    );
    assert!(
        !context
            .root()
            .join("mkt/plugins/docs-kit/skills/release-notes/references")
            .exists()
    );
    // A new version updates the entry in place: the diff is the version line.
    snapshot!(
        context,
        "publish_marketplace_update",
        publish(
            context,
            &[
                "skills/pdf-forms",
                "skills/release-notes",
                "--to",
                "claude-marketplace",
                "--marketplace",
                "mkt",
                "--plugin",
                "docs-kit",
                "--no-git",
                "--version",
                "1.3.0"
            ]
        )
    );
}

#[test]
fn a_marketplace_in_git_gets_a_commit_and_a_tag_and_nothing_is_pushed() {
    let context = TestContext::new();
    skills(&context);
    let market = context.root().join("mkt");
    fs_err::create_dir_all(&market).unwrap();
    let git = |args: &[&str]| {
        let output = Command::new("git")
            .arg("-C")
            .arg(&market)
            .args(args)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    };
    git(&["init", "-q"]);
    // A file of the user's that is staged but not to be published stays out of the commit.
    fs_err::write(market.join("notes.txt"), "wip\n").unwrap();
    git(&["add", "notes.txt"]);
    let (code, _, stderr) = run(publish(
        &context,
        &[
            "skills/pdf-forms",
            "--to",
            "claude-marketplace",
            "--marketplace",
            "mkt",
            "--marketplace-name",
            "acme-skills",
            "--owner",
            "Acme",
        ],
    ));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("tagged it pdf-forms--v1.2.0; nothing was pushed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("push origin HEAD refs/tags/pdf-forms--v1.2.0"),
        "{stderr}"
    );
    assert_eq!(git(&["tag"]), "pdf-forms--v1.2.0");
    let committed = git(&["show", "--name-only", "--format=%s", "HEAD"]);
    assert!(
        committed.starts_with("Publish pdf-forms 1.2.0"),
        "{committed}"
    );
    assert!(
        committed.contains(".claude-plugin/marketplace.json"),
        "{committed}"
    );
    assert!(!committed.contains("notes.txt"), "{committed}");
    assert_eq!(git(&["diff", "--cached", "--name-only"]), "notes.txt");
    assert!(git(&["remote"]).is_empty());
    let manifest: serde_json::Value =
        serde_json::from_str(&read(&market.join(".claude-plugin/marketplace.json"))).unwrap();
    assert_eq!(manifest["name"], "acme-skills");
    assert_eq!(manifest["owner"]["name"], "Acme");
    assert!(manifest["description"].is_string());
}

#[test]
fn marketplace_rules_are_applied_before_anything_is_written() {
    let context = TestContext::new();
    skills(&context);
    let cases: [(&str, &str, &[&str]); 4] = [
        (
            "{\"name\": \"agent-skills\", \"owner\": {\"name\": \"x\"}, \"plugins\": []}\n",
            "reserved for Anthropic",
            &[],
        ),
        (
            "{\"name\": \"acme\", \"owner\": {\"name\": \"x\"}, \"plugins\": [{\"name\": \"pdf-forms\", \"source\": \"./../elsewhere\"}]}\n",
            "contains `..`",
            &[],
        ),
        (
            "{\"name\": \"acme\", \"owner\": {\"name\": \"x\"}, \"plugins\": [{\"name\": \"pdf-forms\", \"source\": {\"source\": \"github\", \"repo\": \"a/b\"}}]}\n",
            "another source",
            &[],
        ),
        (
            "{\"name\": \"acme\", \"owner\": {\"name\": \"x\"}, \"plugins\": []}\n",
            "kebab-case",
            &["--plugin", "PDF_Forms"],
        ),
    ];
    for (manifest, expected, extra) in cases {
        context.write("mkt/.claude-plugin/marketplace.json", manifest);
        let mut args = vec![
            "skills/pdf-forms",
            "--to",
            "claude-marketplace",
            "--marketplace",
            "mkt",
            "--no-git",
        ];
        args.extend_from_slice(extra);
        let (code, _, stderr) = run(publish(&context, &args));
        assert_eq!(code, 1, "{manifest}: {stderr}");
        assert!(stderr.contains(expected), "{manifest}: {stderr}");
        assert_eq!(
            read(&context.root().join("mkt/.claude-plugin/marketplace.json")),
            manifest
        );
        assert!(!context.root().join("mkt/plugins").exists());
    }
    // Not JSON: the file and line are named.
    context.write(
        "mkt/.claude-plugin/marketplace.json",
        "{\n  \"name\": \"acme\",\n}\n",
    );
    let (code, _, stderr) = run(publish(
        &context,
        &[
            "skills/pdf-forms",
            "--to",
            "claude-marketplace",
            "--marketplace",
            "mkt",
        ],
    ));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("marketplace.json:3:1"), "{stderr}");
    // Several skills need a plugin name.
    let (code, _, stderr) = run(publish(
        &context,
        &[
            "skills/pdf-forms",
            "skills/release-notes",
            "--to",
            "claude-marketplace",
            "--marketplace",
            "mkt",
        ],
    ));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--plugin NAME"), "{stderr}");
}

#[test]
fn an_archive_source_carries_the_zips_sha256() {
    let context = TestContext::new();
    skills(&context);
    let args = [
        "skills/pdf-forms",
        "--to",
        "claude-marketplace",
        "--marketplace",
        "mkt",
        "--marketplace-name",
        "acme",
        "--owner",
        "Acme",
        "--no-git",
        "--source",
        "archive",
        "--archive-url",
        "https://downloads.acme.test/plugins/",
    ];
    let (code, _, stderr) = run(publish(&context, &args));
    assert_eq!(code, 0, "{stderr}");
    let zip = context.root().join("mkt/archives/pdf-forms-1.2.0.zip");
    let manifest: serde_json::Value = serde_json::from_str(&read(
        &context.root().join("mkt/.claude-plugin/marketplace.json"),
    ))
    .unwrap();
    let source = &manifest["plugins"][0]["source"];
    assert_eq!(source["source"], "archive");
    assert_eq!(
        source["url"],
        "https://downloads.acme.test/plugins/pdf-forms-1.2.0.zip"
    );
    assert_eq!(source["sha256"], sha256_hex(&fs_err::read(&zip).unwrap()));
    let names: Vec<String> = zip_entries(&zip)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        names,
        [
            ".claude-plugin/plugin.json",
            "skills/pdf-forms/SKILL.md",
            "skills/pdf-forms/references/fields.md",
            "skills/pdf-forms/scripts/fill.py"
        ]
    );
    assert!(!context.root().join("mkt/plugins").exists());
    let (code, _, stderr) = run(publish(&context, &args));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("nothing changed"), "{stderr}");
    let mut plain = args.to_vec();
    *plain.last_mut().unwrap() = "http://downloads.acme.test/";
    let (code, _, stderr) = run(publish(&context, &plain));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("https"), "{stderr}");
}

#[test]
fn a_dry_run_writes_nothing() {
    let context = TestContext::new();
    skills(&context);
    for destination in [["--marketplace", "mkt"], ["--site", "site"]] {
        let to = if destination[0] == "--site" {
            "well-known"
        } else {
            "claude-marketplace"
        };
        let (code, _, stderr) = run(publish(
            &context,
            &[
                "skills/pdf-forms",
                "--to",
                to,
                destination[0],
                destination[1],
                "--dry-run",
            ],
        ));
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains("Dry run"), "{stderr}");
        assert!(!context.root().join(destination[1]).exists(), "{to}");
    }
}

#[test]
fn the_site_gets_both_indexes_and_keeps_the_skills_already_there() {
    let context = TestContext::new();
    skills(&context);
    // A skill someone else published, with a field skillpkg does not know.
    context.write(
        "site/.well-known/agent-skills/index.json",
        "{\"$schema\": \"https://schemas.agentskills.io/discovery/0.2.0/schema.json\", \"skills\": [{\"name\": \"other\", \"type\": \"skill-md\", \"description\": \"Another skill.\", \"url\": \"other/SKILL.md\", \"digest\": \"sha256:0000000000000000000000000000000000000000000000000000000000000000\", \"x-owner\": \"them\"}]}\n",
    );
    snapshot!(
        context,
        "publish_well_known",
        publish(
            &context,
            &[
                "skills/pdf-forms",
                "skills/release-notes",
                "--to",
                "well-known",
                "--site",
                "site"
            ]
        )
    );
    let site = context.root().join("site/.well-known");
    let index = read(&site.join("agent-skills/index.json"));
    let mut settings = context.settings();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots"));
    settings.bind(|| insta::assert_snapshot!("well_known_index", index));
    let value: serde_json::Value = serde_json::from_str(&index).unwrap();
    assert_eq!(value["skills"][0]["x-owner"], "them");
    // Each digest is the served bytes'; the archive has SKILL.md at its root.
    for entry in value["skills"].as_array().unwrap().iter().skip(1) {
        let bytes = fs_err::read(
            site.join("agent-skills")
                .join(entry["url"].as_str().unwrap()),
        )
        .unwrap();
        assert_eq!(entry["digest"], format!("sha256:{}", sha256_hex(&bytes)));
    }
    let names: Vec<String> = zip_entries(&site.join("agent-skills/pdf-forms.zip"))
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        names,
        ["SKILL.md", "references/fields.md", "scripts/fill.py"]
    );
    let legacy: serde_json::Value =
        serde_json::from_str(&read(&site.join("skills/index.json"))).unwrap();
    assert_eq!(
        legacy["skills"][0]["files"],
        serde_json::json!(["SKILL.md", "references/fields.md", "scripts/fill.py"])
    );
    assert_eq!(
        read(&site.join("skills/pdf-forms/references/fields.md")),
        "# Fields\n\nName, date.\n"
    );
    let (code, _, stderr) = run(publish(
        &context,
        &[
            "skills/pdf-forms",
            "skills/release-notes",
            "--to",
            "well-known",
            "--site",
            "site",
        ],
    ));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr.matches("nothing changed").count(), 2, "{stderr}");
    assert_eq!(read(&site.join("agent-skills/index.json")), index);
}

#[test]
fn publish_reads_its_destinations_from_skillpkg_toml() {
    let context = TestContext::new();
    skills(&context);
    context.write("skillpkg.toml", "[publish]\nto = [\"well-known\", \"claude-marketplace\"]\nsite = \"public\"\nmarketplace = \"mkt\"\nplugin = \"docs-kit\"\n");
    let mut command = publish(
        &context,
        &["pdf-forms", "--marketplace-name", "acme", "--no-git"],
    );
    command.current_dir(context.root().join("skills"));
    let (code, _, stderr) = run(command);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        context
            .root()
            .join("public/.well-known/agent-skills/index.json")
            .is_file()
    );
    assert!(
        context
            .root()
            .join("mkt/plugins/docs-kit/skills/pdf-forms/SKILL.md")
            .is_file()
    );
    context.write("skillpkg.toml", "[publish]\nto = [\"github\"]\n");
    let (code, _, stderr) = run(publish(&context, &["skills/pdf-forms"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("skillpkg.toml:2:7: unknown destination `github`"),
        "{stderr}"
    );
}

/// A static file server on loopback over `root`, for as long as the test runs: GET only,
/// `Content-Type` by extension, 404 for anything missing.
fn serve(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    return;
                }
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                        break;
                    }
                }
                let path = line
                    .split(' ')
                    .nth(1)
                    .unwrap_or("/")
                    .trim_start_matches('/')
                    .to_owned();
                let file = root.join(&path);
                let mut stream = stream;
                let found = !path.contains("..") && file.is_file();
                let (status, body) = if found {
                    ("200 OK", fs_err::read(&file).unwrap())
                } else {
                    ("404 Not Found", b"missing".to_vec())
                };
                let kind = match file.extension().and_then(|ext| ext.to_str()) {
                    Some("json") => "application/json",
                    Some("zip") => "application/zip",
                    Some("md") => "text/markdown",
                    _ => "application/octet-stream",
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = std::io::Write::write_all(&mut stream, head.as_bytes());
                let _ = std::io::Write::write_all(&mut stream, &body);
            });
        }
    });
    format!("http://{address}")
}

#[test]
fn install_from_a_site_verifies_every_digest_and_records_it() {
    let context = TestContext::new();
    skills(&context);
    let (code, _, stderr) = run(publish(
        &context,
        &[
            "skills/pdf-forms",
            "skills/release-notes",
            "--to",
            "well-known",
            "--site",
            "site",
        ],
    ));
    assert_eq!(code, 0, "{stderr}");
    let url = serve(context.root().join("site"));
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let mut command = context.command(&["install", "--from", &url]);
    command.current_dir(context.root().join("project"));
    let (code, _, stderr) = run(command);
    assert_eq!(code, 0, "{stderr}");
    let installed = context.root().join("project/.claude/skills");
    for file in [
        "pdf-forms/SKILL.md",
        "pdf-forms/references/fields.md",
        "pdf-forms/scripts/fill.py",
        "release-notes/SKILL.md",
    ] {
        let (skill, rest) = file.split_once('/').unwrap();
        assert_eq!(
            fs_err::read(installed.join(file)).unwrap(),
            fs_err::read(context.root().join("skills").join(skill).join(rest)).unwrap(),
            "{file}"
        );
    }
    let lock = read(&context.root().join("project/skills.lock"));
    assert!(lock.contains("source = \"well-known\""), "{lock}");
    assert!(lock.contains(&format!("registry = \"{url}\"")), "{lock}");
    // From skills.lock alone: fetched again, verified, already in place.
    let mut command = context.command(&["install"]);
    command.current_dir(context.root().join("project"));
    let (code, _, stderr) = run(command);
    assert_eq!(code, 0, "{stderr}");
    // A tampered archive is refused, and nothing is installed.
    let zip = context
        .root()
        .join("site/.well-known/agent-skills/pdf-forms.zip");
    let mut bytes = fs_err::read(&zip).unwrap();
    let last = bytes.len() - 30;
    bytes[last] ^= 1;
    fs_err::write(&zip, bytes).unwrap();
    fs_err::create_dir_all(context.root().join("other")).unwrap();
    let mut command = context.command(&["install", "--from", &url, "pdf-forms"]);
    command.current_dir(context.root().join("other"));
    let (code, _, stderr) = run(command);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("does not match its digest"), "{stderr}");
    assert!(
        !context
            .root()
            .join("other/.claude/skills/pdf-forms")
            .exists()
    );
    assert!(!context.root().join("other/skills.lock").exists());
}

#[test]
fn install_from_a_marketplace_takes_a_plugins_skills() {
    let context = TestContext::new();
    skills(&context);
    // A git repository, so that it can also be cloned by URL.
    fs_err::create_dir_all(context.root().join("mkt")).unwrap();
    let output = Command::new("git")
        .args(["init", "-q"])
        .current_dir(context.root().join("mkt"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let (code, _, stderr) = run(publish(
        &context,
        &[
            "skills/pdf-forms",
            "skills/release-notes",
            "--to",
            "claude-marketplace",
            "--marketplace",
            "mkt",
            "--marketplace-name",
            "acme",
            "--owner",
            "Acme",
            "--plugin",
            "docs-kit",
        ],
    ));
    assert_eq!(code, 0, "{stderr}");
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    for source in [
        "../mkt",
        &format!("file://{}", context.root().join("mkt").display()),
    ] {
        let _ = fs_err::remove_dir_all(context.root().join("project"));
        fs_err::create_dir_all(context.root().join("project")).unwrap();
        let mut command = context.command(&["install", "--from-marketplace", source, "docs-kit"]);
        command.current_dir(context.root().join("project"));
        let (code, _, stderr) = run(command);
        assert_eq!(code, 0, "{source}: {stderr}");
        assert!(
            stderr.contains("Installed pdf-forms@1.2.0 from plugin `docs-kit`"),
            "{stderr}"
        );
        let installed = context.root().join("project/.claude/skills");
        assert_eq!(read(&installed.join("release-notes/SKILL.md")), TWO);
        let lock = read(&context.root().join("project/skills.lock"));
        assert!(
            lock.contains("source = \"claude-marketplace\"")
                && lock.contains("plugin = \"docs-kit\""),
            "{lock}"
        );
    }
    let mut command = context.command(&["install", "--from-marketplace", "../mkt", "nothing-here"]);
    command.current_dir(context.root().join("project"));
    let (code, _, stderr) = run(command);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("its plugins: docs-kit"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn nothing_is_written_or_read_through_a_symbolic_link() {
    use std::os::unix::fs::symlink;
    let context = TestContext::new();
    skills(&context);
    let outside = context.root().join("outside");
    fs_err::create_dir_all(&outside).unwrap();
    // Publishing: a link anywhere below the site or the marketplace is refused, before writing.
    fs_err::create_dir_all(context.root().join("site")).unwrap();
    symlink(&outside, context.root().join("site/.well-known")).unwrap();
    let (code, _, stderr) = run(publish(
        &context,
        &["skills/pdf-forms", "--to", "well-known", "--site", "site"],
    ));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    fs_err::create_dir_all(context.root().join("mkt/plugins/pdf-forms")).unwrap();
    symlink(
        &outside,
        context.root().join("mkt/plugins/pdf-forms/skills"),
    )
    .unwrap();
    let (code, _, stderr) = run(publish(
        &context,
        &[
            "skills/pdf-forms",
            "--to",
            "claude-marketplace",
            "--marketplace",
            "mkt",
            "--marketplace-name",
            "acme",
            "--owner",
            "Acme",
            "--no-git",
        ],
    ));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(fs_err::read_dir(&outside).unwrap().count(), 0);
    assert!(!context.root().join("mkt/.claude-plugin").exists());
    // Installing: a marketplace whose skills/ leads elsewhere installs nothing from there.
    context.skill(
        "secret/private-skill",
        "---\nname: private-skill\ndescription: Private. Use never.\n---\n\nSECRET\n",
    );
    context.write("evil/.claude-plugin/marketplace.json", "{\"name\": \"evil\", \"owner\": {\"name\": \"x\"}, \"plugins\": [{\"name\": \"a\", \"source\": \"./plugins/a\"}]}\n");
    fs_err::create_dir_all(context.root().join("evil/plugins/a")).unwrap();
    symlink(
        context.root().join("secret"),
        context.root().join("evil/plugins/a/skills"),
    )
    .unwrap();
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let mut command = context.command(&["install", "--from-marketplace", "../evil", "a"]);
    command.current_dir(context.root().join("project"));
    let (code, _, stderr) = run(command);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        !context
            .root()
            .join("project/.claude/skills/private-skill")
            .exists()
    );
}

#[test]
fn an_entrys_own_folder_is_kept_and_names_must_agree() {
    let context = TestContext::new();
    skills(&context);
    context.write(
        "mkt/.claude-plugin/marketplace.json",
        "{\"name\": \"acme\", \"owner\": {\"name\": \"x\"}, \"description\": \"d\", \"plugins\": [{\"name\": \"pdf-forms\", \"source\": \"./custom/pdf\", \"version\": \"1.0.0\"}]}\n",
    );
    let (code, _, stderr) = run(publish(
        &context,
        &[
            "skills/pdf-forms",
            "--to",
            "claude-marketplace",
            "--marketplace",
            "mkt",
            "--no-git",
        ],
    ));
    assert_eq!(code, 0, "{stderr}");
    let manifest: serde_json::Value = serde_json::from_str(&read(
        &context.root().join("mkt/.claude-plugin/marketplace.json"),
    ))
    .unwrap();
    assert_eq!(manifest["plugins"][0]["source"], "./custom/pdf");
    assert!(
        context
            .root()
            .join("mkt/custom/pdf/skills/pdf-forms/SKILL.md")
            .is_file()
    );
    // A site whose index names a skill its SKILL.md does not is refused.
    let (code, _, stderr) = run(publish(
        &context,
        &[
            "skills/release-notes",
            "--to",
            "well-known",
            "--site",
            "site",
        ],
    ));
    assert_eq!(code, 0, "{stderr}");
    let index = context
        .root()
        .join("site/.well-known/agent-skills/index.json");
    fs_err::write(
        &index,
        read(&index).replace("\"name\": \"release-notes\"", "\"name\": \"other-name\""),
    )
    .unwrap();
    let url = serve(context.root().join("site"));
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let mut command = context.command(&["install", "--from", &url, "other-name"]);
    command.current_dir(context.root().join("project"));
    let (code, _, stderr) = run(command);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("is named `release-notes`, not `other-name`"),
        "{stderr}"
    );
    assert!(
        !context
            .root()
            .join("project/.claude/skills/other-name")
            .exists()
    );
}

/// A `.tar.gz` artifact, as other publishers serve them (the RFC's own example), made by
/// Python's tarfile: installed like a zip, every digest checked.
#[test]
fn install_from_a_site_unpacks_a_tar_gz() {
    let context = TestContext::new();
    context.skill("src/wrangler", "---\nname: wrangler\ndescription: Deploys Workers projects. Use when the user asks to deploy a Worker.\n---\n\n# Wrangler\n\nRun scripts/deploy.sh.\n");
    context.write("src/wrangler/scripts/deploy.sh", "#!/bin/sh\necho deploy\n");
    let archive = context
        .root()
        .join("site/.well-known/agent-skills/wrangler.tar.gz");
    fs_err::create_dir_all(archive.parent().unwrap()).unwrap();
    let script = "import sys,tarfile\nwith tarfile.open(sys.argv[1], 'w:gz', format=tarfile.PAX_FORMAT) as t:\n    t.add(sys.argv[2] + '/SKILL.md', 'SKILL.md')\n    t.add(sys.argv[2] + '/scripts', 'scripts')\n";
    let output = Command::new("python3")
        .args(["-c", script])
        .arg(&archive)
        .arg(context.root().join("src/wrangler"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let digest = sha256_hex(&fs_err::read(&archive).unwrap());
    context.write(
        "site/.well-known/agent-skills/index.json",
        format!("{{\"$schema\": \"https://schemas.agentskills.io/discovery/0.2.0/schema.json\", \"skills\": [{{\"name\": \"wrangler\", \"type\": \"archive\", \"description\": \"Deploys Workers projects.\", \"url\": \"/.well-known/agent-skills/wrangler.tar.gz\", \"digest\": \"sha256:{digest}\"}}]}}\n"),
    );
    let url = serve(context.root().join("site"));
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let mut command = context.command(&["install", "--from", &url]);
    command.current_dir(context.root().join("project"));
    let (code, _, stderr) = run(command);
    assert_eq!(code, 0, "{stderr}");
    let installed = context.root().join("project/.claude/skills/wrangler");
    assert_eq!(
        read(&installed.join("scripts/deploy.sh")),
        "#!/bin/sh\necho deploy\n"
    );
    assert_eq!(
        read(&installed.join("SKILL.md")),
        read(&context.root().join("src/wrangler/SKILL.md"))
    );
}
