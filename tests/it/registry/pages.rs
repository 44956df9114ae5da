//! The registry's web pages in a real browser (headless Chromium over WebDriver, see
//! [`crate::browser`]) against the real server: search, a skill's page, a file's page, a phone's
//! screen, and a skill whose every field carries HTML and script, none of which may run or
//! become markup. Screenshots go to `target/screenshots/`.

use std::io::Write as _;

use serde_json::json;

use super::{Registry, agent, put, sha256};
use crate::browser::{Browser, screenshots};
use crate::common::TestContext;

/// An archive of the skill `name` holding `files` (path, contents, executable), built in
/// process so that names and contents can be anything the extractor accepts.
fn archive(name: &str, files: &[(&str, &[u8], bool)]) -> Vec<u8> {
    let mut archive = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut archive);
    for (path, contents, executable) in files {
        let options = zip::write::SimpleFileOptions::default().unix_permissions(if *executable {
            0o755
        } else {
            0o644
        });
        zip.start_file(format!("{name}/{path}"), options).unwrap();
        zip.write_all(contents).unwrap();
    }
    zip.finish().unwrap();
    archive.into_inner()
}

fn publish(registry: &Registry, token: &str, name: &str, version: &str, archive: &[u8]) {
    let (status, body) = put(
        registry,
        &format!("/api/v1/skills/{name}/{version}"),
        token,
        archive,
        &sha256(archive),
    );
    assert_eq!(status, 201, "{name}@{version}: {body}");
}

/// A plain skill's SKILL.md.
fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\nlicense: MIT\n---\n\n{body}")
}

const NOTES_BODY: &str = "# Notes\n\nKeep **meeting notes** tidy.\n\n1. Run `scripts/tidy.sh`.\n2. Read [the guide](references/guide.md).\n\n| step | what |\n|---|---|\n| 1 | tidy |\n\n```sh\nscripts/tidy.sh notes/*.md\n```\n";

/// A registry with `notes` (two versions, with scripts, references and a binary asset) and a
/// few other skills.
fn filled_registry(context: &TestContext) -> (Registry, String) {
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    for version in ["1.0.0", "1.1.0"] {
        let text = skill_md(
            "notes",
            "Tidies meeting notes into sections. Use when the user asks to clean up notes.",
            NOTES_BODY,
        );
        let bytes = archive(
            "notes",
            &[
                ("SKILL.md", text.as_bytes(), false),
                (
                    "scripts/tidy.sh",
                    b"#!/bin/sh\nsed -i 's/  */ /g' \"$@\"\n",
                    true,
                ),
                (
                    "references/guide.md",
                    b"# Guide\n\nSections: Decisions, Actions.\n",
                    false,
                ),
                (
                    "assets/logo.png",
                    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR binary",
                    false,
                ),
            ],
        );
        publish(&registry, &alice, "notes", version, &bytes);
    }
    for (name, description) in [
        (
            "pdf-forms",
            "Fills PDF forms field by field. Use when a PDF form must be completed.",
        ),
        (
            "weather",
            "Reports the weather for a city. Use when the user asks about the weather.",
        ),
    ] {
        let text = skill_md(name, description, "Do the thing.\n");
        publish(
            &registry,
            &alice,
            name,
            "1.0.0",
            &archive(name, &[("SKILL.md", text.as_bytes(), false)]),
        );
    }
    (registry, alice)
}

/// Loads `url` in a fresh browser session of `width` × `height`, unless the browser is
/// skipped.
fn browser(test: &str, width: u32, height: u32) -> Option<Browser> {
    Browser::start(test, width, height)
}

#[test]
fn search_open_a_skill_and_a_file_in_a_browser() {
    let Some(browser) = browser("search_open_a_skill_and_a_file_in_a_browser", 1280, 1000) else {
        return;
    };
    let context = TestContext::new();
    let (registry, _) = filled_registry(&context);
    let shots = screenshots();

    browser.goto(&format!("{}/", registry.url));
    assert_eq!(browser.title(), "skillpkg registry");
    let home = browser.text("main");
    assert!(home.contains("3 skills in this registry"), "{home}");
    assert!(
        home.contains(&format!("export SKILLPKG_REGISTRY={}", registry.url)),
        "{home}"
    );
    assert!(
        home.contains(&format!(
            "skillpkg install NAME --registry {}",
            registry.url
        )),
        "{home}"
    );
    assert!(
        home.contains("Recently updated") && home.contains("Most downloaded"),
        "{home}"
    );
    browser.screenshot(&shots.join("home.png"));

    browser.type_into("input[name=q]", "notes");
    browser.click("form.search button");
    assert!(browser.url().ends_with("/?q=notes"), "{}", browser.url());
    assert_eq!(browser.text("#results"), "1 skill matching “notes”");
    browser.screenshot(&shots.join("search.png"));

    browser.click(".hits a");
    assert!(
        browser.url().ends_with("/skills/notes"),
        "{}",
        browser.url()
    );
    assert_eq!(browser.title(), "notes 1.1.0 · skillpkg registry");
    let page = browser.text("main");
    for shown in [
        "Tidies meeting notes into sections.",
        &format!("skillpkg install notes --registry {}", registry.url),
        "- notes: Tidies meeting notes into sections. Use when the user asks to clean up notes.",
        "Licence\nMIT",
        "tidy.sh",
        "1.0.0",
    ] {
        assert!(
            page.contains(shown),
            "{shown:?} is not on the page:\n{page}"
        );
    }
    // The Markdown is rendered, its relative link pointed at the file's page.
    assert_eq!(browser.text("#readme h1"), "Notes");
    assert_eq!(browser.text("#readme strong"), "meeting notes");
    assert_eq!(
        browser.run(
            "return document.querySelector('#readme table td').textContent;",
            &[]
        ),
        json!("1")
    );
    browser.screenshot(&shots.join("skill.png"));

    browser.click("#readme a[href$='references/guide.md']");
    assert!(
        browser
            .url()
            .ends_with("/skills/notes/1.1.0/files/references/guide.md")
    );
    assert_eq!(browser.text("h1"), "references/guide.md");
    assert_eq!(
        browser.text("pre"),
        "# Guide\n\nSections: Decisions, Actions."
    );
    browser.screenshot(&shots.join("file.png"));

    // An executable script says so; a binary file is not shown.
    browser.goto(&format!(
        "{}/skills/notes/1.1.0/files/scripts/tidy.sh",
        registry.url
    ));
    assert!(browser.text("main").contains("executable"));
    browser.goto(&format!(
        "{}/skills/notes/1.0.0/files/assets/logo.png",
        registry.url
    ));
    let binary = browser.text("main");
    assert!(binary.contains("This is a binary file"), "{binary}");
    assert!(!binary.contains("IHDR"), "{binary}");

    // An older version's page says which is newest and installs itself by version.
    browser.goto(&format!("{}/skills/notes/1.0.0", registry.url));
    let older = browser.text("main");
    assert!(older.contains("The newest version is 1.1.0"), "{older}");
    assert!(
        older.contains("skillpkg install notes@1.0.0 --registry"),
        "{older}"
    );
}

/// On a phone's screen nothing but a `<pre>` scrolls sideways.
#[test]
fn pages_fit_a_phone_screen() {
    let Some(browser) = browser("pages_fit_a_phone_screen", 390, 844) else {
        return;
    };
    let context = TestContext::new();
    let (registry, alice) = filled_registry(&context);
    // Words longer than a phone's screen, everywhere they can be.
    let long = "x".repeat(300);
    let text = format!(
        "---\nname: wide\ndescription: Wide {long}. Use when a screen is narrow.\nmetadata:\n  {long}: {long}\n---\n\n# {long}\n\n{long}\n\n| {long} | b |\n|---|---|\n| {long} | 2 |\n"
    );
    let file = format!("references/{}.md", "y".repeat(200));
    publish(
        &registry,
        &alice,
        "wide",
        "1.0.0",
        &archive(
            "wide",
            &[
                ("SKILL.md", text.as_bytes(), false),
                (&file, long.as_bytes(), false),
            ],
        ),
    );
    for path in [
        "/",
        "/?q=e",
        "/skills/notes",
        "/skills/notes/1.1.0/files/scripts/tidy.sh",
        "/skills/wide",
        &format!("/skills/wide/1.0.0/files/{file}"),
    ] {
        browser.goto(&format!("{}{path}", registry.url));
        assert!(
            !browser.scrolls_sideways(),
            "{path} scrolls sideways on a phone"
        );
    }
    browser.goto(&format!("{}/skills/notes", registry.url));
    browser.screenshot(&screenshots().join("skill-phone.png"));
}

/// Search results come a page at a time, with links to the others.
#[test]
fn search_results_are_paginated() {
    let Some(browser) = browser("search_results_are_paginated", 1280, 1000) else {
        return;
    };
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    for index in 0..23 {
        let name = format!("pager-{index:02}");
        let text = skill_md(
            &name,
            "A page filler. Use when a test counts pages.",
            "Filler.\n",
        );
        publish(
            &registry,
            &alice,
            &name,
            "1.0.0",
            &archive(&name, &[("SKILL.md", text.as_bytes(), false)]),
        );
    }
    browser.goto(&format!("{}/?q=pager", registry.url));
    assert_eq!(browser.text("#results"), "23 skills matching “pager”");
    assert_eq!(
        browser.run("return document.querySelectorAll('.hits li').length;", &[]),
        json!(20)
    );
    assert_eq!(browser.text("nav.pages span"), "Page 1 of 2");
    browser.click("a[rel=next]");
    assert!(
        browser.url().ends_with("/?q=pager&page=2"),
        "{}",
        browser.url()
    );
    assert_eq!(
        browser.run("return document.querySelectorAll('.hits li').length;", &[]),
        json!(3)
    );
    assert_eq!(browser.text("nav.pages span"), "Page 2 of 2");
    browser.click("a[rel=prev]");
    assert!(
        browser.url().ends_with("/?q=pager&page=1"),
        "{}",
        browser.url()
    );
}

/// What an injected payload would leave behind: a changed title, a global, an element or an
/// event-handler attribute that the page's own templates never make, or a `javascript:` link.
const INJECTED: &str = "
    const bad = [];
    if (window.pwned !== undefined) bad.push('window.pwned = ' + window.pwned);
    if (document.title !== arguments[0]) bad.push('title: ' + document.title);
    for (const el of document.querySelectorAll('script, svg, img, iframe, object, embed, details, math, style ~ style'))
        bad.push('element: ' + el.outerHTML.slice(0, 80));
    for (const el of document.querySelectorAll('*'))
        for (const attribute of el.attributes)
            if (attribute.name.startsWith('on')) bad.push('attribute: ' + el.outerHTML.slice(0, 80));
    for (const link of document.querySelectorAll('a'))
        if (!/^(https?:|mailto:|\\/|#)/i.test(link.getAttribute('href') || '/'))
            bad.push('link: ' + link.getAttribute('href'));
    return bad;";

/// A skill whose description, body, frontmatter, file names and file contents carry HTML and
/// script: the pages show all of it as text, and nothing runs or becomes markup.
#[test]
fn html_and_script_in_a_skill_are_shown_as_text_and_never_run() {
    let Some(browser) = browser(
        "html_and_script_in_a_skill_are_shown_as_text_and_never_run",
        1280,
        1000,
    ) else {
        return;
    };
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    let payloads = [
        "<script>document.title='pwned';window.pwned=1</script>",
        "<img src=x onerror=\"window.pwned=2\">",
        "\"><svg onload=\"window.pwned=3\">",
        "'><iframe srcdoc=\"<script>parent.pwned=4</script>\"></iframe>",
    ];
    let all = payloads.join(" ");
    let description = format!(
        "'Hostile {} Use when testing escaping.'",
        all.replace('\'', "''")
    );
    let body = format!(
        "# Hostile\n\n{all}\n\n<div onclick=\"window.pwned=5\">raw block</div>\n\n\
         [click me](javascript:window.pwned=6) [again](JAVASCRIPT:window.pwned=7) \
         [data](data:text/html,<script>parent.pwned=8</script>)\n\n\
         ![pic](javascript:window.pwned=9)\n\n<a href=\"javascript:window.pwned=10\">raw link</a>\n"
    );
    let text = format!(
        "---\nname: hostile\ndescription: {description}\nlicense: '<img src=x onerror=window.pwned=11>'\nmetadata:\n  note: '\"><script>window.pwned=12</script>'\n---\n\n{body}"
    );
    let odd_name = "scripts/it's & x=1 onmouseover=alert(1) #%2e.sh";
    let bytes = archive(
        "hostile",
        &[
            ("SKILL.md", text.as_bytes(), false),
            (odd_name, all.as_bytes(), true),
            (
                "references/page.html",
                format!("<html><body>{all}</body></html>").as_bytes(),
                false,
            ),
        ],
    );
    publish(&registry, &alice, "hostile", "1.0.0", &bytes);

    let check = |path: &str, title: &str| {
        browser.goto(&format!("{}{path}", registry.url));
        let found = browser.run(INJECTED, &[json!(title)]);
        assert_eq!(found, json!([]), "{path}: injected: {found}");
        let text = browser.text("main");
        assert!(
            text.contains("<script>document.title='pwned';window.pwned=1</script>"),
            "{path}: the payload is not shown as text:\n{text}"
        );
        text
    };
    check("/?q=hostile", "hostile · skillpkg registry");
    let page = check("/skills/hostile", "hostile 1.0.0 · skillpkg registry");
    for shown in [
        "<img src=x onerror=window.pwned=11>",
        "\"><script>window.pwned=12</script>",
        "<div onclick=\"window.pwned=5\">raw block</div>",
        "click me",
        "it's & x=1 onmouseover=alert(1) #%2e.sh",
    ] {
        assert!(
            page.contains(shown),
            "{shown:?} is not on the page:\n{page}"
        );
    }
    // The file with the odd name is one click away, its contents shown as text.
    browser.click("#files a[href*='onmouseover']");
    let file = browser.text("main");
    assert!(file.contains(odd_name), "{file}");
    assert_eq!(
        browser.run(
            INJECTED,
            &[json!(format!(
                "{odd_name} · hostile 1.0.0 · skillpkg registry"
            ))]
        ),
        json!([])
    );
    assert!(file.contains(&all), "{file}");
    check(
        "/skills/hostile/1.0.0/files/references/page.html",
        "references/page.html · hostile 1.0.0 · skillpkg registry",
    );
    check(
        "/skills/hostile/1.0.0/files/SKILL.md",
        "SKILL.md · hostile 1.0.0 · skillpkg registry",
    );
    browser.goto(&format!("{}/skills/hostile", registry.url));
    browser.screenshot(&screenshots().join("hostile.png"));
}

/// The pages' HTML as served, reviewed as a snapshot: what the templates make of a skill.
#[test]
fn a_skill_page_as_served() {
    let context = TestContext::new();
    let (registry, _) = filled_registry(&context);
    let html = agent()
        .get(&format!("{}/skills/notes/1.0.0", registry.url))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    let mut settings = context.settings();
    settings.add_filter(&regex_lite(&registry.url), "[REGISTRY]");
    settings.add_filter(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", "[TIME]");
    settings.bind(|| insta::assert_snapshot!("registry_skill_page", html));
}

/// `text` as a regex that matches it literally (a URL holds dots).
fn regex_lite(text: &str) -> String {
    text.replace('.', "\\.")
}

/// A `--private` registry refuses an anonymous browser (401, asking for Basic credentials) and
/// serves one that signs in with a token as the password.
#[test]
fn a_private_registry_asks_a_browser_for_a_token() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &["--private"]);
    let alice = registry.token("alice");
    let text = skill_md(
        "secret",
        "Keeps secrets. Use when a secret is needed.",
        "Hush.\n",
    );
    publish(
        &registry,
        &alice,
        "secret",
        "1.0.0",
        &archive("secret", &[("SKILL.md", text.as_bytes(), false)]),
    );
    for path in ["/", "/skills/secret", "/skills/secret/1.0.0/files/SKILL.md"] {
        let mut answer = agent()
            .get(&format!("{}{path}", registry.url))
            .call()
            .unwrap();
        assert_eq!(answer.status().as_u16(), 401, "{path}");
        assert!(
            answer
                .headers()
                .get("www-authenticate")
                .is_some_and(|value| value.to_str().unwrap().starts_with("Basic ")),
            "{path}"
        );
        let body = answer.body_mut().read_to_string().unwrap();
        assert!(!body.contains("Keeps secrets"), "{path}: {body}");
    }
    let Some(browser) = browser("a_private_registry_asks_a_browser_for_a_token", 1280, 1000) else {
        return;
    };
    // Headless Chromium shows nothing while it would ask for credentials.
    browser.goto(&format!("{}/skills/secret", registry.url));
    assert_ne!(browser.title(), "secret 1.0.0 · skillpkg registry");
    assert_eq!(
        browser.run(
            "return document.body ? document.body.innerText.includes('Keeps secrets') : false;",
            &[]
        ),
        json!(false)
    );

    let (scheme, host) = registry.url.split_once("://").unwrap();
    browser.goto(&format!("{scheme}://reader:{alice}@{host}/"));
    assert_eq!(browser.title(), "skillpkg registry");
    assert!(browser.text("main").contains("1 skill in this registry"));
    browser.click(".hits a");
    assert_eq!(browser.title(), "secret 1.0.0 · skillpkg registry");
    assert!(browser.text("main").contains("Keeps secrets"));
}
