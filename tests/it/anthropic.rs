//! `skillpkg publish --to anthropic` against a strict stand-in for Anthropic's Skills API.
//!
//! The real API cannot be reached from the machines these tests run on, so [`SkillsApi`] is a
//! contract server on loopback, written from `docs/research/publishing.md` §3 (the API
//! reference pages and the Python SDK 2.15.0, checked on 2026-12-01) rather than from the
//! client: it refuses a request the documented API would refuse (a wrong key, no
//! `anthropic-version`, a multipart body that is not exactly `files[]` parts under one folder
//! named like the skill, with `SKILL.md` at its top), answers the documented GA objects, pages
//! its list with cursors, and records every request and every file it took.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::common::{TestContext, run};

/// The key the server accepts.
const KEY: &str = "sk-ant-api03-test-key";
/// The documented upload limit the server enforces (the beta docs' 8 MB).
const MAX_UPLOAD: usize = 8 * 1024 * 1024;
/// What the server reads of a request at most: the upload and its multipart framing.
const MAX_BODY: usize = MAX_UPLOAD + 1024 * 1024;
/// The only frontmatter keys claude.ai uploads accept.
const ALLOWED_KEYS: [&str; 6] = [
    "name",
    "description",
    "license",
    "allowed-tools",
    "compatibility",
    "metadata",
];
const CREATED_AT: &str = "2026-12-01T00:00:00Z";

/// One part of a multipart body, as the server parsed it.
#[derive(Clone, Debug)]
struct Part {
    name: String,
    filename: Option<String>,
    content_type: Option<String>,
    body: Vec<u8>,
}

/// One request, as the server received it, and the status it answered.
#[derive(Clone, Debug)]
struct Recorded {
    method: String,
    target: String,
    /// Lower-case names, in the order received.
    headers: Vec<(String, String)>,
    parts: Vec<Part>,
    status: u16,
}

impl Recorded {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Files as uploaded: (path with its top-level folder, bytes).
type Files = Vec<(String, Vec<u8>)>;

/// A multipart part to write by hand: (field, filename, value).
type HandPart<'a> = (&'a str, Option<&'a str>, &'a str);

/// A skill the server holds.
#[derive(Clone, Debug)]
struct Skill {
    id: String,
    display_name: String,
    /// The immutable `name` of its versions: the first upload's frontmatter `name`.
    name: String,
    /// Each version: its id and its files (path as uploaded, bytes).
    versions: Vec<(String, Files)>,
}

impl Skill {
    fn object(&self) -> Value {
        json!({
            "type": "skill",
            "id": self.id,
            "created_at": CREATED_AT,
            "updated_at": CREATED_AT,
            "display_name": self.display_name,
            "latest_version_id": self.versions.last().map(|(id, _)| id.clone()),
            "source": "custom",
        })
    }
}

#[derive(Debug, Default)]
struct Shared {
    skills: Vec<Skill>,
    requests: Vec<Recorded>,
    /// Skills per page of the list, whatever `limit` asks for (to make the client page).
    page_size: usize,
    ids: usize,
}

/// The contract server; stops when dropped.
struct SkillsApi {
    address: SocketAddr,
    shared: Arc<Mutex<Shared>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl SkillsApi {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let shared = Arc::new(Mutex::new(Shared {
            page_size: 100,
            ..Shared::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (shared, stop) = (shared.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let shared = shared.clone();
                    std::thread::spawn(move || serve(stream, &shared));
                }
            })
        };
        Self {
            address,
            shared,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn requests(&self) -> Vec<Recorded> {
        self.lock().requests.clone()
    }

    fn skills(&self) -> Vec<Skill> {
        self.lock().skills.clone()
    }

    /// Adds a custom skill made elsewhere.
    fn seed(&self, display_name: &str) {
        let mut shared = self.lock();
        shared.ids += 1;
        let n = shared.ids;
        shared.skills.push(Skill {
            id: format!("skill_01Seed{n:04}"),
            display_name: display_name.to_owned(),
            name: display_name.to_owned(),
            versions: vec![(format!("skillver_01Seed{n:04}"), Vec::new())],
        });
    }
}

impl Drop for SkillsApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.address);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A request as read off the socket.
struct Raw {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// One connection: one request, one answer, closed.
fn serve(stream: TcpStream, shared: &Mutex<Shared>) {
    let timeout = Some(Duration::from_secs(10));
    let _ = stream.set_read_timeout(timeout);
    let _ = stream.set_write_timeout(timeout);
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let (status, body) = match read_request(&mut reader) {
        Ok(None) => return,
        Ok(Some(raw)) => {
            let mut shared = shared.lock().unwrap_or_else(PoisonError::into_inner);
            answer(&raw, &mut shared)
        }
        Err((status, kind, message)) => (status, error(kind, message)),
    };
    let body = body.to_string();
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\nrequest-id: req_test\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        if status == 200 { "OK" } else { "Error" },
        body.len()
    );
}

type Refusal = (u16, &'static str, String);

/// Reads one request: the head (at most 64 KiB), then exactly `content-length` bytes.
fn read_request(reader: &mut BufReader<TcpStream>) -> Result<Option<Raw>, Refusal> {
    let invalid = |message: &str| (400, "invalid_request_error", message.to_owned());
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        let n = reader
            .by_ref()
            .take(64 * 1024)
            .read_until(b'\n', &mut line)
            .map_err(|_| invalid("the request head did not arrive"))?;
        if n == 0 {
            return if head.is_empty() {
                Ok(None)
            } else {
                Err(invalid("the request head is cut short"))
            };
        }
        if line == b"\r\n" {
            break;
        }
        head.push(String::from_utf8(line).map_err(|_| invalid("the request head is not UTF-8"))?);
        if head.len() > 100 {
            return Err(invalid("too many header lines"));
        }
    }
    let request_line = head.remove(0);
    let mut words = request_line.split_whitespace();
    let (Some(method), Some(target), Some("HTTP/1.1")) = (words.next(), words.next(), words.next())
    else {
        return Err(invalid("not an HTTP/1.1 request line"));
    };
    let mut headers = Vec::new();
    for line in head {
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| invalid("a header line without a colon"))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length = headers.iter().find(|(name, _)| name == "content-length");
    if headers.iter().any(|(name, _)| name == "transfer-encoding") {
        return Err(invalid(
            "send a content-length: this server reads no chunked bodies",
        ));
    }
    let length: usize = match length {
        Some((_, value)) => value.parse().map_err(|_| invalid("a bad content-length"))?,
        None => 0,
    };
    if length > MAX_BODY {
        return Err((
            413,
            "request_too_large",
            format!("the body is {length} bytes"),
        ));
    }
    let mut body = vec![0; length];
    reader
        .read_exact(&mut body)
        .map_err(|_| invalid("the body is shorter than its content-length"))?;
    Ok(Some(Raw {
        method: method.to_owned(),
        target: target.to_owned(),
        headers,
        body,
    }))
}

fn error(kind: &str, message: impl Into<String>) -> Value {
    json!({
        "type": "error",
        "error": { "type": kind, "message": message.into() },
        "request_id": "req_011Test",
    })
}

/// Checks, routes and records one request.
fn answer(raw: &Raw, shared: &mut Shared) -> (u16, Value) {
    let content_type = raw
        .headers
        .iter()
        .find(|(name, _)| name == "content-type")
        .map(|(_, value)| value.as_str());
    let parts = match (raw.method.as_str(), content_type) {
        ("POST", Some(content_type)) => multipart(content_type, &raw.body),
        ("POST", None) => Err("content-type: multipart/form-data is required".to_owned()),
        _ if raw.body.is_empty() => Ok(Vec::new()),
        _ => Err("this request takes no body".to_owned()),
    };
    let (status, value) = match &parts {
        Ok(parts) => route(raw, parts, shared),
        Err(message) => (400, error("invalid_request_error", message.clone())),
    };
    shared.requests.push(Recorded {
        method: raw.method.clone(),
        target: raw.target.clone(),
        headers: raw.headers.clone(),
        parts: parts.unwrap_or_default(),
        status,
    });
    (status, value)
}

fn route(raw: &Raw, parts: &[Part], shared: &mut Shared) -> (u16, Value) {
    let header = |name: &str| {
        raw.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    let invalid = |message: &str| (400, error("invalid_request_error", message));
    if header("x-api-key") != Some(KEY) {
        return (401, error("authentication_error", "invalid x-api-key"));
    }
    if header("anthropic-version").is_none_or(str::is_empty) {
        return invalid("anthropic-version: header is required");
    }
    if header("anthropic-beta").is_some() {
        return invalid(
            "this server speaks the GA Skills API; a beta header selects the legacy one",
        );
    }
    let (path, query) = raw.target.split_once('?').unwrap_or((&raw.target, ""));
    let segments: Vec<&str> = path.split('/').collect();
    match (raw.method.as_str(), segments.as_slice()) {
        ("GET", ["", "v1", "skills"]) => list(query, shared),
        ("POST", ["", "v1", "skills"]) if query.is_empty() => match upload(parts, true) {
            Ok(upload) => {
                shared.ids += 1;
                let n = shared.ids;
                let skill = Skill {
                    id: format!("skill_01Test{n:04}"),
                    display_name: upload.display_name.unwrap_or_else(|| upload.name.clone()),
                    name: upload.name,
                    versions: vec![(format!("skillver_01Test{n:04}"), upload.files)],
                };
                let object = skill.object();
                shared.skills.push(skill);
                (200, object)
            }
            Err(message) => invalid(&message),
        },
        ("POST", ["", "v1", "skills", id, "versions"]) if query.is_empty() => {
            let upload = match upload(parts, false) {
                Ok(upload) => upload,
                Err(message) => return invalid(&message),
            };
            shared.ids += 1;
            let n = shared.ids;
            let Some(skill) = shared.skills.iter_mut().find(|skill| skill.id == *id) else {
                return (
                    404,
                    error("not_found_error", format!("skill {id} not found")),
                );
            };
            if upload.name != skill.name {
                return invalid(&format!(
                    "the upload's name `{}` is not the skill's name `{}`",
                    upload.name, skill.name
                ));
            }
            let version = format!("skillver_01Test{n:04}");
            skill.versions.push((version.clone(), upload.files));
            let object = json!({
                "type": "skill_version",
                "id": version,
                "skill_id": skill.id,
                "name": skill.name,
                "description": upload.description,
                "created_at": CREATED_AT,
            });
            (200, object)
        }
        _ => (
            404,
            error("not_found_error", format!("no route {} {path}", raw.method)),
        ),
    }
}

/// `GET /v1/skills`: `limit` 1–1000, `source`, and `page` cursors this server made.
fn list(query: &str, shared: &Shared) -> (u16, Value) {
    let invalid = |message: String| (400, error("invalid_request_error", message));
    let mut params = BTreeMap::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if !["limit", "page", "source"].contains(&key) || params.insert(key, value).is_some() {
            return invalid(format!("unexpected query parameter `{key}`"));
        }
    }
    let limit = match params.get("limit").map(|limit| limit.parse::<usize>()) {
        None => 20,
        Some(Ok(limit)) if (1..=1000).contains(&limit) => limit,
        Some(_) => return invalid("limit must be 1 to 1000".to_owned()),
    };
    let source = params.get("source").copied();
    if source.is_some_and(|source| !["custom", "anthropic"].contains(&source)) {
        return invalid("source must be custom or anthropic".to_owned());
    }
    let start = match params.get("page") {
        None => 0,
        Some(cursor) => match cursor.strip_prefix("cursor_").and_then(|n| n.parse().ok()) {
            Some(start) => start,
            None => return invalid(format!("page `{cursor}` is not a cursor this server gave")),
        },
    };
    let matching: Vec<&Skill> = shared
        .skills
        .iter()
        .filter(|_| source != Some("anthropic"))
        .collect();
    let end = (start + limit.min(shared.page_size)).min(matching.len());
    let data: Vec<Value> = matching[start.min(end)..end]
        .iter()
        .map(|skill| skill.object())
        .collect();
    let next = (end < matching.len()).then(|| format!("cursor_{end}"));
    (
        200,
        json!({ "data": data, "has_more": next.is_some(), "next_page": next }),
    )
}

/// What an upload held, once checked.
struct Upload {
    name: String,
    description: String,
    display_name: Option<String>,
    files: Files,
}

/// Checks the parts of an upload against the documented rules: `files[]` parts (and, for a
/// create, one `display_name`) only; every file under one top-level folder, `SKILL.md` at its
/// top, the folder named like the frontmatter `name`; only the six keys claude.ai allows; at
/// most 8 MiB in all.
fn upload(parts: &[Part], create: bool) -> Result<Upload, String> {
    let mut display_name = None;
    let mut files: Files = Vec::new();
    for part in parts {
        match (part.name.as_str(), &part.filename) {
            ("display_name", None) if create && display_name.is_none() => {
                let text = String::from_utf8(part.body.clone())
                    .map_err(|_| "display_name is not UTF-8")?;
                if text.chars().count() > 255
                    || text.contains(['\r', '\n'])
                    || text.trim().is_empty()
                {
                    return Err("display_name must be one line of 1 to 255 characters".to_owned());
                }
                display_name = Some(text);
            }
            ("files[]", Some(filename)) => {
                let components: Vec<&str> = filename.split('/').collect();
                if components.len() < 2
                    || components
                        .iter()
                        .any(|c| c.is_empty() || *c == "." || *c == "..")
                    || filename.contains('\\')
                {
                    return Err(format!(
                        "`{filename}` is not a path under one top-level folder"
                    ));
                }
                if files.iter().any(|(name, _)| name == filename) {
                    return Err(format!("`{filename}` is uploaded twice"));
                }
                files.push((filename.clone(), part.body.clone()));
            }
            (name, _) => return Err(format!("unexpected multipart field `{name}`")),
        }
    }
    let Some((first, _)) = files.first() else {
        return Err("files: at least one file is required".to_owned());
    };
    let top = first.split('/').next().unwrap_or_default().to_owned();
    if files
        .iter()
        .any(|(name, _)| !name.starts_with(&format!("{top}/")))
    {
        return Err("All files must be in the same top-level directory".to_owned());
    }
    let Some((_, skill_md)) = files
        .iter()
        .find(|(name, _)| *name == format!("{top}/SKILL.md"))
    else {
        return Err(
            "a SKILL.md file is required at the root of the top-level directory".to_owned(),
        );
    };
    if files.iter().map(|(_, body)| body.len()).sum::<usize>() > MAX_UPLOAD {
        return Err("the files total more than 8 MB".to_owned());
    }
    let frontmatter = frontmatter(skill_md)?;
    if let Some(key) = frontmatter
        .keys()
        .find(|key| !ALLOWED_KEYS.contains(&key.as_str()))
    {
        return Err(format!(
            "unexpected key in SKILL.md frontmatter: properties must be in ('name', 'description', 'license', 'allowed-tools', 'compatibility', 'metadata'), not `{key}`"
        ));
    }
    let name = frontmatter.get("name").cloned().unwrap_or_default();
    if name != top {
        return Err(format!(
            "the SKILL.md name `{name}` is not its folder `{top}`"
        ));
    }
    let description = frontmatter.get("description").cloned().unwrap_or_default();
    if description.is_empty() {
        return Err("SKILL.md has no description".to_owned());
    }
    Ok(Upload {
        name,
        description,
        display_name,
        files,
    })
}

/// The top-level keys of a SKILL.md frontmatter, with their one-line values.
fn frontmatter(bytes: &[u8]) -> Result<BTreeMap<String, String>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "SKILL.md is not UTF-8")?;
    let rest = text
        .strip_prefix("---\n")
        .ok_or("SKILL.md must start with a --- frontmatter")?;
    let (yaml, _) = rest
        .split_once("\n---")
        .ok_or("the frontmatter does not end with ---")?;
    let mut keys = BTreeMap::new();
    for line in yaml
        .lines()
        .filter(|line| !line.starts_with([' ', '\t', '#']) && !line.is_empty())
    {
        let (key, value) = line
            .split_once(':')
            .ok_or("a frontmatter line without a key")?;
        let value = value.trim().trim_matches(['"', '\'']).to_owned();
        keys.insert(key.trim().to_owned(), value);
    }
    Ok(keys)
}

/// Parses a `multipart/form-data` body strictly (RFC 7578 over RFC 2046): CRLF framing, each
/// part headed by `Content-Disposition: form-data; name="…"[; filename="…"]` and at most a
/// `Content-Type`, nothing after the closing delimiter but a CRLF.
fn multipart(content_type: &str, body: &[u8]) -> Result<Vec<Part>, String> {
    let boundary = content_type
        .strip_prefix("multipart/form-data; boundary=")
        .ok_or_else(|| {
            format!("content-type `{content_type}` is not multipart/form-data; boundary=…")
        })?
        .trim_matches('"');
    if boundary.is_empty() || boundary.len() > 70 {
        return Err("the boundary must be 1 to 70 characters".to_owned());
    }
    let opening = format!("--{boundary}\r\n");
    let delimiter = format!("\r\n--{boundary}");
    let mut rest = body
        .strip_prefix(opening.as_bytes())
        .ok_or("the body does not open with the boundary")?;
    let mut parts = Vec::new();
    loop {
        let end = memchr::memmem::find(rest, delimiter.as_bytes())
            .ok_or("a part has no closing boundary")?;
        parts.push(part(&rest[..end])?);
        rest = &rest[end + delimiter.len()..];
        if let Some(after) = rest.strip_prefix(b"\r\n") {
            rest = after;
        } else if let Some(after) = rest.strip_prefix(b"--") {
            if !after.is_empty() && after != b"\r\n" {
                return Err("bytes after the closing boundary".to_owned());
            }
            return Ok(parts);
        } else {
            return Err("a boundary line goes on after the boundary".to_owned());
        }
    }
}

fn part(raw: &[u8]) -> Result<Part, String> {
    let end = memchr::memmem::find(raw, b"\r\n\r\n")
        .ok_or("a part has no blank line after its headers")?;
    let head = std::str::from_utf8(&raw[..end]).map_err(|_| "part headers are not UTF-8")?;
    let mut disposition = None;
    let mut content_type = None;
    for line in head.split("\r\n") {
        let (name, value) = line.split_once(": ").ok_or("a malformed part header")?;
        match name.to_ascii_lowercase().as_str() {
            "content-disposition" if disposition.is_none() => disposition = Some(value),
            "content-type" if content_type.is_none() => content_type = Some(value.to_owned()),
            other => return Err(format!("unexpected part header `{other}`")),
        }
    }
    let params = disposition
        .and_then(|value| value.strip_prefix("form-data; "))
        .ok_or("a part without Content-Disposition: form-data")?;
    let mut name = None;
    let mut filename = None;
    for param in params.split("; ") {
        let (key, value) = param
            .split_once('=')
            .ok_or("a malformed Content-Disposition")?;
        let value = value
            .strip_prefix('"')
            .and_then(|value| value.strip_suffix('"'))
            .filter(|value| !value.contains('"'))
            .ok_or("Content-Disposition values must be quoted")?;
        match key {
            "name" if name.is_none() => name = Some(value.to_owned()),
            "filename" if filename.is_none() => filename = Some(value.to_owned()),
            _ => return Err(format!("unexpected Content-Disposition parameter `{key}`")),
        }
    }
    Ok(Part {
        name: name.ok_or("a part without a name")?,
        filename,
        content_type,
        body: raw[end + 4..].to_vec(),
    })
}

/// A recorded request for a snapshot: the headers skillpkg chose (not `host`, whose port
/// changes), the boundary and the key hidden, each part with its size and SHA-256.
fn transcript(request: &Recorded) -> String {
    let mut out = format!(
        "{} {} -> {}\n",
        request.method, request.target, request.status
    );
    let boundary = request
        .header("content-type")
        .and_then(|value| value.split_once("boundary="))
        .map(|(_, boundary)| boundary.to_owned());
    let mut headers: Vec<_> = request
        .headers
        .iter()
        .filter(|(name, _)| name != "host")
        .collect();
    headers.sort();
    for (name, value) in headers {
        let value = match name.as_str() {
            "x-api-key" if value == KEY => "[the key]".to_owned(),
            "user-agent" => value.replace(env!("CARGO_PKG_VERSION"), "[VERSION]"),
            _ => boundary.as_deref().map_or_else(
                || value.clone(),
                |boundary| value.replace(boundary, "[boundary]"),
            ),
        };
        let _ = writeln!(out, "  {name}: {value}");
    }
    for part in &request.parts {
        let _ = write!(out, "  part {}", part.name);
        match &part.filename {
            Some(filename) => {
                let _ = write!(out, " filename={filename}");
            }
            None => {
                let _ = write!(out, " value={}", String::from_utf8_lossy(&part.body));
            }
        }
        if let Some(content_type) = &part.content_type {
            let _ = write!(out, " type={content_type}");
        }
        let hash = Sha256::digest(&part.body);
        let hex = skillpkg::pack::archive::hex(&hash[..8]);
        let _ = writeln!(out, " {} bytes sha256:{hex}…", part.body.len());
    }
    out
}

/// The skill the tests publish: `work/pdf-forms`, at `version`, with a script and a reference.
fn write_skill(context: &TestContext, version: &str, extra: &str) {
    context.skill(
        "work/pdf-forms",
        &format!(
            "---\nname: pdf-forms\ndescription: Fills PDF forms from a data file. Use when the user asks to fill in a PDF form.\n{extra}metadata:\n  version: \"{version}\"\n---\n\n# PDF forms\n\nRun `scripts/fill.py FORM DATA`; the field names are in [fields](references/fields.md).\n"
        ),
    );
    context.write("work/pdf-forms/scripts/fill.py", "print('filled')\n");
    context.write(
        "work/pdf-forms/references/fields.md",
        "# Fields\n\nName, date.\n",
    );
}

/// `skillpkg publish work/pdf-forms --to anthropic ARGS` against `server`, with `key`.
fn publish(
    context: &TestContext,
    server: &SkillsApi,
    key: Option<&str>,
    args: &[&str],
) -> (i32, String, String) {
    let mut all = vec!["publish", "work/pdf-forms", "--to", "anthropic"];
    all.extend_from_slice(args);
    run(cli(context, &server.url(), key, &all))
}

fn cli(context: &TestContext, base: &str, key: Option<&str>, args: &[&str]) -> Command {
    let mut command = context.command(args);
    command
        .env("ANTHROPIC_BASE_URL", base)
        .env("SKILLPKG_HTTP_TIMEOUT", "10")
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
        .env_remove("SKILLPKG_ANTHROPIC_VERSION");
    match key {
        Some(key) => command.env("ANTHROPIC_API_KEY", key),
        None => command.env_remove("ANTHROPIC_API_KEY"),
    };
    command
}

fn state(context: &TestContext) -> String {
    fs_err::read_to_string(context.root().join("work/skillpkg-state.toml")).unwrap_or_default()
}

fn targets(server: &SkillsApi) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|request| format!("{} {} {}", request.method, request.target, request.status))
        .collect()
}

#[test]
fn a_skill_is_created_then_left_alone_then_given_a_version() {
    let context = TestContext::new();
    let server = SkillsApi::start();
    write_skill(&context, "1.0.0", "");
    let (code, stdout, stderr) = publish(&context, &server, Some(KEY), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("skill_01Test0001"), "{stdout}");
    assert_eq!(
        targets(&server),
        [
            "GET /v1/skills?source=custom&limit=100 200",
            "POST /v1/skills 200"
        ]
    );
    let created = state(&context);
    assert!(
        created.contains("skill_id = \"skill_01Test0001\""),
        "{created}"
    );
    assert!(
        created.contains("version_id = \"skillver_01Test0001\""),
        "{created}"
    );
    assert!(created.contains("version = \"1.0.0\""), "{created}");

    let (code, _, stderr) = publish(&context, &server, Some(KEY), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("nothing changed") || stderr.contains("unchanged"),
        "{stderr}"
    );
    assert_eq!(
        server.requests().len(),
        2,
        "an unchanged skill sends nothing"
    );
    assert_eq!(state(&context), created);

    write_skill(&context, "1.1.0", "");
    let (code, _, stderr) = publish(&context, &server, Some(KEY), &[]);
    assert_eq!(code, 0, "{stderr}");
    let requests = server.requests();
    assert_eq!(
        targets(&server)[2..],
        ["POST /v1/skills/skill_01Test0001/versions 200"]
    );
    let skills = server.skills();
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0].versions.len(), 2);
    let bumped = state(&context);
    assert!(
        bumped.contains("version_id = \"skillver_01Test0002\""),
        "{bumped}"
    );
    assert!(bumped.contains("version = \"1.1.0\""), "{bumped}");
    context.settings().bind(|| {
        insta::assert_snapshot!("anthropic__create", transcript(&requests[1]));
        insta::assert_snapshot!("anthropic__version", transcript(&requests[2]));
        insta::assert_snapshot!("anthropic__state", bumped);
    });
}

#[test]
fn a_lost_state_file_finds_the_skill_by_name_instead_of_making_another() {
    let context = TestContext::new();
    let server = SkillsApi::start();
    server.lock().page_size = 2;
    for name in ["csv-tools", "pdf-form", "slides"] {
        server.seed(name);
    }
    write_skill(&context, "1.0.0", "");
    let (code, _, stderr) = publish(&context, &server, Some(KEY), &[]);
    assert_eq!(code, 0, "{stderr}");
    server.seed("zebra");
    fs_err::remove_file(context.root().join("work/skillpkg-state.toml")).unwrap();
    write_skill(&context, "1.1.0", "");
    let (code, _, stderr) = publish(&context, &server, Some(KEY), &[]);
    assert_eq!(code, 0, "{stderr}");
    let sent = targets(&server);
    assert_eq!(
        sent[sent.len() - 4..],
        [
            "GET /v1/skills?source=custom&limit=100 200",
            "GET /v1/skills?source=custom&limit=100&page=cursor_2 200",
            "GET /v1/skills?source=custom&limit=100&page=cursor_4 200",
            "POST /v1/skills/skill_01Test0004/versions 200",
        ]
    );
    let named: Vec<_> = server
        .skills()
        .into_iter()
        .filter(|skill| skill.display_name == "pdf-forms")
        .collect();
    assert_eq!(named.len(), 1, "no duplicate skill");
    assert_eq!(named[0].versions.len(), 2);
    let state = state(&context);
    assert!(
        state.contains("skill_id = \"skill_01Test0004\"") && state.contains("version = \"1.1.0\""),
        "{state}"
    );
}

#[test]
fn the_same_version_with_other_contents_is_refused() {
    let context = TestContext::new();
    let server = SkillsApi::start();
    write_skill(&context, "1.0.0", "");
    assert_eq!(publish(&context, &server, Some(KEY), &[]).0, 0);
    let before = state(&context);
    context.write("work/pdf-forms/scripts/fill.py", "print('changed')\n");
    let (code, _, stderr) = publish(&context, &server, Some(KEY), &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("pdf-forms 1.0.0 was already published to the Skills API with other contents; bump the version"),
        "{stderr}"
    );
    assert_eq!(server.requests().len(), 2);
    assert_eq!(state(&context), before);
}

#[test]
fn a_wrong_missing_or_exposed_key_sends_no_upload() {
    let context = TestContext::new();
    let server = SkillsApi::start();
    write_skill(&context, "1.0.0", "");
    let (code, _, stderr) = publish(&context, &server, Some("sk-ant-wrong"), &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("invalid x-api-key") && stderr.contains("ANTHROPIC_API_KEY"),
        "{stderr}"
    );
    assert_eq!(
        targets(&server),
        ["GET /v1/skills?source=custom&limit=100 401"]
    );

    let (code, _, stderr) = publish(&context, &server, None, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
    // Plain http to another machine: refused before connecting (192.0.2.1 is TEST-NET-1).
    let (code, _, stderr) = run(cli(
        &context,
        "http://192.0.2.1:9",
        Some(KEY),
        &["publish", "work/pdf-forms", "--to", "anthropic"],
    ));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("plain http://"), "{stderr}");
    assert_eq!(server.requests().len(), 1);
    assert_eq!(state(&context), "");
}

#[test]
fn a_dry_run_sends_and_writes_nothing() {
    let context = TestContext::new();
    let server = SkillsApi::start();
    write_skill(&context, "1.0.0", "");
    let (code, _, stderr) = publish(&context, &server, None, &["--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("POST /v1/skills"), "{stderr}");
    assert!(server.requests().is_empty());
    assert_eq!(state(&context), "");
}

#[test]
fn skills_the_api_would_refuse_are_refused_before_any_request() {
    let context = TestContext::new();
    let server = SkillsApi::start();
    write_skill(&context, "1.0.0", "when_to_use: Filling forms.\n");
    let (code, _, stderr) = publish(&context, &server, Some(KEY), &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("when_to_use"), "{stderr}");

    write_skill(&context, "1.0.0", "");
    context.write("work/pdf-forms/assets/scan.bin", vec![0_u8; MAX_UPLOAD + 1]);
    let (code, _, stderr) = publish(&context, &server, Some(KEY), &["--no-lint"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("8.0 MiB") || stderr.contains(&MAX_UPLOAD.to_string()),
        "{stderr}"
    );
    assert!(server.requests().is_empty());
    assert_eq!(state(&context), "");
}

#[test]
fn the_files_the_api_received_pass_validate_for_claude_ai() {
    let context = TestContext::new();
    let server = SkillsApi::start();
    write_skill(&context, "1.0.0", "");
    assert_eq!(publish(&context, &server, Some(KEY), &[]).0, 0);
    let skills = server.skills();
    let (_, files) = &skills[0].versions[0];
    let mut paths: Vec<&str> = files.iter().map(|(path, _)| path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "pdf-forms/SKILL.md",
            "pdf-forms/references/fields.md",
            "pdf-forms/scripts/fill.py"
        ]
    );
    for (path, bytes) in files {
        context.write(&format!("received/{path}"), bytes);
        assert_eq!(
            bytes,
            &fs_err::read(context.root().join("work").join(path)).unwrap(),
            "{path}"
        );
    }
    let (code, stdout, stderr) =
        run(context.validate(&["received/pdf-forms", "--target", "claude-ai"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
}

/// The library against the server, without the command: cursors followed, and several skills
/// with the name refused rather than guessed between.
#[test]
fn the_client_refuses_to_guess_between_skills_with_one_name() {
    let context = TestContext::new();
    let server = SkillsApi::start();
    server.lock().page_size = 1;
    server.seed("pdf-forms");
    server.seed("other");
    server.seed("pdf-forms");
    write_skill(&context, "1.0.0", "");
    let skill = prepared(&context.root().join("work/pdf-forms"));
    let options = skillpkg::publish::anthropic::Options {
        base_url: server.url(),
        api_key: Some(KEY.to_owned()),
        version: "2023-06-01".to_owned(),
        workspace: Some("wrkspc_01Test".to_owned()),
        max_bytes: MAX_UPLOAD as u64,
    };
    let state_file = context.root().join("skillpkg-state.toml");
    let error =
        skillpkg::publish::anthropic::publish(&skill, &options, &state_file, false).unwrap_err();
    assert!(error.is_refusal(), "{error}");
    assert!(
        error
            .to_string()
            .contains("2 custom skills named `pdf-forms` (skill_01Seed0001, skill_01Seed0003)"),
        "{error}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests
            .iter()
            .all(|request| request.header("anthropic-workspace-id") == Some("wrkspc_01Test"))
    );
    assert!(!state_file.exists());
}

/// A [`skillpkg::publish::Prepared`] of the skill in `dir`, as the command would make it.
fn prepared(dir: &Path) -> skillpkg::publish::Prepared {
    let files = skillpkg::pack::select::select(dir).unwrap();
    skillpkg::publish::Prepared {
        dir: dir.to_path_buf(),
        name: "pdf-forms".to_owned(),
        description: "Fills PDF forms.".to_owned(),
        version: semver::Version::new(1, 0, 0),
        total: files.iter().map(|file| file.size).sum(),
        files,
    }
}

/// The server itself refuses what the API refuses: a test of the test.
#[test]
fn the_contract_server_refuses_what_the_api_refuses() {
    let server = SkillsApi::start();
    let skill_md = "---\nname: x\ndescription: X.\n---\n";
    let cases: &[(&str, &[HandPart], u16, &str)] = &[
        (
            "the folder is not the name",
            &[("files[]", Some("y/SKILL.md"), skill_md)],
            400,
            "is not its folder",
        ),
        (
            "no folder",
            &[("files[]", Some("SKILL.md"), skill_md)],
            400,
            "one top-level folder",
        ),
        (
            "two folders",
            &[
                ("files[]", Some("x/SKILL.md"), skill_md),
                ("files[]", Some("z/a.md"), "a"),
            ],
            400,
            "same top-level",
        ),
        (
            "no SKILL.md",
            &[("files[]", Some("x/README.md"), "a")],
            400,
            "SKILL.md file is required",
        ),
        (
            "another field",
            &[("file", Some("x/SKILL.md"), skill_md)],
            400,
            "unexpected multipart field",
        ),
        (
            "a key claude.ai refuses",
            &[(
                "files[]",
                Some("x/SKILL.md"),
                "---\nname: x\ndescription: X.\nwhen_to_use: y\n---\n",
            )],
            400,
            "when_to_use",
        ),
        (
            "a good one",
            &[
                ("display_name", None, "X"),
                ("files[]", Some("x/SKILL.md"), skill_md),
            ],
            200,
            "\"type\":\"skill\"",
        ),
    ];
    for (what, parts, status, expected) in cases {
        let (got, body) = raw_post(
            &server,
            "/v1/skills",
            &[("x-api-key", KEY), ("anthropic-version", "2023-06-01")],
            parts,
        );
        assert_eq!(got, *status, "{what}: {body}");
        assert!(body.contains(expected), "{what}: {body}");
    }
    let good: &[HandPart] = &[("files[]", Some("x/SKILL.md"), skill_md)];
    let (status, body) = raw_post(
        &server,
        "/v1/skills",
        &[("anthropic-version", "2023-06-01")],
        good,
    );
    assert_eq!(status, 401, "{body}");
    let (status, body) = raw_post(&server, "/v1/skills", &[("x-api-key", KEY)], good);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("anthropic-version"), "{body}");
}

/// A multipart `POST` written by hand, and the answer's status and body.
fn raw_post(
    server: &SkillsApi,
    path: &str,
    headers: &[(&str, &str)],
    parts: &[HandPart],
) -> (u16, String) {
    let mut body = String::new();
    for (name, filename, value) in parts {
        let filename = filename
            .map(|filename| format!("; filename=\"{filename}\""))
            .unwrap_or_default();
        let _ = write!(
            body,
            "--B\r\nContent-Disposition: form-data; name=\"{name}\"{filename}\r\n\r\n{value}\r\n"
        );
    }
    body.push_str("--B--\r\n");
    let mut stream = TcpStream::connect(server.address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nhost: test\r\ncontent-type: multipart/form-data; boundary=B\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        let _ = write!(request, "{name}: {value}\r\n");
    }
    let _ = write!(request, "\r\n{body}");
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}
