//! No input makes the parser, the rules or the reporters panic.

use std::path::PathBuf;

use proptest::prelude::*;
use skillpkg::check::target::Target;
use skillpkg::check::{check_set, check_skill};
use skillpkg::output::{self, Format, Report};
use skillpkg::skill::Skill;

/// Reads `bytes` as a skill file, checks it for every target and renders every format.
fn exercise(bytes: Vec<u8>) {
    let skill = Skill::from_bytes(PathBuf::from("skills/fuzz/SKILL.md"), "fuzz".into(), bytes);
    let mut checked = vec![check_skill(skill, &Target::ALL)];
    check_set(&mut checked);
    let report = Report {
        checked: &checked,
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
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        output::write(format, &report, &mut stdout, &mut stderr).expect("writing to memory");
        if format == Format::Json || format == Format::Sarif {
            serde_json::from_slice::<serde_json::Value>(&stdout).expect("valid JSON");
        }
    }
}

/// Pieces of YAML frontmatter, including the ones that trip parsers up.
fn yaml_line() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("name".to_owned()),
        Just("description".to_owned()),
        Just("metadata".to_owned()),
        Just("allowed-tools".to_owned()),
        Just("when_to_use".to_owned()),
        Just("user-invocable".to_owned()),
        Just("effort".to_owned()),
        Just("context".to_owned()),
        Just("paths".to_owned()),
        "[a-z_-]{1,12}",
    ];
    let value = prop_oneof![
        "[a-zA-Z0-9 .-]{0,20}",
        Just("Use when: the user asks".to_owned()),
        Just("\"quoted --- value\"".to_owned()),
        Just("'single ''quoted'''".to_owned()),
        Just("[a, b".to_owned()),
        Just("{a: [b, {c: d}]}".to_owned()),
        Just("&anchor value".to_owned()),
        Just("*anchor".to_owned()),
        Just("!!str 12".to_owned()),
        Just("|".to_owned()),
        Just(">-".to_owned()),
        Just("yes".to_owned()),
        Just("1.10".to_owned()),
        Just("~".to_owned()),
        Just("\"\\x\\u12\"".to_owned()),
        Just("技能 👍🏽 <tag> & é\u{301}".to_owned()),
        "\\PC{0,12}",
    ];
    let indent = prop_oneof![Just(""), Just("  "), Just("    "), Just("\t"), Just(" \t ")];
    let ending = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    prop_oneof![
        (indent.clone(), key, value, ending.clone())
            .prop_map(|(indent, key, value, ending)| format!("{indent}{key}: {value}{ending}")),
        (indent, "[a-z]{0,8}", ending.clone())
            .prop_map(|(indent, item, ending)| format!("{indent}- {item}{ending}")),
        ending.prop_map(str::to_owned),
        Just("---\n".to_owned()),
        Just("--- x\n".to_owned()),
        Just("...\n".to_owned()),
        Just("# comment ---\n".to_owned()),
    ]
}

fn frontmatter_file() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        prop::collection::vec(yaml_line(), 0..12),
        prop_oneof![
            Just("---\n"),
            Just("----\n"),
            Just("--- \n"),
            Just(""),
            Just("---")
        ],
        "\\PC{0,40}",
    )
        .prop_map(|(bom, lines, close, body)| {
            let mut text = String::new();
            if bom {
                text.push('\u{feff}');
            }
            text.push_str("---\n");
            for line in lines {
                text.push_str(&line);
            }
            text.push_str(close);
            text.push_str(&body);
            text.into_bytes()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        exercise(bytes);
    }

    #[test]
    fn arbitrary_frontmatter_never_panics(bytes in frontmatter_file()) {
        exercise(bytes);
    }

    #[test]
    fn arbitrary_bytes_after_a_valid_opening_never_panic(tail in prop::collection::vec(any::<u8>(), 0..300)) {
        let mut bytes = b"---\nname: fuzz\ndescription: ".to_vec();
        bytes.extend(tail);
        exercise(bytes);
    }
}

/// Text that is hard to write as a YAML scalar: indicators, keywords, numbers, breaks.
fn scalar_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-zA-Z0-9 ]{1,6}",
        Just(": ".to_owned()),
        Just(" #".to_owned()),
        Just("#".to_owned()),
        Just("-".to_owned()),
        Just("'".to_owned()),
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just("{".to_owned()),
        Just("[".to_owned()),
        Just("*".to_owned()),
        Just("&".to_owned()),
        Just("!".to_owned()),
        Just("@".to_owned()),
        Just("`".to_owned()),
        Just("|".to_owned()),
        Just(">".to_owned()),
        Just("%".to_owned()),
        Just("?".to_owned()),
        Just("yes".to_owned()),
        Just("Off".to_owned()),
        Just("~".to_owned()),
        Just("null".to_owned()),
        Just("1.0".to_owned()),
        Just("0x1F".to_owned()),
        Just("2026-01-31".to_owned()),
        Just("1:30".to_owned()),
        Just(".inf".to_owned()),
        Just("\n".to_owned()),
        Just("\t".to_owned()),
        Just("\r".to_owned()),
        Just("\u{85}\u{2028}\u{feff}\u{0}\u{7f}".to_owned()),
        Just("技能 é\u{301} 👍🏽".to_owned()),
        "\\PC{1,4}",
    ];
    prop::collection::vec(piece, 1..6).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// What `init` writes into frontmatter reads back as exactly the text, as a string.
    #[test]
    fn yaml_scalars_round_trip(text in scalar_text()) {
        use skillpkg::skill::yaml::{self, NodeKind, Resolved};
        let document = format!("key: {}\n", yaml::scalar(&text));
        let parsed = yaml::parse(&document, 0..document.len())
            .map_err(|error| TestCaseError::fail(format!("{document:?}: {error:?}")))?;
        let NodeKind::Mapping { entries, .. } = &parsed.node(parsed.root().unwrap()).kind else {
            return Err(TestCaseError::fail(format!("{document:?} is not a mapping")));
        };
        let scalar = parsed.scalar(entries[0].1).expect("a scalar value");
        prop_assert_eq!(&scalar.value, &text, "{:?}", document);
        prop_assert_eq!(scalar.resolve(), Resolved::Str, "{:?}", document);
    }
}
