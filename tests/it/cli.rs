//! The top level of the command line.

use crate::common::{TestContext, run};
use crate::snapshot;

#[test]
fn help_lists_the_commands() {
    let context = TestContext::new();
    snapshot!(context, "cli__help", context.command(&["--help"]));
}

#[test]
fn version_prints_the_package_version() {
    let context = TestContext::new();
    let (code, stdout, _) = run(context.command(&["--version"]));
    assert_eq!(code, 0);
    assert_eq!(
        stdout.trim(),
        concat!("skillpkg ", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn no_command_is_a_usage_error() {
    let context = TestContext::new();
    let (code, _, stderr) = run(context.command(&[]));
    assert_eq!(code, 2);
    assert!(stderr.contains("Usage: skillpkg"), "{stderr}");
}

/// Every command's `--help` ends with examples, and every example's command line parses.
#[test]
fn every_command_has_examples_that_parse() {
    use clap::{CommandFactory as _, Parser as _};
    let context = TestContext::new();
    let cli = skillpkg::commands::Cli::command();
    let mut commands: Vec<Vec<String>> = Vec::new();
    for sub in cli.get_subcommands().filter(|sub| sub.get_name() != "help") {
        commands.push(vec![sub.get_name().to_owned()]);
    }
    for args in &commands {
        let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
        all.push("--help");
        let (code, stdout, stderr) = run(context.command(&all));
        assert_eq!(code, 0, "{args:?}: {stderr}");
        let examples = stdout
            .split_once("Examples:\n")
            .unwrap_or_else(|| panic!("`skillpkg {} --help` has no examples:\n{stdout}", args[0]))
            .1;
        for line in examples
            .lines()
            .filter(|line| line.trim_start().starts_with("skillpkg "))
        {
            // The example without its comment, split as a shell would (no quoting beyond "…").
            let command = line.split(" # ").next().unwrap().trim();
            let command = command
                .split(" > ")
                .next()
                .unwrap()
                .split(" >> ")
                .next()
                .unwrap();
            let command = command.split(" | ").next().unwrap();
            let words = shell_words(command);
            let parsed = skillpkg::commands::Cli::try_parse_from(&words);
            assert!(
                parsed.is_ok(),
                "`{command}` does not parse: {}",
                parsed.unwrap_err()
            );
        }
    }
}

/// Splits a command line on spaces, keeping "double-quoted" words whole.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The bash completion script, loaded into a real bash, completes commands and their flags.
#[test]
fn bash_completion_completes_commands_and_flags() {
    let context = TestContext::new();
    let (code, script, stderr) = run(context.command(&["completions", "bash"]));
    assert_eq!(code, 0, "{stderr}");
    context.write("skillpkg.bash", &script);
    let probe = "source ./skillpkg.bash\n\
        complete_words() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_LINE=\"$*\"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _skillpkg skillpkg \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"; printf '%s\\n' \"${COMPREPLY[@]}\"; }\n\
        echo '--'; complete_words skillpkg val\n\
        echo '--'; complete_words skillpkg lint --dif\n";
    let output = std::process::Command::new("bash")
        .arg("-c")
        .arg(probe)
        .current_dir(context.root())
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let parts: Vec<&str> = stdout.split("--\n").collect();
    assert!(parts[1].lines().any(|line| line == "validate"), "{stdout}");
    assert!(parts[2].lines().any(|line| line == "--diff"), "{stdout}");
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let (code, script, _) = run(context.command(&["completions", shell]));
        assert_eq!(code, 0);
        assert!(
            script.contains("validate") && script.contains("include-installed"),
            "{shell}"
        );
    }
}

/// The manual pages: one for skillpkg and one per command, each a page `man` renders.
#[test]
fn man_pages_render() {
    let context = TestContext::new();
    let (code, page, _) = run(context.command(&["man"]));
    assert_eq!(code, 0);
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq") || page.contains(".TH skillpkg 1"),
        "{page}"
    );
    let (code, stdout, stderr) = run(context.command(&["man", "--out-dir", "man1"]));
    assert_eq!(code, 0, "{stderr}");
    let written: Vec<&str> = stdout.lines().collect();
    assert!(written.contains(&"man1/skillpkg.1"), "{stdout}");
    assert!(written.contains(&"man1/skillpkg-validate.1"), "{stdout}");
    assert!(
        written.contains(&"man1/skillpkg-registry-serve.1"),
        "{stdout}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = fs_err::metadata(context.root().join("man1/skillpkg-lint.1"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644, "{mode:o}");
    }
    let page = fs_err::read_to_string(context.root().join("man1/skillpkg-lint.1")).unwrap();
    assert!(page.contains(".TH skillpkg-lint 1"), "{page}");
    assert!(page.contains("include\\-installed"), "{page}");
    // Rendered by the system's man, when there is one.
    if let Ok(output) = std::process::Command::new("man")
        .args(["-l", "-P", "cat"])
        .arg(context.root().join("man1/skillpkg-lint.1"))
        .env("MANWIDTH", "100")
        .output()
        && output.status.success()
    {
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(text.contains("skillpkg-lint"), "{text}");
    }
}

/// --quiet keeps what was found and drops summaries and notes; --verbose says what was looked at.
#[test]
fn quiet_and_verbose() {
    let context = TestContext::new();
    context.write(
        "skills/good/SKILL.md",
        "---\nname: good\ndescription: Says hello to the user. Use when the user greets you.\n---\nSay hello.\n",
    );
    context.write(
        "skills/bad/SKILL.md",
        "---\nname: Bad\ndescription: x\n---\n",
    );
    let (code, stdout, stderr) = run(context.command(&["validate", "-q", "skills/good"]));
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
    let (code, _, stderr) = run(context.command(&["validate", "--quiet", "skills"]));
    assert_eq!(code, 1);
    assert!(stderr.contains("error[SK105]"), "{stderr}");
    assert!(!stderr.contains("Checked 2 skills"), "{stderr}");
    let (_, _, stderr) = run(context.command(&["validate", "skills"]));
    assert!(stderr.contains("Checked 2 skills"), "{stderr}");
    // Codex loads a skill whatever its name looks like (a warning); the spec does not.
    let (code, _, stderr) = run(context.command(&["-v", "validate", "skills", "-t", "codex"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.starts_with("found 2 skills under `skills`\n  2 checked for codex\n"),
        "{stderr}"
    );
    let (code, _, stderr) =
        run(context.command(&["-v", "validate", "skills", "-t", "agentskills"]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("\nfinished in "), "{stderr}");
    let (code, _, stderr) = run(context.command(&["validate", "-q", "-v", "skills"]));
    assert_eq!(code, 2, "{stderr}");
}
