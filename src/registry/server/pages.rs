//! The HTML pages: the home page (search, recent and popular skills), a skill's page (its
//! SKILL.md as sanitised Markdown, files, versions, what the model will see) and a file's page.
//!
//! Pages are askama templates (`src/registry/server/templates/`), compiled into the binary:
//! every value they print is HTML-escaped, except the [`Markup`] that [`markdown::render`]
//! makes. They need no script, and the Content-Security-Policy allows none. Everything a page
//! shows was worked out at publish ([`crate::registry::review`]) or is read from the archive
//! (a file's text), so a page view is a few lookups.

use std::fmt::Write as _;
use std::io::Read as _;

use askama::Template;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::dates::date_time;
use crate::output::plural;
use crate::registry::api::{self, SearchHit, SkillInfo, VersionInfo};
use crate::registry::review::{Finding, ListingLine, Review};
use crate::registry::store::SkillMdStart;

use super::handlers::{SearchQuery, parse_query};
use super::markdown::{self, Markup};
use super::{Failure, Shared, blocking};

/// How much of SKILL.md a skill's web page shows, in characters: the page is built in memory
/// for every visit.
pub(super) const PAGE_SKILL_MD_CHARS: usize = 64 * 1024;

/// How much of a file its page shows, in bytes.
pub(super) const PAGE_FILE_BYTES: u64 = 256 * 1024;

/// Search hits per page, and skills in each list of the home page.
const PER_PAGE: usize = 20;
const LISTED: usize = 10;

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    title: &'a str,
    message: &'a str,
}

/// A skill in a list.
struct HitView {
    name: String,
    version: Option<String>,
    description: String,
    downloads: String,
    updated: Option<String>,
}

impl From<SearchHit> for HitView {
    fn from(hit: SearchHit) -> Self {
        Self {
            name: hit.name,
            version: hit.latest.or(hit.prerelease),
            description: hit.description,
            downloads: count(
                usize::try_from(hit.downloads).unwrap_or(usize::MAX),
                "download",
                "downloads",
            ),
            updated: (hit.updated_at > 0).then(|| date_time(hit.updated_at)),
        }
    }
}

/// One page of search results.
struct SearchView {
    summary: String,
    hits: Vec<HitView>,
    page: usize,
    pages: usize,
    previous: Option<usize>,
    next: Option<usize>,
}

#[derive(Template)]
#[template(path = "home.html")]
struct HomePage<'a> {
    base_url: &'a str,
    q: &'a str,
    /// Set when the visitor searched (or asked for a page of results).
    search: Option<SearchView>,
    /// "3 skills".
    total: String,
    recent: Vec<HitView>,
    popular: Vec<HitView>,
}

/// A row of the file tree: a folder (no link) or a file.
struct FileRow {
    label: String,
    depth: usize,
    href: Option<String>,
    size: String,
    executable: bool,
}

struct VersionRow {
    version: String,
    published: String,
    publisher: String,
    yanked: bool,
    current: bool,
}

#[derive(Template)]
#[template(path = "skill.html")]
struct SkillPage<'a> {
    base_url: &'a str,
    name: &'a str,
    description: &'a str,
    version: &'a str,
    yanked: bool,
    /// The version `install NAME` picks, when this page is another.
    newest: Option<&'a str>,
    /// `NAME`, or `NAME@VERSION` on the page of a version that is not the newest.
    install_spec: String,
    /// Files, listing and findings were recorded at publish.
    reviewed: bool,
    listing: &'a ListingLine,
    listing_cost: String,
    findings: &'a [Finding],
    findings_summary: String,
    body: Markup,
    cut: bool,
    shown_chars: usize,
    license: Option<&'a str>,
    published: String,
    publisher: &'a str,
    owners: String,
    download: String,
    size: String,
    checksum: &'a str,
    digest: &'a str,
    frontmatter: &'a [(String, String)],
    files_summary: String,
    files: Vec<FileRow>,
    versions: Vec<VersionRow>,
}

#[derive(Template)]
#[template(path = "file.html")]
struct FilePage<'a> {
    name: &'a str,
    version: &'a str,
    path: &'a str,
    size: String,
    executable: bool,
    /// The text shown; `None` for a binary file.
    text: Option<String>,
    cut: bool,
    shown: String,
    download: String,
}

/// A page as a response.
fn page(status: StatusCode, template: &impl Template) -> Response {
    match template.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Html(format!("the page could not be rendered: {error}")),
        )
            .into_response(),
    }
}

/// An error as a page, for the pages people browse.
pub(super) fn html_error(status: StatusCode, title: &str, message: &str) -> Response {
    page(status, &ErrorPage { title, message })
}

fn not_found(what: &str) -> Response {
    html_error(StatusCode::NOT_FOUND, "Not found", what)
}

/// `count thing` or `count things`.
fn count(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", plural(count, one, many))
}

/// A size for people: bytes up to 1 KiB, then KiB and MiB with one decimal.
fn size(bytes: u64) -> String {
    #[expect(
        clippy::cast_precision_loss,
        reason = "a size shown with one decimal: f64 is exact far beyond any archive"
    )]
    let value = bytes as f64;
    if bytes == 1 {
        "1 byte".to_owned()
    } else if bytes < 1024 {
        format!("{bytes} bytes")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", value / 1024.0)
    } else {
        format!("{:.1} MiB", value / (1024.0 * 1024.0))
    }
}

/// A file's path for a URL: each byte outside `A-Z a-z 0-9 - . _ ~ /` percent-encoded, so a
/// name with `#`, `?`, `%` or a space links to its own page.
fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// The home page: a search's results, or the recent and popular skills.
fn home_page<'a>(
    base_url: &'a str,
    q: &'a str,
    search: Option<(Vec<SearchHit>, usize, usize)>,
    total: usize,
    recent: Vec<SearchHit>,
    popular: Vec<SearchHit>,
) -> HomePage<'a> {
    let search = search.map(|(hits, matches, page)| {
        let pages = matches.div_ceil(PER_PAGE).max(1);
        let summary = if q.is_empty() {
            count(matches, "skill", "skills")
        } else {
            format!("{} matching “{q}”", count(matches, "skill", "skills"))
        };
        SearchView {
            summary,
            hits: hits.into_iter().map(HitView::from).collect(),
            page,
            pages,
            previous: (page > 1).then(|| page.min(pages + 1) - 1),
            next: (page < pages).then_some(page + 1),
        }
    });
    HomePage {
        base_url,
        q,
        search,
        total: count(total, "skill", "skills"),
        recent: recent.into_iter().map(HitView::from).collect(),
        popular: popular.into_iter().map(HitView::from).collect(),
    }
}

/// The rows of the file tree: each folder once, before its files, indented by depth.
fn file_rows(name: &str, version: &str, review: &Review) -> Vec<FileRow> {
    let mut files: Vec<_> = review.files.iter().collect();
    files.sort_by(|a, b| a.path.split('/').cmp(b.path.split('/')));
    let mut rows = Vec::new();
    let mut open: Vec<&str> = Vec::new();
    for file in files {
        let parts: Vec<&str> = file.path.split('/').collect();
        let (file_name, folders) = parts.split_last().unwrap_or((&"", &[]));
        let same = open.iter().zip(folders).take_while(|(a, b)| a == b).count();
        open.truncate(same);
        for (depth, folder) in folders.iter().enumerate().skip(same) {
            rows.push(FileRow {
                label: format!("{folder}/"),
                depth: depth.min(5),
                href: None,
                size: String::new(),
                executable: false,
            });
            open.push(folder);
        }
        rows.push(FileRow {
            label: (*file_name).to_owned(),
            depth: folders.len().min(5),
            href: Some(format!(
                "/skills/{name}/{version}/files/{}",
                url_path(&file.path)
            )),
            size: size(file.size),
            executable: file.executable,
        });
    }
    rows
}

/// Everything a skill's page shows about one version.
pub(super) struct VersionView<'a> {
    pub skill: &'a SkillInfo,
    pub version: &'a VersionInfo,
    pub review: &'a Review,
    /// Whether the review was recorded at publish (not for versions published before).
    pub reviewed: bool,
    pub skill_md: &'a SkillMdStart,
}

fn skill_page<'a>(base_url: &'a str, view: &VersionView<'a>) -> SkillPage<'a> {
    let VersionView {
        skill,
        version,
        review,
        reviewed,
        skill_md,
    } = view;
    let name = skill.name.as_str();
    let newest = skill
        .choose(None)
        .map(|newest| newest.version.as_str())
        .filter(|newest| *newest != version.version);
    let install_spec = if newest.is_some() {
        format!("{name}@{}", version.version)
    } else {
        name.to_owned()
    };
    let listing = &review.listing;
    let findings = review.findings.as_slice();
    let errors = findings.iter().filter(|f| f.severity == "error").count();
    let warnings = findings.len() - errors;
    let findings_summary = match (errors, warnings) {
        (0, warnings) => count(warnings, "warning", "warnings"),
        (errors, 0) => count(errors, "error", "errors"),
        (errors, warnings) => format!(
            "{} and {}",
            count(errors, "error", "errors"),
            count(warnings, "warning", "warnings")
        ),
    };
    let body = match crate::skill::frontmatter::split(
        &skill_md.text,
        false,
        crate::skill::frontmatter::Reader::SKILLPKG,
    ) {
        crate::skill::frontmatter::Split::Found(region) => {
            skill_md.text.get(region.body..).unwrap_or_default()
        }
        _ => skill_md.text.as_str(),
    };
    let license = review
        .frontmatter
        .iter()
        .find(|(key, _)| key == "license")
        .map(|(_, value)| value.as_str());
    let file_count = review.files.len();
    let total: u64 = review.files.iter().map(|file| file.size).sum();
    SkillPage {
        base_url,
        name,
        description: &skill.description,
        version: &version.version,
        yanked: version.yanked,
        newest,
        install_spec,
        reviewed: *reviewed,
        listing,
        listing_cost: format!(
            "{} (about {}) of the model's context in every session where the skill is installed",
            count(listing.chars, "character", "characters"),
            count(listing.tokens, "token", "tokens")
        ),
        findings,
        findings_summary,
        body: markdown::render(body, name, &version.version),
        cut: skill_md.cut,
        shown_chars: PAGE_SKILL_MD_CHARS,
        license,
        published: date_time(version.published_at),
        publisher: &version.publisher,
        owners: skill.owners.join(", "),
        download: format!("/api/v1/skills/{name}/{}/download", version.version),
        size: size(version.size),
        checksum: &version.checksum,
        digest: &version.digest,
        frontmatter: &review.frontmatter,
        files_summary: format!(
            "{}, {} unpacked",
            count(file_count, "file", "files"),
            size(total)
        ),
        files: file_rows(name, &version.version, review),
        versions: skill
            .versions
            .iter()
            .map(|other| VersionRow {
                version: other.version.clone(),
                published: date_time(other.published_at),
                publisher: other.publisher.clone(),
                yanked: other.yanked,
                current: other.version == version.version,
            })
            .collect(),
    }
}

/// The start of a file, as text when it is text: no NUL byte, UTF-8 (a character cut by the
/// size cap does not count against it).
fn as_text(bytes: &[u8], cut: bool) -> Option<String> {
    if bytes.contains(&0) {
        return None;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(text.to_owned()),
        Err(error) if cut && error.error_len().is_none() => {
            Some(String::from_utf8_lossy(&bytes[..error.valid_up_to()]).into_owned())
        }
        Err(_) => None,
    }
}

pub(super) async fn home(
    State(state): State<Shared>,
    query: Result<Query<SearchQuery>, QueryRejection>,
) -> Result<Response, Failure> {
    let query = match query {
        Ok(Query(query)) => query,
        Err(rejection) => {
            return Ok(html_error(
                rejection.status(),
                "Search not understood",
                &rejection.body_text(),
            ));
        }
    };
    let words = match parse_query(&query.q) {
        Ok(words) => words,
        Err(problem) => {
            return Ok(html_error(
                StatusCode::BAD_REQUEST,
                "Search too long",
                &problem,
            ));
        }
    };
    let searching = !words.is_empty() || query.page.is_some();
    let page = query.page.unwrap_or(1).max(1);
    let meta = state.meta.clone();
    let (search, total, recent, popular) = blocking(move || {
        if searching {
            let (hits, matches) = meta.search(&words, page, PER_PAGE)?;
            return Ok((Some((hits, matches, page)), 0, Vec::new(), Vec::new()));
        }
        let total = meta.search(&words, 1, 1)?.1;
        Ok((None, total, meta.recent(LISTED)?, meta.popular(LISTED)?))
    })
    .await?;
    Ok(page_of(&home_page(
        &state.base_url,
        &query.q,
        search,
        total,
        recent,
        popular,
    )))
}

fn page_of(template: &impl Template) -> Response {
    page(StatusCode::OK, template)
}

/// `GET /skills/{name}`: the page of the version `install NAME` picks.
pub(super) async fn skill(
    State(state): State<Shared>,
    name: Result<UrlPath<String>, PathRejection>,
) -> Result<Response, Failure> {
    match name {
        Ok(UrlPath(name)) => version_page(&state, name, None).await,
        Err(rejection) => Ok(html_error(
            rejection.status(),
            "Not a skill's address",
            &rejection.body_text(),
        )),
    }
}

/// `GET /skills/{name}/{version}`.
pub(super) async fn version(
    State(state): State<Shared>,
    path: Result<UrlPath<(String, String)>, PathRejection>,
) -> Result<Response, Failure> {
    match path {
        Ok(UrlPath((name, version))) => version_page(&state, name, Some(version)).await,
        Err(rejection) => Ok(html_error(
            rejection.status(),
            "Not a skill's address",
            &rejection.body_text(),
        )),
    }
}

/// A version's page: its skill, the version (the newest that is not yanked when none is
/// named), its review and the start of its SKILL.md, in one trip to the store.
async fn version_page(
    state: &Shared,
    name: String,
    version: Option<String>,
) -> Result<Response, Failure> {
    if name.len() > api::MAX_NAME_LEN
        || version
            .as_ref()
            .is_some_and(|v| v.len() > api::MAX_VERSION_LEN)
    {
        return Ok(not_found("There is no such skill or version."));
    }
    let meta = state.meta.clone();
    let found = blocking(move || {
        let Some(skill) = meta.skill(&name)? else {
            return Ok(None);
        };
        let chosen = match &version {
            Some(version) => skill.versions.iter().find(|v| &v.version == version),
            None => skill
                .choose(None)
                .or_else(|| skill.versions.iter().find(|v| !v.yanked))
                .or(skill.versions.first()),
        };
        let Some(chosen) = chosen.cloned() else {
            return Ok(Some((skill, None)));
        };
        let review = meta.review(&skill.name, &chosen.version)?;
        let start = meta.skill_md_start(&skill.name, &chosen.version, PAGE_SKILL_MD_CHARS)?;
        Ok(Some((skill, Some((chosen, review, start)))))
    })
    .await?;
    let Some((skill, chosen)) = found else {
        return Ok(not_found("There is no skill of that name."));
    };
    let Some((version, review, start)) = chosen else {
        return Ok(not_found(&format!("{} has no such version.", skill.name)));
    };
    let reviewed = review.is_some();
    let review = review.unwrap_or_default();
    let start = start.unwrap_or(SkillMdStart {
        text: String::new(),
        cut: false,
    });
    let view = VersionView {
        skill: &skill,
        version: &version,
        review: &review,
        reviewed,
        skill_md: &start,
    };
    Ok(page_of(&skill_page(&state.base_url, &view)))
}

/// `GET /skills/{name}/{version}/files/{path}`: one file of the archive, read from the stored
/// archive, as escaped text up to [`PAGE_FILE_BYTES`].
pub(super) async fn file(
    State(state): State<Shared>,
    path: Result<UrlPath<(String, String, String)>, PathRejection>,
) -> Result<Response, Failure> {
    let (name, version, path) = match path {
        Ok(UrlPath(parts)) => parts,
        Err(rejection) => {
            return Ok(html_error(
                rejection.status(),
                "Not a file's address",
                &rejection.body_text(),
            ));
        }
    };
    if name.len() > api::MAX_NAME_LEN || version.len() > api::MAX_VERSION_LEN {
        return Ok(not_found("There is no such skill or version."));
    }
    let meta = state.meta.clone();
    let blobs = state.blobs.clone();
    let tmp = state.tmp.clone();
    let wanted = path.clone();
    let found = blocking(move || {
        let Some(skill) = meta.skill(&name)? else {
            return Ok(None);
        };
        let Some(chosen) = skill
            .versions
            .iter()
            .find(|v| v.version == version)
            .cloned()
        else {
            return Ok(None);
        };
        let review = meta
            .review(&skill.name, &chosen.version)?
            .unwrap_or_default();
        let Some(entry) = review
            .files
            .iter()
            .find(|file| file.path == wanted)
            .cloned()
        else {
            return Ok(None);
        };
        let Some(index) = entry.entry else {
            return Ok(None);
        };
        let Some(blob) = blobs.get(&chosen.checksum)? else {
            return Ok(None);
        };
        // The entry the extractor wrote this file from, by its index: never another entry
        // whose name merely decodes alike. An archive that no longer reads is a missing file
        // here, not a server error on a page.
        let mut bytes = Vec::new();
        let Ok(mut zip) = zip::ZipArchive::new(blob.into_file(&tmp)?) else {
            return Ok(None);
        };
        let Ok(member) = zip.by_index(index) else {
            return Ok(None);
        };
        if member.size() != entry.size
            || member
                .take(PAGE_FILE_BYTES + 1)
                .read_to_end(&mut bytes)
                .is_err()
        {
            return Ok(None);
        }
        Ok(Some((skill.name, chosen.version, entry, bytes)))
    })
    .await?;
    let Some((name, version, entry, mut bytes)) = found else {
        return Ok(not_found("There is no such file in this version."));
    };
    let cut = bytes.len() as u64 > PAGE_FILE_BYTES;
    bytes.truncate(usize::try_from(PAGE_FILE_BYTES).unwrap_or(usize::MAX));
    let text = as_text(&bytes, cut);
    Ok(page_of(&FilePage {
        name: &name,
        version: &version,
        path: &entry.path,
        size: size(entry.size),
        executable: entry.executable,
        text,
        cut,
        shown: size(PAGE_FILE_BYTES),
        download: format!("/api/v1/skills/{name}/{version}/download"),
    }))
}

#[cfg(test)]
mod tests {
    use super::{Review, as_text, file_rows, size, url_path};
    use crate::registry::review::FileEntry;

    /// Each folder comes once, before its files, whatever sorts between them as text (`-`
    /// before `/`).
    #[test]
    fn the_file_tree_lists_each_folder_once() {
        let review = Review {
            files: [
                "scripts-old.txt",
                "SKILL.md",
                "references/z.md",
                "scripts/a.sh",
                "references/deep/y.md",
            ]
            .iter()
            .map(|path| FileEntry {
                path: (*path).to_owned(),
                size: 1,
                executable: false,
                entry: None,
            })
            .collect(),
            ..Review::default()
        };
        let rows: Vec<String> = file_rows("notes", "1.0.0", &review)
            .iter()
            .map(|row| format!("{}{}", "  ".repeat(row.depth), row.label))
            .collect();
        assert_eq!(
            rows,
            [
                "SKILL.md",
                "references/",
                "  deep/",
                "    y.md",
                "  z.md",
                "scripts/",
                "  a.sh",
                "scripts-old.txt",
            ]
        );
    }

    #[test]
    fn file_paths_are_encoded_for_urls() {
        assert_eq!(url_path("scripts/run.sh"), "scripts/run.sh");
        assert_eq!(url_path("a b#c?d%e&f'é"), "a%20b%23c%3Fd%25e%26f%27%C3%A9");
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(size(1), "1 byte");
        assert_eq!(size(0), "0 bytes");
        assert_eq!(size(1023), "1023 bytes");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(3 * 1024 * 1024), "3.0 MiB");
    }

    #[test]
    fn text_is_told_from_binary() {
        assert_eq!(as_text(b"plain", false).as_deref(), Some("plain"));
        assert_eq!(as_text(b"a\0b", false), None);
        assert_eq!(as_text(b"\xff\xfe", false), None);
        // A character cut by the size cap is dropped, not taken for binary.
        assert_eq!(
            as_text("é".as_bytes()[..1].as_ref(), true).as_deref(),
            Some("")
        );
        assert_eq!(as_text("é".as_bytes()[..1].as_ref(), false), None);
    }
}
