//! A deterministic generator of synthetic skill trees for benchmarks.
//!
//! Modelled on the corpus in `docs/research/peers.md` §4, so figures compare with the peers
//! measured there: each skill is `OUT/<name>/SKILL.md` plus 1–3 linked `references/*.md`, 1–2
//! executable `scripts/*`, and for 30 % of skills `assets/template.md`. 30 % of skills carry
//! exactly one defect, spread evenly over seven kinds.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// Bumped whenever the generator's output changes, so cached corpora are rebuilt.
pub(crate) const VERSION: u32 = 2;

/// The defects a generated skill can carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Valid,
    BadName,
    LongDescription,
    UnknownField,
    MissingDescription,
    BrokenYaml,
    UnquotedColon,
    LongBody,
}

impl Kind {
    const DEFECTS: [Kind; 7] = [
        Kind::BadName,
        Kind::LongDescription,
        Kind::UnknownField,
        Kind::MissingDescription,
        Kind::BrokenYaml,
        Kind::UnquotedColon,
        Kind::LongBody,
    ];

    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::Valid => "valid",
            Kind::BadName => "bad-name",
            Kind::LongDescription => "long-description",
            Kind::UnknownField => "unknown-field",
            Kind::MissingDescription => "missing-description",
            Kind::BrokenYaml => "broken-yaml",
            Kind::UnquotedColon => "unquoted-colon",
            Kind::LongBody => "long-body",
        }
    }
}

/// xorshift64*: small, fast and the same on every machine.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        usize::try_from(self.next() % n).unwrap_or_default()
    }

    pub(crate) fn range(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }

    pub(crate) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub(crate) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const VERBS: &[&str] = &[
    "analyse",
    "format",
    "convert",
    "review",
    "summarise",
    "extract",
    "validate",
    "render",
    "migrate",
    "audit",
];
const NOUNS: &[&str] = &[
    "invoices",
    "logs",
    "charts",
    "contracts",
    "schemas",
    "tickets",
    "releases",
    "datasets",
    "diagrams",
    "reports",
];
const WORDS: &[&str] = &[
    "the", "file", "data", "user", "report", "table", "each", "value", "check", "output", "step",
    "run", "script", "result", "field", "with", "from", "into", "when", "then",
];

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut out = String::new();
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(WORDS));
    }
    out
}

/// Writes `count` skills under `out` and returns the kind of each, in folder order.
pub(crate) fn generate(out: &Path, count: usize, seed: u64) -> io::Result<Vec<(String, Kind)>> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut manifest = Vec::with_capacity(count);
    let defects = count * 3 / 10;
    for index in 0..count {
        // Spread defects evenly: every third-and-a-bit skill, cycling through the kinds.
        let defect_index = index * defects / count;
        let kind = if defect_index == (index + 1) * defects / count {
            Kind::Valid
        } else {
            Kind::DEFECTS[defect_index % Kind::DEFECTS.len()]
        };
        let verb = rng.pick(VERBS);
        let noun = rng.pick(NOUNS);
        let mut name = format!("{verb}-{noun}-{index:05}");
        if kind == Kind::BadName {
            name = match rng.below(4) {
                0 => format!("{}_{}_{index:05}", capitalise(verb), capitalise(noun)),
                1 => format!("{verb}--{noun}-{index:05}"),
                2 => format!("{verb}-{noun}-{index:05}-"),
                _ => format!("{verb}-{noun}-{}-{index:05}", "extra".repeat(12)),
            };
        }
        let dir = out.join(&name);
        write_skill(&dir, &name, verb, noun, kind, &mut rng)?;
        manifest.push((name, kind));
    }
    Ok(manifest)
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn write_skill(
    dir: &Path,
    name: &str,
    verb: &str,
    noun: &str,
    kind: Kind,
    rng: &mut Rng,
) -> io::Result<()> {
    fs_err::create_dir_all(dir.join("references"))?;
    fs_err::create_dir_all(dir.join("scripts"))?;
    let references = rng.range(1, 3);
    let scripts = rng.range(1, 2);
    let front = frontmatter(name, verb, noun, kind, rng);
    let body = body(name, kind, references, scripts, rng);
    fs_err::write(dir.join("SKILL.md"), format!("{front}\n{body}"))?;
    resources(dir, references, scripts, rng)
}

fn frontmatter(name: &str, verb: &str, noun: &str, kind: Kind, rng: &mut Rng) -> String {
    let words = rng.range(3, 40);
    let mut description = format!(
        "{} {noun} and report what needs attention. Use when the user asks to {verb} {noun}, mentions {noun} files, or wants a summary of {}.",
        capitalise(verb),
        sentence(rng, words)
    );
    if kind == Kind::LongDescription {
        let target = rng.range(1_100, 1_600);
        while description.len() < target {
            description.push(' ');
            description.push_str(&sentence(rng, 10));
        }
        description.truncate(target);
    }
    let mut front = format!("---\nname: {name}\n");
    match kind {
        Kind::MissingDescription => {}
        Kind::UnquotedColon => {
            let _ = writeln!(
                front,
                "description: Use when: the user asks to {verb} {noun}"
            );
        }
        _ => {
            let _ = writeln!(front, "description: {description}");
        }
    }
    if rng.chance(30) {
        front.push_str("license: Apache-2.0\n");
    }
    if rng.chance(30) {
        front.push_str("metadata:\n  author: example-org\n  version: \"1.2\"\n");
    }
    if rng.chance(20) {
        front.push_str("compatibility: Requires Python 3.11+ and network access\n");
    }
    match kind {
        Kind::UnknownField => {
            let field = rng.pick(&[
                "author: someone",
                "version: 1.0.0",
                "tags: [a, b]",
                "triggers: always",
                "model-hint: fast",
            ]);
            let _ = writeln!(front, "{field}");
        }
        Kind::BrokenYaml => {
            let broken = rng.pick(&[
                "allowed-tools: [Read, Write",
                "metadata:\n  author: x\n bad: indent",
                "metadata:\n\tauthor: x",
            ]);
            let _ = writeln!(front, "{broken}");
        }
        _ => {}
    }
    front.push_str("---\n");
    front
}

fn body(name: &str, kind: Kind, references: usize, scripts: usize, rng: &mut Rng) -> String {
    let lines = if kind == Kind::LongBody {
        rng.range(520, 900)
    } else {
        rng.range(30, 150)
    };
    let mut body = format!("# {}\n\n## Steps\n\n", capitalise(&name.replace('-', " ")));
    for r in 0..references {
        let _ = writeln!(
            body,
            "- Read [reference {r}](references/ref-{r}.md) when the task needs detail {r}."
        );
    }
    for s in 0..scripts {
        let _ = writeln!(
            body,
            "- Run `scripts/run-{s}.py --help` to see the options."
        );
    }
    body.push('\n');
    for line in 0..lines {
        let words = rng.range(5, 14);
        let _ = writeln!(body, "{}. {}.", line + 1, sentence(rng, words));
    }
    body
}

fn resources(dir: &Path, references: usize, scripts: usize, rng: &mut Rng) -> io::Result<()> {
    for r in 0..references {
        let mut text = format!("# Reference {r}\n\n");
        for _ in 0..rng.range(20, 80) {
            let _ = writeln!(text, "{}.", sentence(rng, 12));
        }
        fs_err::write(dir.join(format!("references/ref-{r}.md")), text)?;
    }
    for s in 0..scripts {
        let path = dir.join(format!("scripts/run-{s}.py"));
        fs_err::write(
            &path,
            "#!/usr/bin/env python3\n\"\"\"Does one step.\"\"\"\nimport sys\nprint(sys.argv)\n",
        )?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs_err::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
    }
    if rng.chance(30) {
        fs_err::create_dir_all(dir.join("assets"))?;
        fs_err::write(dir.join("assets/template.md"), "# Template\n\n{{title}}\n")?;
    }
    Ok(())
}

/// A skill of about `bytes` bytes in `files` files, like the big skill of
/// `docs/research/peers.md` §4: SKILL.md, `references/index.md`, `scripts/run_0.py`, then files
/// in 20 sub-folders with log-normal sizes; 60 % of the bytes are text (`.md .txt .py .json
/// .csv`, words and numbers), 40 % random binary (`.png .bin .pdf .woff2`), which does not
/// compress.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss
)]
pub(crate) fn big_skill(out: &Path, bytes: u64, files: usize, seed: u64) -> io::Result<()> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    fs_err::create_dir_all(out.join("references"))?;
    fs_err::create_dir_all(out.join("scripts"))?;
    fs_err::write(
        out.join("SKILL.md"),
        "---\nname: big-skill\ndescription: A large skill for packaging benchmarks. Use when measuring skillpkg package.\n---\n\n# Big skill\n\nRead [the index](references/index.md); run `scripts/run_0.py`; data is under `assets/`.\n",
    )?;
    fs_err::write(
        out.join("references/index.md"),
        "# Index\n\nEverything is under assets/.\n",
    )?;
    fs_err::write(
        out.join("scripts/run_0.py"),
        "#!/usr/bin/env python3\nprint('run')\n",
    )?;
    // Log-normal-ish sizes: exp of a sum of uniforms, scaled to the total afterwards.
    let raw: Vec<f64> = (0..files)
        .map(|_| {
            let sum: f64 = (0..6).map(|_| (rng.below(1000) as f64) / 1000.0).sum();
            (sum * 1.6).exp()
        })
        .collect();
    let scale = bytes as f64 / raw.iter().sum::<f64>();
    let text_ext = ["md", "txt", "py", "json", "csv"];
    let binary_ext = ["png", "bin", "pdf", "woff2"];
    for (index, weight) in raw.iter().enumerate() {
        let size = ((weight * scale) as usize).max(16);
        let folder = out.join(format!("assets/part-{:02}", index % 20));
        fs_err::create_dir_all(&folder)?;
        let binary = rng.below(100) < 40;
        let (name, data) = if binary {
            let ext = binary_ext[rng.below(binary_ext.len())];
            let data: Vec<u8> = (0..size).map(|_| (rng.next() >> 24) as u8).collect();
            (format!("file-{index:04}.{ext}"), data)
        } else {
            let ext = text_ext[rng.below(text_ext.len())];
            let mut text = String::with_capacity(size + 16);
            while text.len() < size {
                text.push_str(rng.pick(WORDS));
                text.push(if rng.below(12) == 0 { '\n' } else { ' ' });
                if rng.below(8) == 0 {
                    let _ = write!(text, "{} ", rng.below(100_000));
                }
            }
            text.truncate(size);
            (format!("file-{index:04}.{ext}"), text.into_bytes())
        };
        fs_err::write(folder.join(name), data)?;
    }
    Ok(())
}

/// A skill of `files` files of word-like text around `around` bytes each (±20 %): words made
/// of two to four syllables from a vocabulary of 4,000, drawn with a Zipf-like skew, in
/// sentences and paragraphs, like prose or documentation in a language the compressor has
/// not seen. Text of the 20 words above compresses far better than real text; this does not.
#[allow(clippy::cast_possible_truncation)]
pub(crate) fn word_text_skill(
    out: &Path,
    files: usize,
    around: usize,
    seed: u64,
) -> io::Result<()> {
    const SYLLABLES: &[&str] = &[
        "ka", "lo", "mi", "ne", "ru", "sa", "ti", "po", "ve", "da", "gri", "stan", "por", "tel",
        "min", "quo", "ber", "lin", "ex", "al", "on", "ur", "ith", "dre", "cla", "fo", "ment",
        "tion", "ble", "ing", "ous", "er", "ly", "pre", "con", "dis", "ad", "com", "vi", "za",
    ];
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let vocabulary: Vec<String> = (0..4000)
        .map(|_| {
            (0..rng.range(1, 4))
                .map(|_| rng.pick(SYLLABLES))
                .collect::<String>()
        })
        .collect();
    fs_err::create_dir_all(out.join("references"))?;
    fs_err::write(
        out.join("SKILL.md"),
        "---\nname: word-text\ndescription: A skill of word-like text for packaging benchmarks. Use when measuring skillpkg package.\n---\n\n# Word text\n\nRead the files under `references/`.\n",
    )?;
    for index in 0..files {
        let size = around * 4 / 5 + rng.below(around * 2 / 5 + 1);
        let mut text = String::with_capacity(size + 64);
        let mut sentence_start = true;
        while text.len() < size {
            // Zipf-like: the square of a uniform index favours the first words.
            let pick = rng.below(vocabulary.len());
            let word = &vocabulary[pick * pick / vocabulary.len()];
            if sentence_start {
                text.push_str(&capitalise(word));
                sentence_start = false;
            } else {
                text.push_str(word);
            }
            match rng.below(40) {
                0..=2 => {
                    text.push_str(". ");
                    sentence_start = true;
                }
                3 => text.push_str(", "),
                4 => {
                    text.push_str(".\n\n");
                    sentence_start = true;
                }
                _ => text.push(' '),
            }
        }
        text.truncate(size);
        let folder = out.join(format!("references/part-{:02}", index % 20));
        fs_err::create_dir_all(&folder)?;
        fs_err::write(folder.join(format!("text-{index:04}.md")), text)?;
    }
    Ok(())
}
