//! The HTML pages: the index and a skill's page, showing uploaded text escaped, with no script.

use std::fmt::Write as _;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::registry::api::{self};

use super::handlers::{SearchQuery, parse_query};
use super::{Failure, Shared, blocking};

/// How much of SKILL.md a skill's web page shows, in characters: the page is built in memory
/// for every visit.
pub(super) const PAGE_SKILL_MD_CHARS: usize = 64 * 1024;

pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub(super) fn html(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{}</title>\
<style>body{{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem}}pre{{background:#f4f4f4;padding:1rem;overflow:auto;white-space:pre-wrap}}code{{background:#f4f4f4;padding:0 .2rem}}</style></head>\
<body><p><a href=\"/\">skillpkg registry</a></p>{body}</body></html>\n",
        escape(title)
    ))
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
    let page = query.page.unwrap_or(1).max(1);
    let meta = state.meta.clone();
    let query_words = words.clone();
    let (skills, total) = blocking(move || meta.search(&query_words, page, 50)).await?;
    let mut body = format!(
        "<h1>Skills</h1><form><input name=\"q\" value=\"{}\" placeholder=\"Search skills\"> <button>Search</button></form><p>{total} skills</p><ul>",
        escape(&query.q)
    );
    for skill in skills {
        let _ = write!(
            body,
            "<li><a href=\"/skills/{0}\">{0}</a> {1} — {2}</li>",
            escape(&skill.name),
            escape(skill.latest.as_deref().unwrap_or("")),
            escape(&skill.description)
        );
    }
    body.push_str("</ul>");
    if words.is_empty() {
        let meta = state.meta.clone();
        let (recent, popular) = blocking(move || Ok((meta.recent(10)?, meta.popular(10)?))).await?;
        for (title, hits) in [("Recently updated", recent), ("Popular", popular)] {
            let _ = write!(body, "<h2>{title}</h2><ul>");
            for skill in hits {
                let _ = write!(
                    body,
                    "<li><a href=\"/skills/{0}\">{0}</a> {1}</li>",
                    escape(&skill.name),
                    escape(skill.latest.as_deref().unwrap_or(""))
                );
            }
            body.push_str("</ul>");
        }
    }
    Ok(html("skillpkg registry", &body).into_response())
}

/// An error as a page, for the pages people browse.
pub(super) fn html_error(status: StatusCode, title: &str, message: &str) -> Response {
    let body = format!("<h1>{}</h1><p>{}</p>", escape(title), escape(message));
    (status, html(title, &body)).into_response()
}

pub(super) async fn page(
    State(state): State<Shared>,
    name: Result<UrlPath<String>, PathRejection>,
) -> Result<Response, Failure> {
    let name = match name {
        Ok(UrlPath(name)) => name,
        Err(rejection) => {
            return Ok(html_error(
                rejection.status(),
                "Not a skill's address",
                &rejection.body_text(),
            ));
        }
    };
    let meta = state.meta.clone();
    let lookup = name.clone();
    let found = if name.len() > api::MAX_NAME_LEN {
        None
    } else {
        blocking(move || meta.skill(&lookup)).await?
    };
    let Some(skill) = found else {
        return Ok((
            StatusCode::NOT_FOUND,
            html("Not found", "<h1>No such skill</h1>"),
        )
            .into_response());
    };
    let latest = skill
        .versions
        .iter()
        .find(|v| !v.yanked)
        .or(skill.versions.first())
        .map(|v| v.version.clone());
    let shown = match &latest {
        Some(version) => {
            let meta = state.meta.clone();
            let (n, v) = (skill.name.clone(), version.clone());
            blocking(move || meta.skill_md_start(&n, &v, PAGE_SKILL_MD_CHARS)).await?
        }
        None => None,
    };
    let (text, cut) = shown.map_or((String::new(), false), |start| (start.text, start.cut));
    let mut body = format!(
        "<h1>{0}</h1><p>{1}</p><p>Install: <code>skillpkg install {0}</code></p><h2>Versions</h2><ul>",
        escape(&skill.name),
        escape(&skill.description)
    );
    for version in &skill.versions {
        let _ = write!(
            body,
            "<li>{}{}</li>",
            escape(&version.version),
            if version.yanked { " (yanked)" } else { "" }
        );
    }
    let _ = write!(
        body,
        "</ul><h2>Owners</h2><p>{}</p><h2>SKILL.md</h2><pre>{}</pre>",
        escape(&skill.owners.join(", ")),
        escape(&text)
    );
    if cut {
        let _ = write!(
            body,
            "<p><em>SKILL.md is cut here: the page shows its first {PAGE_SKILL_MD_CHARS} characters. Install the skill to read all of it.</em></p>"
        );
    }
    Ok(html(&skill.name, &body).into_response())
}
