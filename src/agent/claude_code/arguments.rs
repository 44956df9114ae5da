//! How Claude Code substitutes a skill's arguments into its text: `$ARGUMENTS`, `$ARGUMENTS[N]`,
//! `$N` and named `arguments`, with shell-quote's word splitting, as captured from 2.1.332
//! (`docs/research/claude-code-captures.md` §7) and read from 2.1.88's source
//! (`docs/research/rendering-and-marketplaces.md` A3).

use std::collections::HashMap;

use super::Version;
use crate::agent::claude_code::shell::PrefixTrie;

/// Splits arguments the way the `shell-quote` package does: quotes group, `\` escapes, `$VAR`
/// stays literal. `None` when a quote is never closed.
pub(crate) fn shell_words(args: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = args.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => current.push(other),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            escaped @ ('"' | '\\' | '$' | '`') => current.push(escaped),
                            other => {
                                current.push('\\');
                                current.push(other);
                            }
                        },
                        other => current.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            other => {
                in_word = true;
                current.push(other);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Some(words)
}

/// How Claude Code 2.1.332 splits arguments (it parses them as a shell command): the words of
/// the first command only, up to the first unquoted `;`, `|`, `&`, `<`, `>` or line break, and
/// without the unquoted `$NAME` expansions after the first word. When that leaves nothing, the
/// text split at whitespace.
pub(crate) fn first_command_words(args: &str) -> Vec<String> {
    let end = unquoted_operator(args).unwrap_or(args.len());
    let mut kept = Vec::new();
    for (index, raw) in raw_words(&args[..end]).into_iter().enumerate() {
        let expansion = raw.strip_prefix('$').is_some_and(|name| {
            name.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '{')
        }) && !raw.contains(['\'', '"', '\\']);
        if index > 0 && expansion {
            continue;
        }
        match shell_words(raw) {
            Some(words) => kept.extend(words),
            None => kept.push(raw.to_owned()),
        }
    }
    if kept.is_empty() {
        args.split_whitespace().map(str::to_owned).collect()
    } else {
        kept
    }
}

/// The words of `text` as written (quotes and escapes kept), split at unquoted whitespace.
fn raw_words(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start: Option<usize> = None;
    let mut quote: Option<char> = None;
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        if quote.is_none() && c.is_whitespace() {
            if let Some(begin) = start.take() {
                words.push(&text[begin..at]);
            }
            continue;
        }
        start.get_or_insert(at);
        match (quote, c) {
            (None | Some('"'), '\\') => {
                chars.next();
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some(open), _) if c == open => quote = None,
            _ => {}
        }
    }
    if let Some(begin) = start {
        words.push(&text[begin..]);
    }
    words
}

/// Where the first unquoted shell operator is.
fn unquoted_operator(text: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match (quote, c) {
            (None | Some('"'), '\\') => {
                chars.next();
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some(open), _) if c == open => quote = None,
            (None, ';' | '|' | '&' | '<' | '>' | '\n') => return Some(at),
            _ => {}
        }
    }
    None
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N` and declared `$name`s (A3.1, captures §6–7). Returns the
/// text and whether anything matched; appends `ARGUMENTS:` when nothing did.
pub(crate) fn substitute_arguments(
    content: &str,
    args: Option<&str>,
    names: &[String],
    version: Version,
) -> (String, bool) {
    let Some(args) = args else {
        return (content.to_owned(), false);
    };
    let parsed = match version {
        Version::Current => first_command_words(args),
        Version::V2188 => shell_words(args)
            .unwrap_or_else(|| args.split_whitespace().map(str::to_owned).collect()),
    };
    let names = Names::new(names);
    let (out, matched) = match version {
        Version::Current => substitute_once(content, args, &parsed, &names),
        Version::V2188 => {
            let out = substitute_passes(content, args, &parsed, &names);
            let matched = out != content;
            (out, matched)
        }
    };
    if !matched && !args.is_empty() {
        return (format!("{out}\n\nARGUMENTS: {args}"), false);
    }
    (out, matched)
}

/// Names with characters other than word characters longer than this are not substituted:
/// finding them would cost their length at every `$` (a name like `x$x$…` matches at each).
const MAX_ODD_NAME: usize = 256;

/// The declared argument names, for finding which one follows a `$` without trying each: a
/// name made of word characters can only match the whole word after the `$`, so it is looked
/// up; the others are found by walking a trie along the text.
struct Names {
    /// Word-character names: the first index of each.
    words: HashMap<String, usize>,
    /// The other names.
    others: PrefixTrie,
}

impl Names {
    fn new(names: &[String]) -> Self {
        let mut words = HashMap::new();
        let mut others = PrefixTrie::default();
        for (index, name) in names.iter().enumerate() {
            if !name.is_empty() && name.chars().all(is_word) {
                words.entry(name.clone()).or_insert(index);
            } else if name.len() <= MAX_ODD_NAME {
                others.insert(name, index);
            }
        }
        Self { words, others }
    }

    /// The first name (by index) that `rest` starts with, followed by neither `[` nor a word
    /// character; its length and index.
    fn find(&self, rest: &str) -> Option<(usize, usize)> {
        let followed_well = |len: usize| {
            let after = &rest[len..];
            !after.starts_with('[') && !after.chars().next().is_some_and(is_word)
        };
        let word = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
        let by_word = self
            .words
            .get(&rest[..word])
            .filter(|_| followed_well(word))
            .map(|&index| (word, index));
        let other = self
            .others
            .prefixes_of(rest)
            .filter(|&(len, _)| rest.is_char_boundary(len) && followed_well(len))
            .min_by_key(|&(_, index)| index);
        match (by_word, other) {
            (Some(a), Some(b)) => Some(if a.1 < b.1 { a } else { b }),
            (found, other) => found.or(other),
        }
    }
}

/// The length of `[N]` at the start of `text` (digits between brackets), if it is there;
/// counted, not searched for, so unclosed brackets cost nothing.
fn index_brackets(text: &str) -> Option<usize> {
    let inner = text.strip_prefix('[')?;
    let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && inner.as_bytes().get(digits) == Some(&b']')).then_some(digits)
}

/// What follows `$` at `rest`: the placeholder's length and its value (`None`: stays literal).
fn placeholder<'a>(
    rest: &str,
    args: &'a str,
    parsed: &'a [String],
    names: &Names,
    missing_empty: bool,
) -> Option<(usize, Option<&'a str>)> {
    if let Some(after) = rest.strip_prefix("ARGUMENTS") {
        if let Some(end) = index_brackets(after) {
            let inner = &after[1..];
            let index: usize = inner[..end].parse().ok()?;
            let value = parsed
                .get(index)
                .map(String::as_str)
                .or(missing_empty.then_some(""));
            return Some(("ARGUMENTS".len() + end + 2, value));
        }
        return Some(("ARGUMENTS".len(), Some(args)));
    }
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        if rest[digits..].chars().next().is_some_and(is_word) {
            return None;
        }
        let index: usize = rest[..digits].parse().ok()?;
        let value = parsed
            .get(index)
            .map(String::as_str)
            .or(missing_empty.then_some(""));
        return Some((digits, value));
    }
    names
        .find(rest)
        .map(|(len, index)| (len, Some(parsed.get(index).map_or("", String::as_str))))
}

/// 2.1.332: one pass, so values are never re-expanded; `\$` escapes; a missing index stays.
/// Also says whether any placeholder took a value (an escape alone does not count).
fn substitute_once(content: &str, args: &str, parsed: &[String], names: &Names) -> (String, bool) {
    let mut substituted = false;
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(at) = rest.find(['$', '\\']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("\\\\") {
            out.push_str("\\\\");
            rest = after;
            continue;
        }
        if let Some(after) = tail.strip_prefix("\\$") {
            if placeholder(after, args, parsed, names, false).is_some() {
                out.push('$');
                rest = after;
            } else {
                out.push('\\');
                rest = &tail[1..];
            }
            continue;
        }
        if let Some(after) = tail.strip_prefix('\\') {
            out.push('\\');
            rest = after;
            continue;
        }
        let after = &tail[1..];
        match placeholder(after, args, parsed, names, false) {
            Some((len, Some(value))) => {
                substituted = true;
                out.push_str(value);
                rest = &after[len..];
            }
            Some((len, None)) => {
                out.push('$');
                out.push_str(&after[..len]);
                rest = &after[len..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    (out, substituted)
}

/// 2.1.88: named, indexed, shorthand, then full, each pass over the last one's output; missing
/// indexes become empty; no escapes.
fn substitute_passes(content: &str, args: &str, parsed: &[String], names: &Names) -> String {
    let pass = |text: &str, accept: &dyn Fn(&str) -> Option<(usize, String)>| {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            if let Some((len, value)) = accept(after) {
                out.push_str(&value);
                rest = &after[len..];
            } else {
                out.push('$');
                rest = after;
            }
        }
        out.push_str(rest);
        out
    };
    let mut text = pass(content, &|rest| {
        names
            .find(rest)
            .map(|(len, index)| (len, parsed.get(index).cloned().unwrap_or_default()))
    });
    text = pass(&text, &|rest| {
        let inner = rest.strip_prefix("ARGUMENTS[")?;
        let end = inner.find(|c: char| !c.is_ascii_digit())?;
        if !inner[end..].starts_with(']') {
            return None;
        }
        let index: usize = inner[..end].parse().ok()?;
        Some((
            "ARGUMENTS[".len() + end + 1,
            parsed.get(index).cloned().unwrap_or_default(),
        ))
    });
    text = pass(&text, &|rest| {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || rest[digits..].chars().next().is_some_and(is_word) {
            return None;
        }
        let index: usize = rest[..digits].parse().ok()?;
        Some((digits, parsed.get(index).cloned().unwrap_or_default()))
    });
    pass(&text, &|rest| {
        rest.starts_with("ARGUMENTS")
            .then(|| ("ARGUMENTS".len(), args.to_owned()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_as_shell_quote() {
        assert_eq!(
            shell_words("first \"second arg\"").unwrap(),
            ["first", "second arg"]
        );
        assert_eq!(
            shell_words("$1 'a b' $ARGUMENTS extra").unwrap(),
            ["$1", "a b", "$ARGUMENTS", "extra"]
        );
        assert_eq!(shell_words("a\\ b").unwrap(), ["a b"]);
        assert_eq!(shell_words("'open"), None);
        assert_eq!(shell_words("").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn claude_code_takes_the_first_command_s_words() {
        for (args, words) in [
            ("$1 $ARGUMENTS", vec!["$1"]),
            ("a $HOME b", vec!["a", "b"]),
            ("x $1", vec!["x"]),
            ("'$1' b", vec!["$1", "b"]),
            ("a\nb c", vec!["a"]),
            ("a;b c", vec!["a"]),
            ("a | b", vec!["a"]),
            ("a && b c", vec!["a"]),
            ("a > f b", vec!["a"]),
            ("\"a;b\" c", vec!["a;b", "c"]),
            ("; a", vec![";", "a"]),
        ] {
            assert_eq!(first_command_words(args), words, "{args:?}");
        }
    }

    #[test]
    fn substitution_as_captured() {
        let body = "Full: $ARGUMENTS\nIndex2: $ARGUMENTS[2]\nOne: $1\nTwo: $2\nEscaped: \\$1\nEscapedArgs: \\$ARGUMENTS\nDouble: \\\\$1\n";
        let (out, matched) =
            substitute_arguments(body, Some("first \"second arg\""), &[], Version::Current);
        assert!(matched);
        assert_eq!(
            out,
            "Full: first \"second arg\"\nIndex2: $ARGUMENTS[2]\nOne: second arg\nTwo: $2\nEscaped: $1\nEscapedArgs: $ARGUMENTS\nDouble: \\\\second arg\n"
        );
        let names = vec!["topic".to_owned(), "count".to_owned()];
        let body = "Topic: $topic\nCount: $count\nTopicIdx: $topic[0]\nTopicWord: $topicx\nEsc: \\$topic\nFull: $ARGUMENTS\nZero: $0\n";
        let (out, _) = substitute_arguments(
            body,
            Some("$1 'a b' $ARGUMENTS extra"),
            &names,
            Version::Current,
        );
        assert_eq!(
            out,
            "Topic: $1\nCount: a b\nTopicIdx: $topic[0]\nTopicWord: $topicx\nEsc: $topic\nFull: $1 'a b' $ARGUMENTS extra\nZero: $1\n"
        );
        // No arguments: `$ARGUMENTS` is empty, indexes stay.
        let (out, _) =
            substitute_arguments("A: $ARGUMENTS\nB: $0\n", Some(""), &[], Version::Current);
        assert_eq!(out, "A: \nB: $0\n");
        // Nothing matched: the arguments are appended.
        let (out, matched) = substitute_arguments("Plain.\n", Some("hello"), &[], Version::Current);
        assert_eq!(
            (out.as_str(), matched),
            ("Plain.\n\n\nARGUMENTS: hello", false)
        );
        // 2.1.88 empties missing indexes and re-expands values.
        let (out, _) = substitute_arguments("$1 $0", Some("x $1y"), &[], Version::V2188);
        assert_eq!(out, "$1y x");
        let (out, _) = substitute_arguments("[$2]", Some("x"), &[], Version::V2188);
        assert_eq!(out, "[]");
    }
}
