//! Regression tests for attacks a hostile review found: each reproduces the attack and checks
//! that skillpkg refuses it and loses nothing. (`install`'s are in `install.rs`.)

use std::path::Path;

use crate::common::{TestContext, run};

const SKILL: &str = "---\nname: s\ndescription: A hostile-input fixture. Use when a hardening test needs a skill.\n---\n\nBody.\n";

/// A zip written byte by byte, so that it can lie: each entry's central and local names, its
/// data (stored), and whether the end record defers to zip64; `declared` overrides the entry
/// count the end record gives.
struct RawZip {
    entries: Vec<(String, String, Vec<u8>)>,
    zip64: bool,
    declared: Option<u16>,
    /// Deflate the data (else store it) and declare this uncompressed size for every entry
    /// (else the true one).
    deflate_claiming: Option<u32>,
}

impl RawZip {
    fn new(entries: &[(&str, &str, &[u8])]) -> Self {
        Self {
            entries: entries
                .iter()
                .map(|(central, local, data)| {
                    ((*central).to_owned(), (*local).to_owned(), data.to_vec())
                })
                .collect(),
            zip64: false,
            declared: None,
            deflate_claiming: None,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, local, plain) in &self.entries {
            let offset = u32::try_from(out.len()).unwrap();
            let crc = crc32fast::hash(plain);
            let (method, data, size) = match self.deflate_claiming {
                Some(claimed) => {
                    use std::io::Write as _;
                    let mut encoder =
                        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
                    encoder.write_all(plain).unwrap();
                    (8u8, encoder.finish().unwrap(), claimed)
                }
                None => (0u8, plain.clone(), u32::try_from(plain.len()).unwrap()),
            };
            let len = u32::try_from(data.len()).unwrap();
            out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
            out.extend_from_slice(&[20, 0, 0, 0, method, 0, 0, 0, 0x21, 0]);
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&u16::try_from(local.len()).unwrap().to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(local.as_bytes());
            out.extend_from_slice(&data);
            central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
            central.extend_from_slice(&[20, 3, 20, 0, 0, 0, method, 0, 0, 0, 0x21, 0]);
            central.extend_from_slice(&crc.to_le_bytes());
            central.extend_from_slice(&len.to_le_bytes());
            central.extend_from_slice(&size.to_le_bytes());
            central.extend_from_slice(&u16::try_from(name.len()).unwrap().to_le_bytes());
            central.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
            central.extend_from_slice(&(0o100_644u32 << 16).to_le_bytes());
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        let cd_offset = out.len() as u64;
        let count = self
            .declared
            .unwrap_or_else(|| u16::try_from(self.entries.len()).unwrap());
        out.extend_from_slice(&central);
        if self.zip64 {
            let record = out.len() as u64;
            out.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
            out.extend_from_slice(&44u64.to_le_bytes());
            out.extend_from_slice(&[45, 3, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            out.extend_from_slice(&u64::from(count).to_le_bytes());
            out.extend_from_slice(&u64::from(count).to_le_bytes());
            out.extend_from_slice(&(central.len() as u64).to_le_bytes());
            out.extend_from_slice(&cd_offset.to_le_bytes());
            out.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
            out.extend_from_slice(&0u32.to_le_bytes());
            out.extend_from_slice(&record.to_le_bytes());
            out.extend_from_slice(&1u32.to_le_bytes());
        }
        out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        out.extend_from_slice(&[0, 0, 0, 0]);
        let small = if self.zip64 { 0xFFFF } else { count };
        out.extend_from_slice(&small.to_le_bytes());
        out.extend_from_slice(&small.to_le_bytes());
        if self.zip64 {
            out.extend_from_slice(&[0xFF; 8]);
        } else {
            out.extend_from_slice(&u32::try_from(central.len()).unwrap().to_le_bytes());
            out.extend_from_slice(&u32::try_from(cd_offset).unwrap().to_le_bytes());
        }
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }
}

fn files_under(dir: &Path) -> usize {
    if !dir.exists() {
        return 0;
    }
    fs_err::read_dir(dir).unwrap().count()
}

/// Archives that lie about their contents are refused by `unpack`, which writes nothing.
#[test]
fn archives_that_lie_are_refused() {
    let context = TestContext::new();
    let evil: &[u8] = b"---\nname: s\ndescription: The second SKILL.md, which used to win.\n---\n";
    let mut zip64_duplicate = RawZip::new(&[
        ("s/SKILL.md", "s/SKILL.md", SKILL.as_bytes()),
        ("s/SKILL.md", "s/SKILL.md", evil),
    ]);
    zip64_duplicate.zip64 = true;
    let local_escape = RawZip::new(&[
        ("s/SKILL.md", "s/SKILL.md", SKILL.as_bytes()),
        ("s/notes.md", "../../x", b"escaped"),
    ]);
    let mut fewer = RawZip::new(&[
        ("s/SKILL.md", "s/SKILL.md", SKILL.as_bytes()),
        ("s/a.md", "s/a.md", b"a"),
    ]);
    fewer.declared = Some(3);
    let mut more = RawZip::new(&[
        ("s/SKILL.md", "s/SKILL.md", SKILL.as_bytes()),
        ("s/a.md", "s/a.md", b"a"),
    ]);
    more.declared = Some(1);
    let git_folder = RawZip::new(&[(".git/SKILL.md", ".git/SKILL.md", SKILL.as_bytes())]);
    // 8 MiB of zeros that claims 1 KiB: refused at the first byte past its claim.
    let zeros = vec![0u8; 8 * 1024 * 1024];
    let mut liar = RawZip::new(&[
        ("s/SKILL.md", "s/SKILL.md", &zeros[..0]),
        ("s/zeros.bin", "s/zeros.bin", &zeros),
    ]);
    liar.deflate_claiming = Some(1024);
    let file_and_folder = RawZip::new(&[
        ("s/SKILL.md", "s/SKILL.md", SKILL.as_bytes()),
        ("s/a", "s/a", b"a file"),
        ("s/a/b", "s/a/b", b"and a folder"),
    ]);
    let skill_md_folder = RawZip::new(&[("s/SKILL.md/", "s/SKILL.md/", b""), ("s/x", "s/x", b"x")]);
    let stray_folder = RawZip::new(&[
        ("s/SKILL.md", "s/SKILL.md", SKILL.as_bytes()),
        ("other/evil/", "other/evil/", b""),
    ]);
    let drive = RawZip::new(&[
        ("s/SKILL.md", "s/SKILL.md", SKILL.as_bytes()),
        ("s/C:x", "s/C:x", b"x"),
    ]);
    let device = RawZip::new(&[
        ("s/SKILL.md", "s/SKILL.md", SKILL.as_bytes()),
        ("s/con.txt", "s/con.txt", b"x"),
    ]);
    let cases = [
        (
            "file-and-folder",
            file_and_folder,
            "it is both a file and a folder",
        ),
        ("skill-md-folder", skill_md_folder, "has no SKILL.md"),
        (
            "stray-folder",
            stray_folder,
            "more than one top-level folder",
        ),
        ("drive", drive, "a colon"),
        ("device", device, "a name Windows reserves for a device"),
        ("zip64-duplicate", zip64_duplicate, "twice"),
        ("local-name", local_escape, "has the local name `../../x`"),
        ("fewer-records", fewer, "declares 3 entries"),
        ("more-records", more, "more than the 1 records it declares"),
        ("git-folder", git_folder, "`.git` is not a valid skill name"),
        (
            "lies-about-size",
            liar,
            "`zeros.bin` expands to more than the size it declares",
        ),
    ];
    for (name, zip, expected) in cases {
        let file = format!("{name}.skill");
        context.write(&file, zip.bytes());
        let (code, stdout, stderr) = run(context.command(&["unpack", &file, "--dir", "out"]));
        assert_eq!((code, stdout.as_str()), (1, ""), "{name}: {stderr}");
        assert!(stderr.contains(expected), "{name}: {stderr}");
        assert_eq!(
            files_under(&context.root().join("out")),
            0,
            "{name} left files"
        );
        assert!(!context.root().join("x").exists());
    }
    // The honest version of the same bytes unpacks, so the refusals are not the builder's fault.
    let honest = RawZip::new(&[("s/SKILL.md", "s/SKILL.md", SKILL.as_bytes())]);
    context.write("honest.skill", honest.bytes());
    let (code, _, stderr) = run(context.command(&["unpack", "honest.skill", "--dir", "out"]));
    assert_eq!(code, 0, "{stderr}");
    let mut zip64 = RawZip::new(&[("s/SKILL.md", "s/SKILL.md", SKILL.as_bytes())]);
    zip64.zip64 = true;
    context.write("honest64.skill", zip64.bytes());
    let (code, _, stderr) = run(context.command(&["unpack", "honest64.skill", "--dir", "out64"]));
    assert_eq!(code, 0, "{stderr}");
}

/// The names in an archive, read back by the zip crate.
fn entries(archive: &Path) -> Vec<String> {
    let zip = zip::ZipArchive::new(fs_err::File::open(archive).unwrap()).unwrap();
    let mut names: Vec<String> = zip.file_names().map(str::to_owned).collect();
    names.sort();
    names
}

/// `lint --fix` on keys with empty values (`allowed-tools:`) used to insert `""` at the key and
/// add 20 more quotes per run. Null values are left alone; a second run changes nothing; the
/// result still validates.
#[test]
fn lint_fix_leaves_null_values_alone_and_is_idempotent() {
    let context = TestContext::new();
    // `compatibility` is read by every agent (a `metadata` value, by none of Claude Code's, is
    // not looked at).
    let text = "---\nname: s\ndescription: A hostile-input fixture. Use when a hardening test needs a skill.\nallowed-tools:\nmodel:\npaths:\ncompatibility: 1.0\nmetadata:\n  owner: null\n---\n\nBody.\n";
    let path = context.skill("s", text);
    let lint = |extra: &[&str]| {
        let mut args = vec!["lint", "s", "--target", "claude-code"];
        args.extend_from_slice(extra);
        run(context.command(&args))
    };
    let (code, _, stderr) = lint(&["--fix"]);
    assert!(code == 0 || code == 1, "{stderr}");
    let once = fs_err::read_to_string(&path).unwrap();
    assert_eq!(
        once,
        text.replace("compatibility: 1.0", "compatibility: \"1.0\""),
        "only the ambiguous value was quoted"
    );
    let (_, _, stderr) = lint(&["--fix"]);
    assert!(stderr.contains("Fixed 0 problems"), "{stderr}");
    assert_eq!(fs_err::read_to_string(&path).unwrap(), once);
    let (code, _, stderr) = run(context.command(&["validate", "s", "--target", "claude-code"]));
    assert_eq!(code, 0, "{stderr}");
    // A backslash in the frontmatter is a YAML escape, not a path to fix.
    let escaped = "---\nname: e\ndescription: \"Runs scripts\\\\\\\"tool\\\" for you. Use when testing.\"\n---\n\nRun scripts\\run.py.\n";
    let path = context.skill("e", escaped);
    let (code, _, stderr) = run(context.command(&["lint", "e", "--fix"]));
    assert!(code == 0 || code == 1, "{stderr}");
    let fixed = fs_err::read_to_string(&path).unwrap();
    assert!(fixed.contains("Run scripts/run.py."), "{fixed}");
    assert!(
        fixed.contains(r#"scripts\\\"tool\""#),
        "the frontmatter is untouched: {fixed}"
    );
    let (code, _, stderr) = run(context.command(&["validate", "e"]));
    assert_eq!(code, 0, "{stderr}");
}

#[cfg(unix)]
fn symlink(target: &str, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// A link packs its target's bytes under the link's name, so the rules that keep a file out
/// (secrets, hidden files, VCS folders, ignore files) apply to the target too.
#[cfg(unix)]
#[test]
fn links_cannot_smuggle_what_is_kept_out() {
    let context = TestContext::new();
    context.skill("s", SKILL);
    context.write("s/.env", "API_KEY=hunter2\n");
    symlink(".env", &context.root().join("s/notes.txt"));
    let (code, _, stderr) = run(context.command(&["package", "s", "-o", "out/s.skill"]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("`notes.txt (a link to .env)` looks like a secret"),
        "{stderr}"
    );
    assert!(!context.root().join("out/s.skill").exists());
    fs_err::remove_file(context.root().join("s/notes.txt")).unwrap();

    context.write(
        "s/.git/config",
        "[remote]\n  url = https://token@example.com\n",
    );
    symlink(".git/config", &context.root().join("s/config.txt"));
    context.write("s/.hidden/key.txt", "not for the archive\n");
    symlink(".hidden/key.txt", &context.root().join("s/key.txt"));
    context.write("s/private.md", "ignored\n");
    context.write("s/.skillignore", "private.md\n");
    symlink("private.md", &context.root().join("s/public.md"));
    context.write("s/references/guide.md", "# Guide\n");
    symlink("references/guide.md", &context.root().join("s/guide.md"));
    let (code, _, stderr) = run(context.command(&["package", "s", "-o", "out/s.skill"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        entries(&context.root().join("out/s.skill")),
        ["s/SKILL.md", "s/guide.md", "s/references/guide.md"],
        "links to excluded files are left out with them; a link to a packed file is packed"
    );
}

/// `package` never packs its own output: not the output folder inside the skill, not any
/// `*.skill` archive, however many times it runs.
#[test]
fn package_never_packs_its_own_output() {
    let context = TestContext::new();
    context.skill("s", SKILL);
    context.write("s/old-build.skill", "an archive from before\n");
    let mut inside = context.command(&["package"]);
    inside.current_dir(context.root().join("s"));
    for _ in 0..2 {
        let (code, stdout, stderr) = run(context.command(&["package", "s", "-o", "s/out/s.skill"]));
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout.trim(), "s/out/s.skill");
        assert_eq!(
            entries(&context.root().join("s/out/s.skill")),
            ["s/SKILL.md"]
        );
    }
    // An output inside a folder of the skill leaves the rest of that folder in.
    context.write("s/scripts/run.py", "print('hi')\n");
    let (code, _, stderr) = run(context.command(&["package", "s", "-o", "s/scripts/s.skill"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        entries(&context.root().join("s/scripts/s.skill")),
        ["s/SKILL.md", "s/scripts/run.py"]
    );
    fs_err::remove_dir_all(context.root().join("s/scripts")).unwrap();
    // From inside the skill, the default dist/ is outside it: the folder holding the skill,
    // when there is neither a skillpkg.toml nor a repository above it.
    for _ in 0..2 {
        let mut command = context.command(&["package"]);
        command.current_dir(context.root().join("s"));
        let (code, stdout, stderr) = run(command);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout.trim(), "../dist/s.skill");
        assert_eq!(
            entries(&context.root().join("dist/s.skill")),
            ["s/SKILL.md"]
        );
        assert!(!context.root().join("s/dist").exists());
    }
}

/// A skill, its extra files with their text, and what the refusal says.
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);

/// `package` refuses what `unpack` would refuse, before writing an archive.
#[test]
fn package_refuses_what_unpack_would_refuse() {
    let context = TestContext::new();
    let cases: &[Case<'_>] = &[
        (
            "ignored",
            &[(".skillignore", "SKILL.md\n")],
            "SKILL.md is excluded by .skillignore",
        ),
        (
            "case",
            &[("a.md", "a"), ("A.md", "b")],
            "differ only in case",
        ),
        (
            "file-and-folder",
            &[("Notes", "a file"), ("notes/a.md", "in a folder")],
            "`Notes` and `notes` differ only in case",
        ),
        (
            "backslash",
            &[("a\\b.md", "x")],
            "has a backslash in its name",
        ),
        ("newline", &[("a\nb.md", "x")], "has a control character"),
    ];
    for (name, files, expected) in cases {
        let dir = (*name).to_owned();
        context.write(
            &format!("{dir}/SKILL.md"),
            SKILL.replace("name: s", &format!("name: {name}")),
        );
        for (file, text) in *files {
            context.write(&format!("{dir}/{file}"), text);
        }
        let output = format!("out/{name}.skill");
        let (code, _, stderr) = run(context.command(&["package", &dir, "-o", &output]));
        assert_eq!(code, 1, "{name}: {stderr}");
        assert!(stderr.contains(expected), "{name}: {stderr}");
        assert!(!context.root().join(&output).exists(), "{name}");
    }
    // A name the spec allows but no archive's folder can carry.
    for name in ["café", "con"] {
        context.write(
            &format!("{name}/SKILL.md"),
            SKILL.replace("name: s", &format!("name: {name}")),
        );
        let (code, _, stderr) = run(context.command(&["validate", name]));
        assert_eq!(code, 0, "{name}: {stderr}");
        let (code, _, stderr) = run(context.command(&["package", name, "-o", "out/named.skill"]));
        assert_eq!(code, 1, "{name}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "`{name}` cannot name the skill's folder in an archive"
            )),
            "{name}: {stderr}"
        );
        assert!(!context.root().join("out/named.skill").exists(), "{name}");
    }
    // A highly compressible skill that unpack would take for a bomb is refused too.
    context.write("zeros/SKILL.md", SKILL.replace("name: s", "name: zeros"));
    context.write("zeros/data.bin", vec![0u8; 40 * 1024 * 1024]);
    let (code, _, stderr) = run(context.command(&["package", "zeros", "-o", "out/zeros.skill"]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("would be refused when unpacked"),
        "{stderr}"
    );
    assert!(!context.root().join("out/zeros.skill").exists());
}

/// Runs `command`, killing it if it has not finished within a minute (a hang is the bug).
fn run_or_kill(mut command: std::process::Command) -> (i32, String, String) {
    use std::io::Read as _;
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{command:?} hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.code().unwrap_or(-1), stdout, stderr)
}

#[cfg(target_os = "linux")]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// A `SKILL.md` that is a FIFO or a link to `/dev/zero` (git commits both) used to hang or grow
/// to gigabytes; a FIFO anywhere in a skill hung `lint`, `preview` and `package`. They are
/// refused, naming the file, and every command finishes.
#[cfg(target_os = "linux")]
#[test]
fn files_that_are_not_regular_are_refused_without_hanging() {
    let context = TestContext::new();
    fs_err::create_dir_all(context.root().join("fifo")).unwrap();
    mkfifo(&context.root().join("fifo/SKILL.md"));
    fs_err::create_dir_all(context.root().join("zero")).unwrap();
    symlink("/dev/zero", &context.root().join("zero/SKILL.md"));
    let commands: &[&[&str]] = &[
        &["validate"],
        &["lint"],
        &["preview", "--target", "claude-code"],
        &["package", "-o", "out.skill"],
    ];
    for skill in ["fifo", "zero"] {
        for args in commands {
            let mut all = args.to_vec();
            all.insert(1, skill);
            let (code, _, stderr) = run_or_kill(context.command(&all));
            assert_ne!(code, 0, "{all:?}: {stderr}");
            assert!(
                stderr.contains("SKILL.md")
                    && (stderr.contains("not a regular file") || stderr.contains("no SKILL.md")),
                "{all:?}: {stderr}"
            );
        }
    }
    // An ignore file the walker would read: a FIFO, or a link to /dev/zero.
    for (skill, make) in [("gi-fifo", true), ("gi-zero", false)] {
        context.skill(skill, &SKILL.replace("name: s", &format!("name: {skill}")));
        let ignore = context.root().join(skill).join(".gitignore");
        if make {
            mkfifo(&ignore);
        } else {
            symlink("/dev/zero", &ignore);
        }
        for args in commands {
            let mut all = args.to_vec();
            all.insert(1, skill);
            let (code, _, stderr) = run_or_kill(context.command(&all));
            // preview lists skills as Claude Code does, which never reads ignore files.
            if args[0] == "preview" {
                assert_eq!(code, 0, "{all:?}: {stderr}");
                continue;
            }
            assert_ne!(code, 0, "{all:?}: {stderr}");
            assert!(
                stderr.contains(".gitignore") && stderr.contains("not a regular file"),
                "{all:?}: {stderr}"
            );
        }
        fs_err::remove_dir_all(context.root().join(skill)).unwrap();
    }
    // A FIFO beside a sound SKILL.md.
    context.skill("s", SKILL);
    fs_err::create_dir_all(context.root().join("s/references")).unwrap();
    mkfifo(&context.root().join("s/references/pipe.md"));
    for args in [
        &["validate", "s"][..],
        &["lint", "s"],
        &["preview", "s", "--target", "claude-code"],
    ] {
        let (code, _, stderr) = run_or_kill(context.command(args));
        assert!(code == 0 || code == 1, "{args:?}: {stderr}");
    }
    let (code, _, stderr) = run_or_kill(context.command(&["package", "s", "-o", "out/s.skill"]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("`references/pipe.md` is a FIFO"),
        "{stderr}"
    );
}

/// A skill file over the read cap is refused at once, not read whole.
#[test]
fn a_huge_skill_file_is_refused_naming_it() {
    let context = TestContext::new();
    let mut text = SKILL.to_owned();
    text.push_str(&"A line of a generated monster.\n".repeat(40_000));
    context.skill("big", &text.replace("name: s", "name: big"));
    for args in [
        &["validate", "big"][..],
        &["lint", "big"],
        &["preview", "big"],
    ] {
        let (code, _, stderr) = run_or_kill(context.command(args));
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("big/SKILL.md is larger than 1048576 bytes"),
            "{args:?}: {stderr}"
        );
    }
}

/// A staging folder that a killed unpack left behind is removed by the next unpack into the
/// same folder; one belonging to a live process is left alone.
#[cfg(target_os = "linux")]
#[test]
fn the_next_unpack_removes_what_a_killed_one_left() {
    let context = TestContext::new();
    context.skill("s", SKILL);
    let (code, _, stderr) = run(context.command(&["package", "s", "-o", "s.skill"]));
    assert_eq!(code, 0, "{stderr}");
    // Beyond Linux's largest pid: certainly not running.
    let dead = context.write("out/.s.999999999.x1y2z3.unpack/SKILL.md", "left behind");
    let alive = context.write(
        &format!("out/.s.{}.a1b2c3.unpack/SKILL.md", std::process::id()),
        "in progress",
    );
    let (code, _, stderr) = run(context.command(&["unpack", "s.skill", "--dir", "out"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(!dead.exists(), "the dead run's staging folder is removed");
    assert!(alive.exists(), "a live process's staging folder is kept");
}

/// Ctrl-C in the middle of unpacking thousands of files removes the staging folder and exits
/// 130; nothing is left in the destination.
#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_unpack_leaves_nothing() {
    let context = TestContext::new();
    context.skill("s", SKILL);
    for index in 0..19_000 {
        context.write(
            &format!("s/data/{:02}/{index:05}.txt", index % 50),
            index.to_string(),
        );
    }
    let (code, _, stderr) = run(context.command(&["package", "s", "-o", "s.skill"]));
    assert_eq!(code, 0, "{stderr}");
    let out = context.root().join("out");
    let mut child = context
        .command(&["unpack", "s.skill", "--dir", "out"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until files are being written into the staging folder, then interrupt.
    let started = std::time::Instant::now();
    let staging_has_files = || {
        fs_err::read_dir(&out).is_ok_and(|entries| {
            entries.flatten().any(|entry| {
                entry.file_name().to_string_lossy().ends_with(".unpack")
                    && entry.path().join("data").exists()
            })
        })
    };
    while !staging_has_files() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "unpack finished before it could be interrupted"
        );
        assert!(
            started.elapsed().as_secs() < 60,
            "no staging folder appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let left: Vec<String> = fs_err::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// The registry runs the same checks: an archive whose local header hides `../../x` behind a
/// harmless central name is refused at publish (422), so it is never stored or served.
#[test]
fn the_registry_refuses_an_archive_that_lies() {
    use crate::registry::{Registry, put, sha256};
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let token = registry.token("mallory");
    let skill = SKILL.replace("name: s", "name: liar");
    let liar = RawZip::new(&[
        ("liar/SKILL.md", "liar/SKILL.md", skill.as_bytes()),
        ("liar/notes.md", "../../x", b"escaped"),
    ])
    .bytes();
    let (status, body) = put(
        &registry,
        "/api/v1/skills/liar/1.0.0",
        &token,
        &liar,
        &sha256(&liar),
    );
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("has the local name `../../x`"), "{body}");
    let honest = RawZip::new(&[("liar/SKILL.md", "liar/SKILL.md", skill.as_bytes())]).bytes();
    let (status, body) = put(
        &registry,
        "/api/v1/skills/liar/1.0.0",
        &token,
        &honest,
        &sha256(&honest),
    );
    assert_eq!(status, 201, "{body}");
}
