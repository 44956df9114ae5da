//! Work grows linearly with hostile input: validate's and lint's rules, suppressions, the human
//! report and Claude Code's invocation, run in-process on inputs that used to take quadratic
//! time (64 KB of unclosed links took 60 s, 10,000 suppression comments on one line 60 s,
//! 8,000 `arguments` 6 s). Each input is timed at two sizes in the same run, the larger four
//! times the smaller; linear work grows about 4×, quadratic 16×. The bound is 2.5× per
//! doubling (6.25× for four times the input), so machine speed and load do not matter.

use std::time::{Duration, Instant};

const HEAD: &str =
    "---\nname: q\ndescription: A hostile input. Use when checking that work grows linearly.\n";

/// Everything a `lint` for every target and a `preview --invoke` do with one SKILL.md, and
/// every report format: the `skill_md` fuzz target's property.
fn work(bytes: &[u8]) {
    crate::fuzzed::properties::skill_md(bytes);
}

/// The fastest of a few runs of `work` on `input(n)`.
fn fastest(input: &dyn Fn(usize) -> String, n: usize) -> Duration {
    let bytes = input(n).into_bytes();
    (0..3)
        .map(|_| {
            let started = Instant::now();
            work(&bytes);
            started.elapsed()
        })
        .min()
        .expect("three runs")
}

/// Asserts that four times the input takes at most 6.25 times as long.
fn assert_linear(name: &str, input: &dyn Fn(usize) -> String, n: usize) {
    assert!(
        input(4 * n).len() < 1024 * 1024,
        "{name}: the larger input must stay under the skill file cap"
    );
    let (mut small, mut large) = (Duration::MAX, Duration::MAX);
    // Interleaved, so that load on the machine hits both sizes alike.
    for _ in 0..2 {
        small = small.min(fastest(input, n));
        large = large.min(fastest(input, 4 * n));
    }
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    assert!(
        ratio <= 6.25,
        "{name}: 4x the input took {ratio:.1}x as long ({small:?} -> {large:?})"
    );
}

/// `item(i)` for `i` in `0..n`, each followed by `end`.
fn each(n: usize, end: &str, item: impl Fn(usize) -> String) -> String {
    use std::fmt::Write as _;
    (0..n).fold(String::new(), |mut out, i| {
        let _ = write!(out, "{}{end}", item(i));
        out
    })
}

fn body(text: impl Fn(usize) -> String) -> impl Fn(usize) -> String {
    move |n| format!("{HEAD}---\n{}\n", text(n))
}

fn frontmatter(
    yaml: impl Fn(usize) -> String,
    text: impl Fn(usize) -> String,
) -> impl Fn(usize) -> String {
    move |n| format!("{HEAD}{}---\n{}\n", yaml(n), text(n))
}

#[test]
fn unclosed_links() {
    assert_linear("unclosed links", &body(|n| "[a](".repeat(n)), 5_000);
}

#[test]
fn suppression_comments_on_one_line() {
    let comment = "<!-- skillpkg-disable-next-line SK301 -->";
    assert_linear(
        "suppressions on one line",
        &body(|n| comment.repeat(n)),
        500,
    );
    let lines = "<!-- skillpkg-disable-next-line SK301 -->\n";
    assert_linear(
        "suppressions on their own lines",
        &body(|n| lines.repeat(n)),
        500,
    );
}

#[test]
fn thousands_of_arguments() {
    let names = |n: usize| (0..n).map(|i| format!("a{i}")).collect::<Vec<_>>();
    let used = |n: usize| {
        names(n)
            .iter()
            .map(|name| format!("${name}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let list = move |n: usize| format!("arguments:\n{}", each(n, "\n", |i| format!("  - a{i}")));
    assert_linear("arguments as a list", &frontmatter(list, used), 500);
    let words = |n: usize| {
        format!(
            "arguments: {}\n",
            (0..n)
                .map(|i| format!("b-{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    let used_words = |n: usize| {
        (0..n)
            .map(|i| format!("$b-{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_linear(
        "arguments with hyphens",
        &frontmatter(words, used_words),
        500,
    );
    assert_linear(
        "unclosed $ARGUMENTS[",
        &body(|n| "$ARGUMENTS[".repeat(n)),
        2_500,
    );
}

#[test]
fn thousands_of_allowed_commands_and_inline_shell() {
    let rules = |n: usize| {
        format!(
            "allowed-tools: {}\n",
            (0..n)
                .map(|i| format!("Bash(cmd{i}:*)"))
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    let commands = |n: usize| {
        (0..n)
            .map(|i| format!("!`cmd{i} --flag`"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_linear(
        "allow rules and inline shell",
        &frontmatter(rules, commands),
        500,
    );
    assert_linear("unclosed inline shell", &body(|n| "!`".repeat(n)), 5_000);
}

#[test]
fn thousands_of_keys_and_references() {
    let keys = |n: usize| each(n, "\n", |i| format!("key{i}: 1.{i}"));
    assert_linear(
        "unknown keys with ambiguous values",
        &frontmatter(keys, |_| "Body.".into()),
        250,
    );
    let metadata = |n: usize| format!("metadata:\n{}", each(n, "\n", |i| format!("  k{i}: 1.{i}")));
    assert_linear(
        "metadata values",
        &frontmatter(metadata, |_| "Body.".into()),
        250,
    );
    assert_linear(
        "missing references",
        &body(|n| "references/missing.md ".repeat(n)),
        500,
    );
}

#[test]
fn a_long_document() {
    let section = "# Heading\n\nSome text with a [link](references/a.md), `code` and $ARGUMENTS.\n\n- see scripts/run.py\n- <!-- skillpkg-disable-next-line SK301 -->\n\n```bash\necho hi\n```\n\n!`echo ok` and ${CLAUDE_SKILL_DIR}/scripts/x.sh TODO: finish\n\n";
    assert_linear("a long document", &body(|n| section.repeat(n)), 50);
}

#[test]
fn long_runs_of_paths_and_long_keys() {
    assert_linear(
        "./scripts/ in one run",
        &body(|n| "./scripts/".repeat(n)),
        2_000,
    );
    assert_linear(
        "absolute paths in one run",
        &body(|n| ",/home/".repeat(n)),
        2_000,
    );
    assert_linear(
        "backslash paths in one run",
        &body(|n| "(scripts\\".repeat(n)),
        2_000,
    );
    let chunk = format!("{})", "](".repeat(300));
    assert_linear("unclosed link chunks", &body(move |n| chunk.repeat(n)), 4);
    let long_key = |n: usize| {
        format!(
            "? {}\n:\n{}",
            "k".repeat(8 * n),
            each(n, "\n", |i| format!("  y{i}: yes"))
        )
    };
    assert_linear(
        "a long key over many values",
        &frontmatter(long_key, |_| "Body.".into()),
        250,
    );
    let odd_name = |n: usize| format!("arguments: \"{}\"\n", "x$".repeat(2 * n));
    assert_linear(
        "an argument named x$x$…",
        &frontmatter(odd_name, |n| "$x".repeat(4 * n)),
        500,
    );
}

#[test]
fn aliases_that_double_at_every_level() {
    use std::fmt::Write as _;
    // Each level refers to the one before twice: expanded, n levels are 2^n values. Claude
    // Code's reading types values within a budget, so the work stays linear in the text.
    let doubling = |n: usize| {
        let mut text = String::from("---\nname: q\na0: &a0 [x, y]\n");
        for level in 1..n {
            let _ = writeln!(
                text,
                "a{level}: &a{level} [*a{prev}, *a{prev}]",
                prev = level - 1
            );
        }
        let _ = write!(text, "description: *a{}\n---\nBody\n", n - 1);
        text
    };
    assert_linear("doubling aliases", &doubling, 200);
    let merges = |n: usize| {
        let mut text = String::from("---\nname: q\nm0: &m0 {a: 1, b: 2}\n");
        for level in 1..n {
            let _ = write!(
                text,
                "m{level}: &m{level}\n  <<: [*m{prev}, *m{prev}]\n  k{level}: v\n",
                prev = level - 1
            );
        }
        let _ = write!(text, "<<: *m{}\ndescription: d\n---\nBody\n", n - 1);
        text
    };
    assert_linear("doubling merge keys", &merges, 200);
}

/// The context the precision rules read around a finding (the sentence before a path, the
/// commands of a shell block, what follows a key header) is bounded, and computed once.
#[test]
fn the_context_of_findings_on_one_line() {
    let broad = |rest: String| format!("{HEAD}allowed-tools: Bash Bash Bash\n---\n{rest}\n");
    assert_linear(
        "env after env",
        &move |n| broad(format!("```bash\n{}x\n```", "env ".repeat(n))),
        4_000,
    );
    assert_linear(
        "{baseDir} in inline shell",
        &body(|n| " !`{baseDir}/x`".repeat(n)),
        1_000,
    );
    assert_linear(
        "private key headers on one line",
        &body(|n| "-----BEGIN PRIVATE KEY-----".repeat(n)),
        800,
    );
    assert_linear(
        "missing paths on one line, each in an example",
        &body(|n| each(n, " ", |i| format!("e.g. references/missing-{i}.md"))),
        800,
    );
    assert_linear(
        "template paths",
        &body(|n| each(n, " ", |i| format!("references/{{x}}/{i}/{{y}}.md"))),
        500,
    );
    assert_linear(
        "here-strings and arithmetic",
        &move |n| {
            broad(format!(
                "```bash\n{}\n```",
                "echo $((1 << 2)) <<< x\n".repeat(n)
            ))
        },
        1_000,
    );
}

/// A marketplace listing thousands of plugins, each with a skill: finding each skill's plugin
/// and load group looks up the folder's ancestors in the marketplace's index, not every plugin
/// for every skill (which made `lint` quadratic in the plugins of one marketplace).
#[test]
fn a_marketplace_of_many_plugins() {
    use crate::common::{TestContext, run};
    let time = |n: usize| {
        let cx = TestContext::new();
        cx.write(".git/HEAD", "ref: refs/heads/main\n");
        let plugins: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"name":"p{i}","source":"./plugins/p{i}"}}"#))
            .collect();
        cx.write(
            ".claude-plugin/marketplace.json",
            format!(
                r#"{{"name":"m","owner":{{"name":"o"}},"plugins":[{}]}}"#,
                plugins.join(",")
            ),
        );
        for i in 0..n {
            cx.skill(
                &format!("plugins/p{i}/skills/s{i}"),
                &format!("---\nname: s{i}\ndescription: Handles case {i} of the marketplace test. Use when a test needs case {i}.\n---\n\nSteps.\n"),
            );
        }
        (0..2)
            .map(|_| {
                let started = Instant::now();
                let (code, _, stderr) = run(cx.command(&["lint", ".", "--format", "concise"]));
                assert!(code == 0 || code == 1, "{stderr}");
                started.elapsed()
            })
            .min()
            .expect("two runs")
    };
    let (small, large) = (time(250), time(1000));
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    assert!(
        ratio <= 6.25,
        "4x the plugins took {ratio:.1}x as long ({small:?} -> {large:?})"
    );
}
