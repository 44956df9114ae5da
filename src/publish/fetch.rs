//! Reading skills back from where [`super`] publishes them, for `skillpkg install --from URL`
//! (a site with the discovery index) and `skillpkg install --from-marketplace DIR_OR_GIT_URL`.
//!
//! Nothing a site or a marketplace says chooses a path: skills land in a folder the caller
//! gives, named by the skill's (checked) name; every download is capped and every digest the
//! index gives is verified before a byte is unpacked. Where the `skills` CLI silently skips an
//! entry it cannot use, this reports it.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::well_known::{self, Entry, LEGACY_INDEX, MAX_ARCHIVE_BYTES, MAX_ARCHIVE_FILES};
use super::{Error, is_kebab_case};
use crate::pack::extract;

/// The largest index read.
const MAX_INDEX_BYTES: u64 = super::MAX_MANIFEST_BYTES;
/// How long a `git clone` of a marketplace may take.
const CLONE_TIMEOUT: Duration = Duration::from_secs(300);

/// A skill fetched into a folder.
#[derive(Clone, Debug)]
pub struct Fetched {
    pub name: String,
    /// The folder holding its files (named `name`).
    pub dir: PathBuf,
    /// SHA-256 of the artifact as served, when the source has one with a digest (a v0.2.0
    /// index entry).
    pub sha256: Option<String>,
    /// The version the source gives (a plugin's), if any.
    pub version: Option<String>,
}

/// A site's discovery index, as found.
#[derive(Clone, Debug)]
pub struct Site {
    /// The URL the index was read from.
    pub index_url: String,
    pub kind: SiteIndex,
    /// Entries that cannot be installed, and why.
    pub skipped: Vec<String>,
}

#[derive(Clone, Debug)]
pub enum SiteIndex {
    /// A v0.2.0 index: artifacts with digests.
    V2(Vec<Entry>),
    /// A v0.1.0 index: each skill's file list, no digests.
    Legacy(Vec<(String, String, Vec<String>)>),
}

impl Site {
    /// The names of the skills the site offers.
    pub fn names(&self) -> Vec<String> {
        match &self.kind {
            SiteIndex::V2(entries) => entries.iter().map(|entry| entry.name.clone()).collect(),
            SiteIndex::Legacy(entries) => entries.iter().map(|(name, ..)| name.clone()).collect(),
        }
    }
}

/// One GET: the body (at most `max` bytes) and the content type, or why not.
fn get(url: &str, max: u64) -> Result<Option<(Vec<u8>, String)>, Error> {
    let https = url.starts_with("https://");
    if !https && !url.starts_with("http://") {
        return Err(Error::failed(
            format!("`{url}` is not an http:// or https:// URL"),
            "",
        ));
    }
    let (agent, timeouts) = crate::registry::client::agent(https)
        .map_err(|error| Error::failed(error.to_string(), ""))?;
    let response = agent.get(url).call().map_err(|error| {
        Error::failed(
            crate::registry::client::transport_error(url, error, timeouts).to_string(),
            "check the URL and that the site is up",
        )
    })?;
    let status = response.status().as_u16();
    if status == 404 || status == 410 {
        return Ok(None);
    }
    if status != 200 {
        return Err(Error::failed(
            format!("{url} answered {status}"),
            "check the URL and that the site is up",
        ));
    }
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let mut body = Vec::new();
    response
        .into_body()
        .into_reader()
        .take(max + 1)
        .read_to_end(&mut body)
        .map_err(|error| Error::failed(format!("{url}: {error}"), ""))?;
    if body.len() as u64 > max {
        return Err(Error::refused(
            format!("{url} is larger than {}", crate::fsx::size(max)),
            "",
        ));
    }
    Ok(Some((body, content_type)))
}

/// Reads the discovery index of the site at `base`: the v0.2.0 one, else the v0.1.0 one,
/// as the `skills` CLI looks for them.
pub fn site(base: &str) -> Result<Site, Error> {
    let base = base.trim_end_matches('/');
    let new_url = format!("{base}/{}", well_known::INDEX);
    if let Some((bytes, _)) = get(&new_url, MAX_INDEX_BYTES)? {
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|error| Error::refused(format!("{new_url}: not JSON: {error}"), ""))?;
        if value.get("$schema").and_then(Value::as_str) != Some(well_known::SCHEMA) {
            return Err(Error::refused(
                format!(
                    "{new_url}: the index's $schema is not {}",
                    well_known::SCHEMA
                ),
                "skillpkg reads discovery indexes of version 0.2.0",
            ));
        }
        let raw = value
            .get("skills")
            .and_then(Value::as_array)
            .ok_or_else(|| Error::refused(format!("{new_url}: `skills` is not an array"), ""))?;
        let mut entries = Vec::new();
        let mut skipped = Vec::new();
        for item in raw {
            match serde_json::from_value::<Entry>(item.clone()) {
                Ok(entry) => match entry_problem(&entry) {
                    None => entries.push(entry),
                    Some(problem) => {
                        skipped.push(format!("`{}`: {problem}", entry.name.escape_debug()));
                    }
                },
                Err(error) => skipped.push(format!("an entry: {error}")),
            }
        }
        return Ok(Site {
            index_url: new_url,
            kind: SiteIndex::V2(entries),
            skipped,
        });
    }
    let old_url = format!("{base}/{LEGACY_INDEX}");
    let Some((bytes, _)) = get(&old_url, MAX_INDEX_BYTES)? else {
        return Err(Error::refused(
            format!("{base} has no discovery index ({new_url} and {old_url} are missing)"),
            "check the URL: it is the site's address, not the index's",
        ));
    };
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|error| Error::refused(format!("{old_url}: not JSON: {error}"), ""))?;
    let raw = value
        .get("skills")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::refused(format!("{old_url}: `skills` is not an array"), ""))?;
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    for item in raw {
        let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
        let description = item
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let files: Vec<String> = item
            .get("files")
            .and_then(Value::as_array)
            .map(|files| {
                files
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        match legacy_problem(name, &files) {
            None => entries.push((name.to_owned(), description.to_owned(), files)),
            Some(problem) => skipped.push(format!("`{}`: {problem}", name.escape_debug())),
        }
    }
    Ok(Site {
        index_url: old_url,
        kind: SiteIndex::Legacy(entries),
        skipped,
    })
}

/// Why a v0.2.0 entry cannot be installed, if it cannot.
fn entry_problem(entry: &Entry) -> Option<String> {
    if !is_kebab_case(&entry.name) {
        return Some("the name is not a valid skill name".into());
    }
    if !matches!(entry.kind.as_str(), "skill-md" | "archive") {
        return Some(format!("unknown type `{}`", entry.kind.escape_debug()));
    }
    let hex = entry.digest.strip_prefix("sha256:").unwrap_or_default();
    if hex.len() != 64
        || !hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Some("the digest is not sha256: and 64 lowercase hex digits".into());
    }
    if entry.url.is_empty() {
        return Some("no url".into());
    }
    None
}

/// Why a v0.1.0 entry cannot be installed, if it cannot.
fn legacy_problem(name: &str, files: &[String]) -> Option<String> {
    if !is_kebab_case(name) {
        return Some("the name is not a valid skill name".into());
    }
    if files.len() > MAX_ARCHIVE_FILES {
        return Some(format!("more than {MAX_ARCHIVE_FILES} files"));
    }
    if !files.iter().any(|file| file == "SKILL.md") {
        return Some("its files do not include SKILL.md".into());
    }
    files.iter().find(|file| !safe_relative(file)).map(|file| {
        format!(
            "the file path `{}` is not a plain relative path",
            file.escape_debug()
        )
    })
}

/// A relative `/`-separated path of printable ASCII with no empty, `.` or `..` part.
fn safe_relative(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 1024
        && path.chars().all(|c| c.is_ascii_graphic() || c == ' ')
        && !path.contains(['\\', '?', '#', '[', ']', ':'])
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

/// Resolves `reference` against `base` (RFC 3986 §5.2) for http(s) URLs; `None` for another
/// scheme.
pub fn resolve(base: &str, reference: &str) -> Option<String> {
    let lower = reference.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Some(reference.to_owned());
    }
    let (scheme, rest) = base.split_once("://")?;
    if reference.contains(':') && !reference.contains('/')
        || reference
            .split('/')
            .next()
            .is_some_and(|first| first.contains(':'))
    {
        return None;
    }
    if let Some(net) = reference.strip_prefix("//") {
        return Some(format!("{scheme}://{net}"));
    }
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let origin = format!("{scheme}://{}", &rest[..authority_end]);
    let base_path = rest[authority_end..].split(['?', '#']).next().unwrap_or("");
    let (path, query) = match reference.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (reference, None),
    };
    let merged = if path.starts_with('/') {
        path.to_owned()
    } else {
        let dir = base_path.rfind('/').map_or("/", |at| &base_path[..=at]);
        format!("{dir}{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    let segments: Vec<&str> = merged.split('/').collect();
    for (index, segment) in segments.iter().enumerate() {
        let last = index + 1 == segments.len();
        match *segment {
            "." => {
                if last {
                    parts.push("");
                }
            }
            ".." => {
                if parts.len() > 1 {
                    parts.pop();
                }
                if last {
                    parts.push("");
                }
            }
            other => parts.push(other),
        }
    }
    let mut url = format!("{origin}{}", parts.join("/"));
    if !url[origin.len()..].starts_with('/') {
        url.insert(origin.len(), '/');
    }
    if let Some(query) = query {
        url.push('?');
        url.push_str(query);
    }
    Some(url)
}

/// Fetches the skill `name` from `site` into `into/<name>`, every digest checked.
pub fn site_skill(site: &Site, name: &str, into: &Path) -> Result<Fetched, Error> {
    let dir = into.join(name);
    match &site.kind {
        SiteIndex::V2(entries) => {
            let entry = entries
                .iter()
                .find(|entry| entry.name == name)
                .ok_or_else(|| not_offered(site, name))?;
            let url = resolve(&site.index_url, &entry.url).ok_or_else(|| {
                Error::refused(
                    format!("`{name}`: its url `{}` is not http(s)", entry.url),
                    "",
                )
            })?;
            let (bytes, content_type) = get(&url, MAX_ARCHIVE_BYTES)?.ok_or_else(|| {
                Error::refused(
                    format!("{url} is missing (404)"),
                    "report it to the site's owner",
                )
            })?;
            let got = format!("sha256:{}", well_known::sha256_hex(&bytes));
            if got != entry.digest {
                return Err(Error::refused(
                    format!(
                        "{url} does not match its digest in the index (expected {}, got {got}); nothing was installed",
                        entry.digest
                    ),
                    "the file was altered on the way or on the site; report it to the site's owner",
                ));
            }
            if entry.kind == "skill-md" {
                fs_err::create_dir_all(&dir)?;
                fs_err::write(dir.join("SKILL.md"), &bytes)?;
            } else {
                unpack(&url, &bytes, &content_type, name, into)?;
            }
            check_name(&dir, name, &url)?;
            Ok(Fetched {
                name: name.to_owned(),
                dir,
                sha256: Some(got["sha256:".len()..].to_owned()),
                version: None,
            })
        }
        SiteIndex::Legacy(entries) => {
            let (_, _, files) = entries
                .iter()
                .find(|(entry, ..)| entry == name)
                .ok_or_else(|| not_offered(site, name))?;
            let base = site.index_url.trim_end_matches("index.json");
            let mut total = 0u64;
            for file in files {
                let url = format!("{base}{name}/{file}");
                let (bytes, _) = get(&url, MAX_ARCHIVE_BYTES - total)?.ok_or_else(|| {
                    Error::refused(
                        format!("{url} is listed in the index but missing (404)"),
                        "report it to the site's owner",
                    )
                })?;
                total += bytes.len() as u64;
                let path = dir.join(file);
                fs_err::create_dir_all(crate::fsx::parent_or_dot(&path))?;
                fs_err::write(&path, &bytes)?;
            }
            check_name(&dir, name, &site.index_url)?;
            Ok(Fetched {
                name: name.to_owned(),
                dir,
                sha256: None,
                version: None,
            })
        }
    }
}

fn not_offered(site: &Site, name: &str) -> Error {
    let names = site.names();
    Error::refused(
        format!("{} offers no skill `{name}`", site.index_url),
        if names.is_empty() {
            "the index lists no skills".to_owned()
        } else {
            format!("it offers: {}", names.join(", "))
        },
    )
}

/// Unpacks a zip artifact (files at its root) into `into/<name>`; a tar.gz is refused.
fn unpack(
    url: &str,
    bytes: &[u8],
    content_type: &str,
    name: &str,
    into: &Path,
) -> Result<(), Error> {
    let extension = Path::new(url.split(['?', '#']).next().unwrap_or(url)).extension();
    let gzip = content_type.contains("gzip")
        || extension
            .is_some_and(|ext| ext.eq_ignore_ascii_case("gz") || ext.eq_ignore_ascii_case("tgz"))
        || bytes.starts_with(&[0x1f, 0x8b]);
    if gzip && !bytes.starts_with(b"PK") {
        let limits = extract::Limits {
            max_bytes: MAX_ARCHIVE_BYTES,
            max_files: MAX_ARCHIVE_FILES,
            ..extract::Limits::default()
        };
        // Headers and padding add at most a few blocks per file to what the limits count.
        let cap = MAX_ARCHIVE_BYTES + (MAX_ARCHIVE_FILES as u64 * 3 + 16) * 2048;
        let stream = flate2::read::MultiGzDecoder::new(bytes).take(cap);
        crate::pack::tar::unpack(stream, &into.join(name), &limits)
            .map_err(|error| Error::refused(format!("{url}: {error}"), "nothing was installed"))?;
        return Ok(());
    }
    let file = into.join(".artifact.zip");
    fs_err::write(&file, bytes)?;
    let options = extract::Options::new(name);
    let extracted = extract::extract(&file, into, &options)
        .map_err(|error| Error::refused(format!("{url}: {error}"), "nothing was installed"))?;
    fs_err::remove_file(&file)?;
    if extracted.name != name {
        return Err(Error::refused(
            format!("{url} holds `{}`, not `{name}`", extracted.name),
            "an archive in a discovery index has its files at its root",
        ));
    }
    Ok(())
}

/// A plugin of a marketplace: its name, its version, and its skills (name and folder).
#[derive(Clone, Debug)]
pub struct Plugin {
    pub name: String,
    pub version: Option<String>,
    pub skills: Vec<(String, PathBuf)>,
}

/// A marketplace opened for reading: a folder, or a clone of a git repository.
#[derive(Debug)]
pub struct Marketplace {
    pub root: PathBuf,
    pub name: String,
    manifest: Value,
    _clone: Option<tempfile::TempDir>,
}

/// Whether `location` names a git repository rather than a folder.
pub fn is_git_url(location: &str) -> bool {
    ["https://", "http://", "ssh://", "git://", "file://", "git@"]
        .iter()
        .any(|prefix| location.starts_with(prefix))
}

/// Opens the marketplace at `location`: a folder, or a git URL cloned (shallow) into a
/// temporary folder.
pub fn marketplace(location: &str) -> Result<Marketplace, Error> {
    let (root, clone) = if is_git_url(location) {
        let clone = tempfile::Builder::new()
            .prefix("skillpkg-marketplace-")
            .tempdir()?;
        git_clone(location, clone.path())?;
        (clone.path().join("repo"), Some(clone))
    } else {
        (PathBuf::from(location), None)
    };
    let path = root.join(super::marketplace::MANIFEST);
    let text = crate::fsx::read_text_capped(&path, super::MAX_MANIFEST_BYTES).map_err(|error| {
        Error::failed(
            format!("cannot read {}: {error}", path.display()),
            "point --from-marketplace at a marketplace: a folder or git repository with .claude-plugin/marketplace.json",
        )
    })?;
    let manifest: Value = serde_json::from_str(&text)
        .map_err(|error| Error::refused(format!("{}: not JSON: {error}", path.display()), ""))?;
    let name = manifest
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok(Marketplace {
        root,
        name,
        manifest,
        _clone: clone,
    })
}

/// `git clone --depth 1 URL into/repo`, with no prompts and a time limit.
fn git_clone(url: &str, into: &Path) -> Result<(), Error> {
    // git's messages go to a file, not a pipe: a pipe nobody reads until git exits could fill
    // and stall it.
    let log_path = into.join("git.log");
    let log = fs_err::File::create(&log_path)?;
    let mut child = std::process::Command::new("git")
        .args([
            "-c",
            "http.lowSpeedLimit=1000",
            "-c",
            "http.lowSpeedTime=30",
            "clone",
            "--quiet",
            "--depth",
            "1",
            "--",
            url,
        ])
        .arg(into.join("repo"))
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::from(log.into_parts().0))
        .spawn()
        .map_err(|error| Error::failed(format!("cannot run git: {error}"), "install git"))?;
    let deadline = Instant::now() + CLONE_TIMEOUT;
    loop {
        if let Some(status) = child.try_wait()? {
            if status.success() {
                return Ok(());
            }
            let stderr = crate::fsx::read_capped(&log_path, 1 << 20)
                .map(|bytes| String::from_utf8_lossy(&bytes[..bytes.len().min(8192)]).into_owned())
                .unwrap_or_default();
            return Err(Error::failed(
                format!("git clone {url} failed: {}", stderr.trim()),
                "check the URL and that you can clone it",
            ));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::failed(
                format!(
                    "git clone {url} took longer than {} s",
                    CLONE_TIMEOUT.as_secs()
                ),
                "",
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The plugin `name` of `market` (or, when no plugin has that name, the one plugin with a skill
/// of that name): its name, its version and the skills to install (all of the plugin's, or
/// the one named).
pub fn marketplace_plugin(market: &Marketplace, name: &str) -> Result<Plugin, Error> {
    let plugins = market
        .manifest
        .get("plugins")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut chosen = None;
    for plugin in &plugins {
        if plugin.get("name").and_then(Value::as_str) == Some(name) {
            chosen = Some((plugin.clone(), None));
        }
    }
    if chosen.is_none() {
        for plugin in &plugins {
            if let Ok(found) = plugin_skills(market, plugin)
                && found.skills.iter().any(|(skill, _)| skill == name)
            {
                chosen = Some((plugin.clone(), Some(name.to_owned())));
                break;
            }
        }
    }
    let Some((plugin, only)) = chosen else {
        let names: Vec<&str> = plugins
            .iter()
            .filter_map(|plugin| plugin.get("name").and_then(Value::as_str))
            .collect();
        return Err(Error::refused(
            format!(
                "marketplace `{}` has no plugin or skill `{name}`",
                market.name
            ),
            format!("its plugins: {}", names.join(", ")),
        ));
    };
    let mut found = plugin_skills(market, &plugin)?;
    if let Some(only) = only {
        found.skills.retain(|(skill, _)| *skill == only);
    }
    if found.skills.is_empty() {
        return Err(Error::refused(
            format!("plugin `{}` has no skills", found.name),
            "",
        ));
    }
    Ok(found)
}

/// A plugin's version and skills (`skills/<name>/SKILL.md` in its folder).
fn plugin_skills(market: &Marketplace, plugin: &Value) -> Result<Plugin, Error> {
    let name = plugin
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let source = plugin.get("source").and_then(Value::as_str).ok_or_else(|| {
        Error::refused(
            format!("plugin `{name}` is not in the marketplace's repository (its source is not a ./ path)"),
            "install it with Claude Code: /plugin install NAME@MARKETPLACE",
        )
    })?;
    let relative = source.strip_prefix("./").unwrap_or(source);
    if !safe_relative(relative) && relative != "." && !relative.is_empty() {
        return Err(Error::refused(
            format!("plugin `{name}` has source `{source}`, which leaves the marketplace"),
            "",
        ));
    }
    let dir = market.root.join(relative);
    let real_root = fs_err::canonicalize(&market.root)?;
    let real = fs_err::canonicalize(&dir)
        .map_err(|error| Error::refused(format!("plugin `{name}`: {error}"), ""))?;
    if !real.starts_with(&real_root) {
        return Err(Error::refused(
            format!("plugin `{name}` leads outside the marketplace through a symbolic link"),
            "",
        ));
    }
    let version = crate::fsx::read_text_capped(
        &dir.join(".claude-plugin/plugin.json"),
        super::MAX_MANIFEST_BYTES,
    )
    .ok()
    .and_then(|text| serde_json::from_str::<Value>(&text).ok())
    .and_then(|value| {
        value
            .get("version")
            .and_then(Value::as_str)
            .map(str::to_owned)
    })
    .or_else(|| {
        plugin
            .get("version")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let mut skills = Vec::new();
    let skills_dir = dir.join("skills");
    // Only real folders: a link (to `skills/`, or to a skill) could point anywhere on the
    // installer's machine.
    let is_folder = |path: &Path| std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir());
    if is_folder(&skills_dir) {
        for entry in fs_err::read_dir(&skills_dir)? {
            let entry = entry?;
            let skill_name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if entry.file_type()?.is_dir()
                && is_folder(&path)
                && fs_err::canonicalize(&path).is_ok_and(|real| real.starts_with(&real_root))
                && path.join("SKILL.md").is_file()
                && crate::pack::valid_skill_name(&skill_name)
            {
                skills.push((skill_name, path));
            }
        }
    } else if skills_dir.exists() {
        return Err(Error::refused(
            format!("plugin `{name}`: its skills/ is not a folder (a symbolic link?)"),
            "",
        ));
    }
    skills.sort();
    Ok(Plugin {
        name: name.to_owned(),
        version,
        skills,
    })
}

/// Refuses a skill whose SKILL.md names another skill than the one it is installed as.
fn check_name(dir: &Path, name: &str, what: &str) -> Result<(), Error> {
    let skill = crate::skill::Skill::load(&dir.join("SKILL.md")).map_err(|error| {
        Error::refused(format!("{what}: cannot read its SKILL.md: {error}"), "")
    })?;
    let written = skill
        .reading()
        .and_then(|reading| reading.doc.as_ref())
        .and_then(|doc| doc.name.as_deref())
        .and_then(|field| field.value.as_ref().ok())
        .map(|value| value.trim().to_owned());
    match written {
        Some(written) if written == name => Ok(()),
        other => Err(Error::refused(
            format!(
                "{what}: its SKILL.md is named `{}`, not `{name}`; nothing was installed",
                other.unwrap_or_default().escape_debug()
            ),
            "report it to whoever publishes it",
        )),
    }
}

/// Copies the skill in `source` (the files `skillpkg package` would pack) into `into/<name>`.
pub fn copy_skill(source: &Path, name: &str, into: &Path) -> Result<Fetched, Error> {
    let files = crate::pack::select::select(source)
        .map_err(|error| Error::refused(format!("{}: {error}", source.display()), error.hint()))?;
    check_name(source, name, &source.display().to_string())?;
    let dir = into.join(name);
    let placed: Vec<super::Placed<'_>> = files
        .iter()
        .map(|file| super::Placed {
            path: file.path.clone(),
            source: &file.source,
            executable: file.executable,
        })
        .collect();
    super::replace_folder(&dir, &placed)?;
    Ok(Fetched {
        name: name.to_owned(),
        dir,
        sha256: None,
        version: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_resolve_against_the_index() {
        let index = "https://example.com/.well-known/agent-skills/index.json";
        assert_eq!(
            resolve(index, "a/SKILL.md").unwrap(),
            "https://example.com/.well-known/agent-skills/a/SKILL.md"
        );
        assert_eq!(
            resolve(index, "/x.zip").unwrap(),
            "https://example.com/x.zip"
        );
        assert_eq!(
            resolve(index, "../../x.zip").unwrap(),
            "https://example.com/x.zip"
        );
        assert_eq!(
            resolve(index, "../../../../x.zip").unwrap(),
            "https://example.com/x.zip"
        );
        assert_eq!(
            resolve(index, "//cdn.example.com/x.zip").unwrap(),
            "https://cdn.example.com/x.zip"
        );
        assert_eq!(
            resolve(index, "http://other/x.zip").unwrap(),
            "http://other/x.zip"
        );
        assert_eq!(
            resolve(index, "./b.zip?v=1").unwrap(),
            "https://example.com/.well-known/agent-skills/b.zip?v=1"
        );
        assert_eq!(resolve(index, "file:///etc/passwd"), None);
        assert_eq!(resolve(index, "javascript:alert(1)"), None);
    }

    #[test]
    fn legacy_paths_must_be_plain() {
        assert!(safe_relative("references/a.md"));
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a//b",
            "a/./b",
            "a\\b",
            "a?b",
            "c:/x",
        ] {
            assert!(!safe_relative(bad), "{bad}");
        }
    }
}
