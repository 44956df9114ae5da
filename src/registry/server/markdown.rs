//! A SKILL.md body as HTML for a skill's page, sanitised: the page shows what anyone uploaded.
//!
//! pulldown-cmark parses the Markdown (`CommonMark` with tables, strikethrough and task lists)
//! and writes the HTML, escaping every text and attribute. Two things it would pass through
//! are changed on the way:
//!
//! - **Raw HTML** (blocks and inline tags) is shown as text, escaped, the way a reader of the
//!   raw file sees it: a skill's `<details>` or `<!-- comment -->` stays visible, and nothing
//!   an author writes becomes markup.
//! - **Link destinations** are kept only when they are `http:`, `https:` or `mailto:` URLs, a
//!   `#fragment`, or a relative path inside the skill (which is pointed at that file's page);
//!   any other link (`javascript:`, `data:`, `vbscript:`, `//host`, `/path`, `../`) loses its
//!   destination and keeps its text. Schemes are read as a browser reads them: tabs, line
//!   breaks and leading control characters are ignored, case does not matter.
//! - **Images** become links to the image (labelled with their alt text), under the same URL
//!   rules: the page's Content-Security-Policy loads nothing from elsewhere, and a skill's own
//!   image is one click away.
//!
//! The result is a [`Markup`], the one value the templates print without escaping.

use std::fmt;

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// HTML made by [`render`]: safe to put in a page as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Markup(String);

impl fmt::Display for Markup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

// The one type askama prints unescaped: only `render` makes one.
impl askama::filters::HtmlSafe for Markup {}

/// Renders `body` for the page of `name`'s `version`, whose files are under
/// `/skills/{name}/{version}/files/`.
pub(super) fn render(body: &str, name: &str, version: &str) -> Markup {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let files = format!("/skills/{name}/{version}/files/");
    // Whether each open link or image kept its destination (links hold images, so a stack).
    let mut kept: Vec<bool> = Vec::new();
    let events = Parser::new_ext(body, options).filter_map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Some(Event::Text(html)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let target = destination(&dest_url, &files);
            kept.push(target.is_some());
            target.map(|dest_url| {
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                })
            })
        }
        Event::Start(Tag::Image {
            dest_url, title, ..
        }) => {
            let target = destination(&dest_url, &files);
            kept.push(target.is_some());
            Some(match target {
                Some(dest_url) => Event::Start(Tag::Link {
                    link_type: LinkType::Inline,
                    dest_url,
                    title,
                    id: CowStr::Borrowed(""),
                }),
                None => Event::Text(CowStr::Borrowed("image: ")),
            })
        }
        Event::End(TagEnd::Link | TagEnd::Image) => kept
            .pop()
            .unwrap_or(false)
            .then_some(Event::End(TagEnd::Link)),
        other => Some(other),
    });
    let mut html = String::with_capacity(body.len() + body.len() / 4);
    pulldown_cmark::html::push_html(&mut html, events);
    Markup(html)
}

/// Where a link in the body may point, or `None` to drop it (see the module's doc).
fn destination<'a>(url: &CowStr<'a>, files: &str) -> Option<CowStr<'a>> {
    // As a URL parser reads it: leading and trailing C0 controls and spaces dropped, tabs and
    // line breaks removed anywhere.
    let cleaned: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    if cleaned.is_empty() {
        return None;
    }
    if let Some(colon) = cleaned.find(':')
        && is_scheme(&cleaned[..colon])
    {
        let scheme = cleaned[..colon].to_ascii_lowercase();
        return matches!(scheme.as_str(), "http" | "https" | "mailto").then(|| url.clone());
    }
    if cleaned.starts_with('#') {
        return Some(url.clone());
    }
    // A path inside the skill: no root, no host, no way up, no backslash (which browsers read
    // as a slash in http URLs), also once percent-decoded, as a browser resolves `%2e%2e`.
    let path = cleaned.strip_prefix("./").unwrap_or(&cleaned);
    let decoded = percent_decoded(path)?;
    let escapes = |path: &str| {
        path.starts_with('/')
            || path.contains('\\')
            || path.contains(':')
            || path.split(['/', '?', '#']).any(|part| part == "..")
    };
    (!escapes(path) && !escapes(&decoded)).then(|| CowStr::from(format!("{files}{path}")))
}

/// `text` with its `%XX` escapes decoded; `None` when that is not UTF-8.
pub(crate) fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |byte: u8| char::from(byte).to_digit(16);
        if bytes[at] == b'%'
            && let (Some(high), Some(low)) = (
                bytes.get(at + 1).copied().and_then(hex),
                bytes.get(at + 2).copied().and_then(hex),
            )
        {
            out.push(u8::try_from(high * 16 + low).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A URL scheme: a letter, then letters, digits, `+`, `-` or `.`.
fn is_scheme(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::render;

    fn html(body: &str) -> String {
        render(body, "notes", "1.0.0").to_string()
    }

    #[test]
    fn markdown_is_rendered() {
        assert_eq!(
            html("# Title\n\nSome *text* and `code`.\n\n- one\n- two\n"),
            "<h1>Title</h1>\n<p>Some <em>text</em> and <code>code</code>.</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
        );
        assert!(html("| a | b |\n|---|---|\n| 1 | 2 |\n").contains("<table>"));
        assert!(
            html("```sh\necho <hi>\n```\n")
                .contains("<pre><code class=\"language-sh\">echo &lt;hi&gt;\n</code></pre>")
        );
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        for (body, shown) in [
            (
                "<script>alert(1)</script>\n",
                "&lt;script&gt;alert(1)&lt;/script&gt;",
            ),
            (
                "Hi <img src=x onerror=alert(1)> there\n",
                "Hi &lt;img src=x onerror=alert(1)&gt; there",
            ),
            (
                "\"><svg onload=alert(1)>\n",
                "\"&gt;&lt;svg onload=alert(1)&gt;",
            ),
            ("<!-- hidden -->\n", "&lt;!-- hidden --&gt;"),
            (
                "<details><summary>x</summary>\n\nbody\n</details>\n",
                "&lt;details&gt;&lt;summary&gt;x&lt;/summary&gt;",
            ),
        ] {
            let out = html(body);
            assert!(out.contains(shown), "{body:?} gave {out}");
            assert!(
                !out.contains("<script")
                    && !out.contains("<img")
                    && !out.contains("<svg")
                    && !out.contains("<details"),
                "{out}"
            );
        }
    }

    #[test]
    fn only_safe_link_destinations_are_kept() {
        for (body, expected) in [
            (
                "[a](https://example.com/x?y=1&z=2)",
                "<p><a href=\"https://example.com/x?y=1&amp;z=2\">a</a></p>",
            ),
            (
                "[a](HTTP://example.com)",
                "<p><a href=\"HTTP://example.com\">a</a></p>",
            ),
            (
                "[a](mailto:me@example.com)",
                "<p><a href=\"mailto:me@example.com\">a</a></p>",
            ),
            ("[a](#usage)", "<p><a href=\"#usage\">a</a></p>"),
            (
                "[a](references/guide.md)",
                "<p><a href=\"/skills/notes/1.0.0/files/references/guide.md\">a</a></p>",
            ),
            (
                "[a](./scripts/run.sh#L3)",
                "<p><a href=\"/skills/notes/1.0.0/files/scripts/run.sh#L3\">a</a></p>",
            ),
            ("[a](javascript:alert(1))", "<p>a</p>"),
            ("[a](JaVaScRiPt:alert(1))", "<p>a</p>"),
            ("[a](<java\tscript:alert(1)>)", "<p>a</p>"),
            ("[a](<\u{1}javascript:alert(1)>)", "<p>a</p>"),
            ("[a](data:text/html,<script>alert(1)</script>)", "<p>a</p>"),
            ("[a](vbscript:msgbox)", "<p>a</p>"),
            ("[a](//evil.example)", "<p>a</p>"),
            ("[a](/api/v1/me)", "<p>a</p>"),
            ("[a](../../../api/v1/me)", "<p>a</p>"),
            (
                "[a](%2e%2e/%2E%2e/%2e%2e/%2e%2e/skills/other/1.0.0/files/x)",
                "<p>a</p>",
            ),
            ("[a](scripts/%2e%2e/%2e%2e/x)", "<p>a</p>"),
            ("[a](%2fapi/v1/me)", "<p>a</p>"),
            ("[a](a%5c..%5cb)", "<p>a</p>"),
            ("[a](%ff%fe)", "<p>a</p>"),
            (
                "[a](references/my%20guide.md)",
                "<p><a href=\"/skills/notes/1.0.0/files/references/my%20guide.md\">a</a></p>",
            ),
            ("[a](<\\\\evil.example>)", "<p>a</p>"),
            ("[a]: javascript:alert(1)\n\n[a]", "<p>a</p>"),
            ("<javascript:alert(1)>", "<p>javascript:alert(1)</p>"),
        ] {
            assert_eq!(html(body).trim_end(), expected, "{body:?}");
        }
    }

    #[test]
    fn images_become_links_under_the_same_rules() {
        assert_eq!(
            html("![a chart](assets/chart.png)").trim_end(),
            "<p><a href=\"/skills/notes/1.0.0/files/assets/chart.png\">a chart</a></p>"
        );
        assert_eq!(
            html("![x](javascript:alert(1))").trim_end(),
            "<p>image: x</p>"
        );
        assert_eq!(
            html("[![x](https://example.com/i.png)](javascript:alert(1))").trim_end(),
            "<p><a href=\"https://example.com/i.png\">x</a></p>"
        );
        // Titles are attributes: their quotes are escaped.
        assert_eq!(
            html("[a](https://e.example \"x\\\" onmouseover=\\\"alert(1)\")").trim_end(),
            "<p><a href=\"https://e.example\" title=\"x&quot; onmouseover=&quot;alert(1)\">a</a></p>"
        );
    }
}
