//! `skillpkg lsp` in a real editor: headless Neovim (0.7, Debian's) starts the server through
//! its built-in LSP client, as a user's configuration does, on a skill with known problems.
//!
//! What it proves, end to end through Neovim's own client code:
//!
//! - the editor receives the findings `skillpkg lint` reports, with the same codes, severities,
//!   messages and positions (line 9 has a 2-UTF-16-unit emoji and multi-byte characters before
//!   the finding, so a position in the wrong encoding lands on another column);
//! - the quick fix offered for SK015 (not a suppression), applied by Neovim
//!   (`vim.lsp.util.apply_workspace_edit`) and written, gives exactly the file `lint --fix` writes;
//! - the server follows the edit (incremental `didChange`) and publishes again without the
//!   fixed finding, agreeing again with `skillpkg lint` on the file as written;
//! - it ends cleanly on the client's `shutdown` and `exit`.
//!
//! The editor is driven by `tests/fixtures/lsp/neovim.lua`, which writes what it observed to a
//! JSON file that this test reads. Without `nvim` (0.7 or later) on PATH the test says so and
//! passes; `SKILLPKG_REQUIRE_EDITORS=1` (which `.ci/run` sets) makes that a failure. Each wait in
//! the editor is bounded, and Neovim is killed if it runs for more than a minute.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{TestContext, run};

/// The skill as written: SK015 (`yes` reads as a boolean in YAML 1.1) on line 4, and SK303 (a
/// link to a missing file) on line 9, after characters of 2, 3 and 4 bytes.
const SKILL: &str = "---
name: pdf-forms
description: Fill in PDF forms and flatten them. Use when the user asks to fill a PDF form.
compatibility: yes
---

# PDF forms

See [the API 📄](references/api.md) and [missing — café](references/nope.md).
";

/// The skill after the quick fix, byte for byte.
const FIXED: &str = "---
name: pdf-forms
description: Fill in PDF forms and flatten them. Use when the user asks to fill a PDF form.
compatibility: \"yes\"
---

# PDF forms

See [the API 📄](references/api.md) and [missing — café](references/nope.md).
";

/// How long each wait inside the editor may take.
const WAIT: Duration = Duration::from_secs(10);

/// How long Neovim may run at all before it is killed.
const WATCHDOG: Duration = Duration::from_secs(60);

/// `nvim` on PATH, if it is 0.7 or later (`vim.diagnostic`, `apply_workspace_edit` with an
/// encoding); `None` with a message when it is not there and not required.
#[allow(
    clippy::print_stderr,
    reason = "the skip must be seen in the test output"
)]
fn neovim(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("nvim"))
            .find(|path| path.is_file())
    });
    let why = match &found {
        None => "nvim is not on PATH".to_owned(),
        Some(nvim) => {
            let version = Command::new(nvim)
                .arg("--version")
                .stdin(Stdio::null())
                .output()
                .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
                .unwrap_or_default();
            // "NVIM v0.7.2"
            let number = version
                .lines()
                .next()
                .and_then(|line| line.strip_prefix("NVIM v"))
                .unwrap_or("");
            let mut parts = number.split(['.', '-']).map(str::parse::<u32>);
            match (parts.next(), parts.next()) {
                (Some(Ok(major)), Some(Ok(minor))) if (major, minor) >= (0, 7) => return found,
                _ => format!("{} is not Neovim 0.7 or later ({number:?})", nvim.display()),
            }
        }
    };
    assert!(
        std::env::var("SKILLPKG_REQUIRE_EDITORS").as_deref() != Ok("1"),
        "{test}: {why} and SKILLPKG_REQUIRE_EDITORS=1: install Debian's `neovim` package"
    );
    eprintln!(
        "skipping {test}: {why} (install Debian's `neovim`; SKILLPKG_REQUIRE_EDITORS=1 makes this \
         a failure)"
    );
    None
}

/// A finding as `skillpkg lint --format json` places it: code, severity, first line of the
/// message, and 1-based line and character columns (end exclusive).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Finding {
    code: String,
    severity: String,
    message: String,
    line: u64,
    column: u64,
    end_line: u64,
    end_column: u64,
}

/// `skillpkg lint --format json skills` on the context's skills, as CI runs it.
fn lint(context: &TestContext) -> Vec<Finding> {
    let (code, stdout, stderr) = run(context.command(&["lint", "--format", "json", "skills"]));
    assert_eq!(code, 0, "skillpkg lint failed:\n{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("lint --format json prints JSON");
    let mut findings: Vec<Finding> = report["skills"]
        .as_array()
        .expect("the report's skills")
        .iter()
        .flat_map(|skill| skill["diagnostics"].as_array().expect("a skill's findings"))
        .map(|d| Finding {
            code: d["code"].as_str().unwrap().to_owned(),
            severity: d["severity"].as_str().unwrap().to_owned(),
            message: d["message"].as_str().unwrap().to_owned(),
            line: d["line"].as_u64().unwrap(),
            column: d["column"].as_u64().unwrap(),
            end_line: d["end_line"].as_u64().unwrap(),
            end_column: d["end_column"].as_u64().unwrap(),
        })
        .collect();
    findings.sort();
    findings
}

/// Each finding's code and line, to say which findings a report has.
fn codes_and_lines(findings: &[Finding]) -> Vec<(&str, u64)> {
    findings.iter().map(|f| (f.code.as_str(), f.line)).collect()
}

/// What Neovim's `vim.diagnostic` holds (0-based lines, 0-based byte columns in the buffer),
/// placed as `lint` places findings: 1-based lines, 1-based character columns of `text`.
fn as_lint_reports(diagnostics: &Value, text: &str) -> Vec<Finding> {
    let lines: Vec<&str> = text.lines().collect();
    let column = |line: u64, byte: u64| -> u64 {
        let line = lines[usize::try_from(line).unwrap()];
        let byte = usize::try_from(byte).unwrap();
        assert!(
            line.is_char_boundary(byte),
            "Neovim placed a diagnostic inside a character (byte {byte} of {line:?}): the \
             server's positions are not in the negotiated encoding"
        );
        u64::try_from(line[..byte].chars().count()).unwrap() + 1
    };
    let mut findings: Vec<Finding> = diagnostics
        .as_array()
        .expect("a list of diagnostics")
        .iter()
        .map(|d| {
            assert_eq!(d["source"], "skillpkg", "the source of {d:#}");
            let (lnum, end_lnum) = (d["lnum"].as_u64().unwrap(), d["end_lnum"].as_u64().unwrap());
            Finding {
                code: d["code"].as_str().unwrap_or("(no code)").to_owned(),
                // vim.diagnostic.severity: ERROR = 1, WARN = 2.
                severity: match d["severity"].as_u64() {
                    Some(1) => "error".to_owned(),
                    Some(2) => "warning".to_owned(),
                    other => format!("severity {other:?}"),
                },
                // The server adds help, notes and the fix on the lines after the message.
                message: d["message"]
                    .as_str()
                    .unwrap()
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned(),
                line: lnum + 1,
                column: column(lnum, d["col"].as_u64().unwrap()),
                end_line: end_lnum + 1,
                end_column: column(end_lnum, d["end_col"].as_u64().unwrap()),
            }
        })
        .collect();
    findings.sort();
    findings
}

/// Writes the skill (and the file it links to that exists) under `skills/`; its SKILL.md.
fn write_skill(context: &TestContext) -> PathBuf {
    context.write(
        "skills/pdf-forms/references/api.md",
        "# API\n\nThe form API.\n",
    );
    context.skill("skills/pdf-forms", SKILL)
}

/// The skill's SKILL.md after `skillpkg lint --fix`, in a folder of its own.
fn lint_fix() -> String {
    let context = TestContext::new();
    let skill = write_skill(&context);
    let (code, stdout, stderr) = run(context.command(&["lint", "--fix", "skills"]));
    assert_eq!(code, 0, "skillpkg lint --fix failed:\n{stdout}\n{stderr}");
    fs_err::read_to_string(&skill).unwrap()
}

/// The file's text, or what went wrong reading it, for a failure message.
fn read_or_why(path: &Path) -> String {
    fs_err::read_to_string(path).unwrap_or_else(|error| format!("({error})"))
}

/// Runs `tests/fixtures/lsp/neovim.lua` in headless Neovim on `skill`, with the context's root
/// as the workspace, and returns what it observed; fails with Neovim's output and LSP log when
/// the script failed, and kills Neovim after [`WATCHDOG`].
fn drive(nvim: &Path, context: &TestContext, skill: &Path) -> Value {
    // Neovim's files (its LSP log among them) stay out of the user's home.
    let editor = context.root().join(".editor");
    let out = editor.join("observed.json");
    fs_err::create_dir_all(&editor).unwrap();
    let mut command = Command::new(nvim);
    command
        .args([
            "--headless",
            "--clean",
            "-n",
            "-i",
            "NONE",
            "-u",
            "NONE",
            "-c",
        ])
        .arg(
            "lua local ok, e = pcall(dofile, os.getenv('SKILLPKG_SCRIPT')) \
             if not ok then io.stderr:write(tostring(e)) vim.cmd('cquit! 2') end",
        )
        .current_dir(context.root())
        .env(
            "SKILLPKG_SCRIPT",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lsp/neovim.lua"),
        )
        .env("SKILLPKG_BIN", env!("CARGO_BIN_EXE_skillpkg"))
        .env("SKILLPKG_ROOT", context.root())
        .env("SKILLPKG_SKILL", skill)
        .env("SKILLPKG_OUT", &out)
        .env("SKILLPKG_WAIT", WAIT.as_millis().to_string())
        .env("XDG_CONFIG_HOME", editor.join("config"))
        .env("XDG_DATA_HOME", editor.join("data"))
        .env("XDG_STATE_HOME", editor.join("state"))
        .env("XDG_CACHE_HOME", editor.join("cache"))
        .env_remove("NVIM_LOG_FILE")
        .env_remove("VIMINIT")
        .stdin(Stdio::null())
        .stdout(
            fs_err::File::create(editor.join("stdout"))
                .unwrap()
                .into_parts()
                .0,
        )
        .stderr(
            fs_err::File::create(editor.join("stderr"))
                .unwrap()
                .into_parts()
                .0,
        );
    let started = Instant::now();
    let mut child = command.spawn().expect("start nvim");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > WATCHDOG {
            // The server reads EOF on its stdin when Neovim dies, and exits.
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let logs = || {
        format!(
            "nvim's stderr:\n{}\nnvim's stdout:\n{}\nNeovim's LSP log:\n{}",
            read_or_why(&editor.join("stderr")),
            read_or_why(&editor.join("stdout")),
            read_or_why(&editor.join("cache/nvim/lsp.log")),
        )
    };
    let observed: Value = match fs_err::read_to_string(&out) {
        Ok(json) => serde_json::from_str(&json).expect("the script writes JSON"),
        Err(error) => panic!(
            "Neovim wrote nothing ({error}); it {}\n{}",
            status.map_or_else(
                || format!("was killed after {WATCHDOG:?}"),
                |status| format!("exited with {status}")
            ),
            logs()
        ),
    };
    if let Some(error) = observed["error"].as_str() {
        panic!(
            "in Neovim: {error}\nwhat it observed: {observed:#}\n{}",
            logs()
        );
    }
    assert!(
        status.is_some_and(|status| status.success()),
        "Neovim ended with {status:?}\n{}",
        logs()
    );
    observed
}

#[test]
fn neovim_shows_lints_findings_and_applies_the_quick_fix() {
    let Some(nvim) = neovim("lsp::neovim") else {
        return;
    };
    let context = TestContext::new();
    let skill = write_skill(&context);

    // What CI sees.
    let expected = lint(&context);
    assert_eq!(
        codes_and_lines(&expected),
        [("SK015", 4), ("SK303", 9)],
        "the skill no longer has the findings this test is about: {expected:#?}"
    );

    let observed = drive(&nvim, &context, &skill);
    let context_for = || format!("what Neovim observed: {observed:#}");

    // 1. The editor shows what CI reports, at the same places.
    assert_eq!(
        observed["offset_encoding"],
        "utf-16",
        "Neovim 0.7 offers only UTF-16; {}",
        context_for()
    );
    assert_eq!(
        as_lint_reports(&observed["before"], SKILL),
        expected,
        "Neovim's diagnostics (left) differ from `skillpkg lint` (right); {}",
        context_for()
    );

    // 2. The quick fix Neovim chose for SK015 is lint's fix, not a suppression.
    let titles: Vec<&str> = observed["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|action| action["title"].as_str())
        .collect();
    assert!(
        titles
            .iter()
            .any(|title| title.starts_with("Suppress SK015")),
        "the suppressions of SK015 were not offered beside its fix: {titles:?}"
    );
    assert_eq!(
        observed["chosen"]["title"], "Quote the value",
        "the quick fix for SK015 (offered: {titles:?})"
    );
    assert_eq!(
        observed["chosen"]["preferred"],
        true,
        "a safe fix is the preferred action; {}",
        context_for()
    );

    // 3. Written to disk: exactly the fixed text, which is what Neovim's buffer holds.
    let on_disk = fs_err::read_to_string(&skill).unwrap();
    assert_eq!(
        on_disk, FIXED,
        "SKILL.md on disk after the fix and `:write`"
    );
    assert_eq!(
        lint_fix(),
        FIXED,
        "`skillpkg lint --fix` and the editor's quick fix differ"
    );
    let buffer: Vec<&str> = observed["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line.as_str().unwrap())
        .collect();
    assert_eq!(buffer, FIXED.lines().collect::<Vec<_>>(), "Neovim's buffer");

    // 4. The server linted the edited text and published again: what `lint` now reports on the
    // file as written, SK303 alone.
    let expected_after = lint(&context);
    assert_eq!(
        codes_and_lines(&expected_after),
        [("SK303", 9)],
        "`skillpkg lint` after the fix: {expected_after:#?}"
    );
    assert_eq!(
        as_lint_reports(&observed["after"], FIXED),
        expected_after,
        "Neovim's diagnostics after the fix (left) differ from `skillpkg lint` (right); {}",
        context_for()
    );
    let publishes = observed["publishes"].as_array().unwrap();
    let first = publishes[0]["version"].as_i64().unwrap_or(-1);
    let republished = publishes
        .iter()
        .find(|publish| publish["codes"] == serde_json::json!(["SK303"]))
        .unwrap_or_else(|| panic!("no publish of SK303 alone; {}", context_for()));
    assert!(
        republished["version"]
            .as_i64()
            .is_some_and(|version| version > first),
        "the publish after the fix names a later version of the document than the first; {}",
        context_for()
    );

    // 5. `shutdown` then `exit`: the server ends with success.
    assert_eq!(
        observed["server_exit"],
        serde_json::json!({"code": 0, "signal": 0}),
        "how the server ended; {}",
        context_for()
    );
}
