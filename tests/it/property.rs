//! No input makes the parser, the rules or the reporters panic; `--fix` twice is `--fix` once;
//! packing then unpacking keeps every file.

use proptest::prelude::*;

/// Reads `bytes` as a skill file, checks and lints it for every target, renders every format
/// and Claude Code's invocation: the `skill_md` fuzz target's property.
fn exercise(bytes: &[u8]) {
    crate::fuzzed::properties::skill_md(bytes);
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
        exercise(&bytes);
    }

    #[test]
    fn arbitrary_frontmatter_never_panics(bytes in frontmatter_file()) {
        exercise(&bytes);
    }

    #[test]
    fn arbitrary_bytes_after_a_valid_opening_never_panic(tail in prop::collection::vec(any::<u8>(), 0..300)) {
        let mut bytes = b"---\nname: fuzz\ndescription: ".to_vec();
        bytes.extend(tail);
        exercise(&bytes);
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `lint --fix` twice changes nothing more than once, and a valid skill stays valid.
    #[test]
    fn fixing_twice_is_fixing_once(bytes in frontmatter_file()) {
        crate::fuzzed::properties::lint_fix(&bytes);
    }
}

/// A small skill: relative paths (some nested, some executable) and their contents.
fn skill_tree() -> impl Strategy<Value = Vec<(String, Vec<u8>, bool)>> {
    let name = "[a-z0-9_-]{1,8}(\\.[a-z]{1,3})?";
    let path = prop_oneof![
        name.prop_map(|n| n),
        (
            prop_oneof![
                Just("scripts"),
                Just("references"),
                Just("assets"),
                Just("a/b")
            ],
            name
        )
            .prop_map(|(dir, n)| format!("{dir}/{n}")),
    ];
    let content = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..2000),
        "[a-z \\n]{0,3000}".prop_map(String::into_bytes),
        (any::<u8>(), 0..100_000usize).prop_map(|(byte, len)| vec![byte; len]),
    ];
    prop::collection::vec((path, content, any::<bool>()), 0..8)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Packing and unpacking keeps every file: the digest hashed while extracting is the
    /// packer's, and is the digest of the source folder's files.
    #[test]
    fn pack_then_unpack_keeps_the_content_digest(files in skill_tree()) {
        use skillpkg::pack::{archive, extract, select};
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("tree");
        fs_err::create_dir_all(&skill).unwrap();
        fs_err::write(skill.join("SKILL.md"), "---\nname: tree\ndescription: A generated tree. Use when a property test packs it.\n---\n").unwrap();
        let mut written = 1;
        for (path, content, executable) in &files {
            let full = skill.join(path);
            if path.eq_ignore_ascii_case("SKILL.md") || full.exists() {
                continue;
            }
            if fs_err::create_dir_all(full.parent().unwrap()).is_err() {
                continue;
            }
            if fs_err::write(&full, content).is_err() {
                continue;
            }
            written += 1;
            #[cfg(unix)]
            if *executable {
                use std::os::unix::fs::PermissionsExt as _;
                fs_err::set_permissions(&full, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        // Names that differ only in case, for one, are refused before packing, as designed.
        let Ok(selected) = select::select(&skill) else {
            return Ok(());
        };
        let archive_path = dir.path().join("tree.skill");
        let summary = archive::write(fs_err::File::create(&archive_path).unwrap(), "tree/", &selected, 2, &|_| {}).unwrap();
        let extracted = extract::extract(&archive_path, &dir.path().join("out"), &extract::Options::new("tree")).unwrap();
        prop_assert_eq!(&extracted.content_digest, &summary.content_digest);
        let source = archive::folder_digest(&skill, &[], &extract::Limits::default()).unwrap();
        let unpacked = archive::folder_digest(&extracted.dir, &[], &extract::Limits::default()).unwrap();
        prop_assert_eq!(unpacked.as_ref(), Some(&summary.content_digest));
        // Hidden files are not packed: compare with the source only when none was left out.
        if selected.len() == written {
            prop_assert_eq!(source, unpacked);
        }
    }
}
