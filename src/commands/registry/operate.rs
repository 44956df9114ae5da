//! Running a registry on more than one machine: where its stores are (`--data`, `--database`,
//! `--blobs`, `--config`), `registry migrate`, `registry gc`, and moving a registry between
//! stores with `registry export` and `registry import`.

use std::collections::HashSet;
use std::io::{BufRead as _, Read as _, Write as _};
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::commands::{ExitStatus, UserError};
use crate::output::Printer;
use crate::registry::store::{
    BlobStore, Blobs, Database, FsBlobs, Location, OnOpen, Record, StoreError, StoredBlob,
    is_sha256,
};

/// Where a registry's stores are: flags, then a `--config` file, then the embedded defaults.
#[derive(Clone, Debug, Default, clap::Args)]
#[expect(
    clippy::doc_markdown,
    reason = "`--help` text, where backticks would show"
)]
pub struct StoreArgs {
    /// The registry's folder: the embedded SQLite database and archives (unless --database
    /// and --blobs say otherwise) and unfinished uploads [default: registry-data]
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// The metadata database: postgres://USER:PASSWORD@HOST:PORT/DB (shared by several
    /// servers), or sqlite:PATH [default: DATA/registry.db]. A password is better kept in
    /// --config than on the command line
    #[arg(long, value_name = "URL")]
    database: Option<String>,
    /// Where archives are kept: s3://BUCKET/PREFIX (endpoint, region and keys from the AWS_*
    /// environment variables; AWS_ENDPOINT_URL for a self-hosted server, addressed path-style),
    /// or a folder [default: DATA/blobs]
    #[arg(long, value_name = "URL")]
    blobs: Option<String>,
    /// A TOML file with any of `data`, `database`, `blobs` and `pool_size` (connections each
    /// server keeps to PostgreSQL, default twice its cores); flags win over it
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// The `--config` file.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    data: Option<PathBuf>,
    database: Option<String>,
    blobs: Option<String>,
    pool_size: Option<usize>,
}

/// The largest `--config` file read.
const MAX_CONFIG_BYTES: u64 = 64 * 1024;

impl StoreArgs {
    /// The stores these flags (and `--config`) name.
    pub fn location(&self) -> anyhow::Result<Location> {
        let file = match &self.config {
            Some(path) => read_config(path)?,
            None => ConfigFile::default(),
        };
        let data = self
            .data
            .clone()
            .or(file.data)
            .unwrap_or_else(|| PathBuf::from("registry-data"));
        let pool_size = file
            .pool_size
            .unwrap_or_else(crate::registry::store::default_pool_size);
        if pool_size == 0 || pool_size > 1000 {
            return Err(UserError {
                message: format!("pool_size = {pool_size} is not between 1 and 1000"),
                hints: vec![],
            }
            .into());
        }
        Ok(Location {
            data,
            database: self.database.clone().or(file.database),
            blobs: self.blobs.clone().or(file.blobs),
            pool_size,
        })
    }
}

fn read_config(path: &Path) -> anyhow::Result<ConfigFile> {
    let bytes = crate::fsx::read_capped(path, MAX_CONFIG_BYTES).map_err(|error| UserError {
        message: format!("cannot read {}: {error}", path.display()),
        hints: vec!["--config takes a TOML file this user can read".into()],
    })?;
    let text = String::from_utf8(bytes).map_err(|_| UserError {
        message: format!("{} is not UTF-8 text", path.display()),
        hints: vec![],
    })?;
    toml::from_str(&text).map_err(|error| {
        UserError {
            message: format!("{}: {}", path.display(), error.message()),
            hints: vec![
                "it takes `data`, `database`, `blobs` and `pool_size`, such as database = \"postgres://skillpkg@db/skillpkg\"".into(),
            ],
        }
        .into()
    })
}

/// A store failure as the user's problem: what failed, and where to look.
fn store_error(location: &Location, error: &StoreError) -> anyhow::Error {
    UserError {
        message: format!(
            "the registry's stores ({}): {error}",
            location.database_shown()
        ),
        hints: vec!["check --database, --blobs and --data (and for S3 the AWS_* variables)".into()],
    }
    .into()
}

/// The stores of a registry that must already exist, at the schema this build knows: reading
/// commands (`gc`, `export`) never create an empty registry from a mistyped path, nor
/// upgrade a database behind its servers' backs.
fn open_existing(location: &Location) -> anyhow::Result<crate::registry::store::Stores> {
    if let Database::Sqlite(path) = location.database()
        && !path.is_file()
    {
        return Err(UserError {
            message: format!("there is no registry database at {}", path.display()),
            hints: vec!["pass the registry's --data (or --database, or --config)".into()],
        }
        .into());
    }
    if let Blobs::Folder(path) = location.blobs()
        && !path.is_dir()
    {
        return Err(UserError {
            message: format!("there is no archive folder at {}", path.display()),
            hints: vec!["pass the registry's --data (or --blobs, or --config)".into()],
        }
        .into());
    }
    location
        .open(OnOpen::Require)
        .map_err(|error| store_error(location, &error))
}

/// `registry migrate`.
pub(super) fn migrate(location: &Location, printer: Printer) -> anyhow::Result<ExitStatus> {
    let meta = location
        .open_meta(OnOpen::AsIs)
        .map_err(|error| store_error(location, &error))?;
    let applied = meta
        .migrate()
        .map_err(|error| store_error(location, &error))?;
    let (done, _) = meta
        .schema()
        .map_err(|error| store_error(location, &error))?;
    let mut err = printer.status();
    if applied == 0 {
        writeln!(
            err,
            "{} is up to date (schema {done}).",
            location.database_shown()
        )?;
    } else {
        writeln!(
            err,
            "Migrated {} to schema {done} ({applied} {} applied).",
            location.database_shown(),
            crate::output::plural(applied, "migration", "migrations")
        )?;
    }
    err.flush()?;
    Ok(ExitStatus::Success)
}

#[derive(Debug, clap::Args)]
pub struct GcArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// Remove the unreferenced archives (without it, only list them)
    #[arg(long)]
    delete: bool,
    /// Leave archives younger than this alone: a publish in progress stores its archive
    /// before its version (12h, 90m, 30s)
    #[arg(long, value_name = "AGE", default_value = "1h")]
    min_age: String,
    /// Output format: human, or json
    #[arg(long, value_enum, default_value_t = super::admin::ListFormat::Human)]
    format: super::admin::ListFormat,
}

/// Seconds in `text`: a number and s, m, h or d.
fn seconds(text: &str) -> Option<i64> {
    let (number, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit())?);
    let number: i64 = number.parse().ok()?;
    let unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    number.checked_mul(unit)
}

/// `registry gc`.
pub(super) fn gc(args: &GcArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let location = args.store.location()?;
    let min_age = seconds(&args.min_age).ok_or_else(|| UserError {
        message: format!("--min-age {} is not an age", args.min_age),
        hints: vec!["give a number and a unit: 30s, 90m, 12h, 2d".into()],
    })?;
    let stores = open_existing(&location)?;
    // Blobs are listed before the versions are read: an archive stored after the listing is
    // not looked at, and one whose version commits after the read is young (--min-age).
    let mut found = Vec::new();
    stores
        .blobs
        .list(&mut |blob| {
            found.push(blob);
            Ok(())
        })
        .map_err(|error| store_error(&location, &error))?;
    let used = stores
        .meta
        .checksums()
        .map_err(|error| store_error(&location, &error))?;
    let now = crate::dates::now();
    let orphans: Vec<StoredBlob> = found
        .iter()
        .filter(|blob| !used.contains(&blob.sha256) && now - blob.modified >= min_age)
        .cloned()
        .collect();
    let young = found
        .iter()
        .filter(|blob| !used.contains(&blob.sha256) && now - blob.modified < min_age)
        .count();
    if args.delete {
        // Read the references again just before deleting: a version committed since the first
        // read keeps its archive (and a publish renews its archive's time, so --min-age also
        // covers one that commits after this read).
        let used = stores
            .meta
            .checksums()
            .map_err(|error| store_error(&location, &error))?;
        for blob in orphans.iter().filter(|blob| !used.contains(&blob.sha256)) {
            stores
                .blobs
                .delete(&blob.sha256)
                .map_err(|error| store_error(&location, &error))?;
        }
    }
    let bytes: u64 = orphans.iter().map(|blob| blob.size).sum();
    let mut out = printer.stdout();
    if args.format == super::admin::ListFormat::Json {
        let report = serde_json::json!({
            "archives": found.len(),
            "referenced": found.len() - orphans.len() - young,
            "unreferenced": orphans.iter().map(|blob| serde_json::json!({
                "sha256": blob.sha256, "size": blob.size, "stored_at": blob.modified,
            })).collect::<Vec<_>>(),
            "too_young": young,
            "deleted": args.delete,
        });
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        for blob in &orphans {
            writeln!(out, "{}  {} bytes", blob.sha256, blob.size)?;
        }
    }
    out.flush()?;
    let mut err = printer.status();
    let what = format!(
        "{} unreferenced {} ({bytes} bytes) of {} stored",
        orphans.len(),
        crate::output::plural(orphans.len(), "archive", "archives"),
        found.len()
    );
    if args.delete {
        writeln!(err, "Removed {what}.")?;
    } else if orphans.is_empty() {
        writeln!(err, "Nothing to remove: {what}.")?;
    } else {
        writeln!(
            err,
            "Would remove {what}; run with --delete to remove them."
        )?;
    }
    if young > 0 {
        writeln!(
            err,
            "Left {young} unreferenced {} younger than --min-age {} alone: a publish may be storing them.",
            crate::output::plural(young, "archive", "archives"),
            args.min_age
        )?;
    }
    err.flush()?;
    Ok(ExitStatus::Success)
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// The folder to write: `registry.jsonl` and `blobs/`; it must not exist, or be empty
    #[arg(value_name = "FOLDER")]
    folder: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// A folder written by `registry export`
    #[arg(value_name = "FOLDER")]
    folder: PathBuf,
}

/// The first line of `registry.jsonl`.
const EXPORT_HEADER: &str = r#"{"skillpkg_registry_export":1}"#;
/// The longest line of `registry.jsonl`: a version, with its SKILL.md (at most 1 MiB, which JSON
/// escaping can make six times longer) and what its page shows about its files.
const MAX_EXPORT_LINE: u64 = 64 * 1024 * 1024;

/// Copies the blob `sha256` from `from` to `to`, through a temporary file in `tmp` whose
/// SHA-256 must be `sha256`: a corrupt archive is never copied.
fn copy_blob(
    from: &dyn BlobStore,
    to: &dyn BlobStore,
    tmp: &Path,
    sha256: &str,
    size: i64,
) -> anyhow::Result<u64> {
    let size = u64::try_from(size).unwrap_or(0);
    let blob = from
        .get(sha256)?
        .ok_or_else(|| anyhow::anyhow!("the archive {sha256} is missing"))?;
    if blob.size != size {
        anyhow::bail!(
            "the archive {sha256} has {} bytes where its version says {size}",
            blob.size
        );
    }
    // Never more than the size on record, whatever the store sends.
    let mut reader = std::io::Read::take(blob.into_file(tmp)?, size + 1);
    let mut copy = tempfile::NamedTempFile::new_in(tmp)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 64 * 1024];
    let mut copied = 0u64;
    loop {
        let read = reader.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        copy.write_all(&buffer[..read])?;
        copied += read as u64;
    }
    let actual = crate::pack::archive::hex(&hasher.finalize());
    if actual != sha256 || copied != size {
        anyhow::bail!("the archive {sha256} is corrupt: its bytes hash to {actual}");
    }
    copy.flush()?;
    let (_, path) = copy.keep()?;
    let stored = to.put(&path, sha256);
    let _ = fs_err::remove_file(&path);
    stored?;
    Ok(copied)
}

/// `registry export`.
pub(super) fn export(args: &ExportArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let location = args.store.location()?;
    let folder = &args.folder;
    if folder.exists()
        && fs_err::read_dir(folder).map_or(true, |mut entries| entries.next().is_some())
    {
        return Err(UserError {
            message: format!("{} exists and is not an empty folder", folder.display()),
            hints: vec!["export into a new folder".into()],
        }
        .into());
    }
    let stores = open_existing(&location)?;
    fs_err::create_dir_all(folder.join("blobs"))?;
    let tmp = tempfile::tempdir_in(folder)?;
    let target = FsBlobs::new(folder.join("blobs"));
    let mut lines = tempfile::NamedTempFile::new_in(folder)?;
    writeln!(lines, "{EXPORT_HEADER}")?;
    let (mut records, mut archives, mut bytes) = (0usize, 0usize, 0u64);
    let mut copied = HashSet::new();
    let mut failure: Option<anyhow::Error> = None;
    stores
        .meta
        .export(&mut |record| {
            let result = (|| -> anyhow::Result<()> {
                if let Record::Version(version) = &record
                    && copied.insert(version.checksum.clone())
                {
                    bytes += copy_blob(
                        stores.blobs.as_ref(),
                        &target,
                        tmp.path(),
                        &version.checksum,
                        version.size,
                    )?;
                    archives += 1;
                }
                serde_json::to_writer(&mut lines, &record)?;
                writeln!(lines)?;
                records += 1;
                Ok(())
            })();
            result.map_err(|error| {
                let message = error.to_string();
                failure = Some(error);
                StoreError::Remote(message)
            })
        })
        .map_err(|error| {
            failure
                .take()
                .unwrap_or_else(|| store_error(&location, &error))
        })?;
    drop(tmp);
    lines.as_file().sync_all()?;
    lines.persist(folder.join("registry.jsonl"))?;
    let mut err = printer.status();
    writeln!(
        err,
        "Exported {records} {} and {archives} {} ({bytes} bytes, every checksum verified) from {} to {}.",
        crate::output::plural(records, "record", "records"),
        crate::output::plural(archives, "archive", "archives"),
        location.database_shown(),
        folder.display()
    )?;
    err.flush()?;
    Ok(ExitStatus::Success)
}

/// One line of an export, read and checked: what pass 1 and pass 2 of an import share.
struct ExportReader {
    path: PathBuf,
    reader: std::io::BufReader<fs_err::File>,
    line: String,
    number: usize,
}

impl ExportReader {
    fn open(folder: &Path) -> anyhow::Result<Self> {
        let path = folder.join("registry.jsonl");
        let metadata = fs_err::symlink_metadata(&path).map_err(|error| UserError {
            message: format!("cannot read {}: {error}", path.display()),
            hints: vec!["import takes a folder written by `skillpkg registry export`".into()],
        })?;
        if !metadata.is_file() {
            return Err(UserError {
                message: format!("{} is not a regular file", path.display()),
                hints: vec!["import takes a folder written by `skillpkg registry export`".into()],
            }
            .into());
        }
        let mut export = Self {
            reader: std::io::BufReader::new(fs_err::File::open(&path)?),
            path,
            line: String::new(),
            number: 0,
        };
        match export.next_line()? {
            Some(line) if line.trim_end() == EXPORT_HEADER => Ok(export),
            _ => Err(export.bad("not a skillpkg registry export")),
        }
    }

    fn bad(&self, what: &str) -> anyhow::Error {
        UserError {
            message: format!("{}:{}: {what}", self.path.display(), self.number),
            hints: vec![
                "import takes a folder written by `skillpkg registry export`, unchanged".into(),
            ],
        }
        .into()
    }

    fn next_line(&mut self) -> anyhow::Result<Option<&str>> {
        let mut bytes = Vec::new();
        self.number += 1;
        let read = (&mut self.reader)
            .take(MAX_EXPORT_LINE)
            .read_until(b'\n', &mut bytes)?;
        if read == 0 {
            return Ok(None);
        }
        if bytes.last() != Some(&b'\n') {
            return Err(self.bad("the line is cut short or too long"));
        }
        self.line = String::from_utf8(bytes).map_err(|_| self.bad("not UTF-8"))?;
        Ok(Some(&self.line))
    }

    fn next_record(&mut self) -> anyhow::Result<Option<Record>> {
        let Some(line) = self.next_line()? else {
            return Ok(None);
        };
        let record = serde_json::from_str(line);
        record
            .map(Some)
            .map_err(|error| self.bad(&error.to_string()))
    }
}

/// What is wrong with `record` before anything is written, given the users and skills (by
/// lowercase name) and versions seen on earlier lines; `None` when it can be imported.
fn record_problem(
    record: &Record,
    users: &mut HashSet<String>,
    skills: &mut HashSet<String>,
    versions: &mut HashSet<(String, String)>,
) -> Option<String> {
    let user_ok = |name: &str| !name.trim().is_empty() && !name.chars().any(char::is_control);
    match record {
        Record::User { name } => {
            if !user_ok(name) || !users.insert(name.clone()) {
                return Some(format!("`{name}` is not a new user name"));
            }
        }
        Record::Token { user, hash, .. } => {
            if !users.contains(user) {
                return Some(format!(
                    "the token's user `{user}` is not on an earlier line"
                ));
            }
            if !is_sha256(hash) {
                return Some("a token's hash must be 64 lowercase hex digits".into());
            }
        }
        Record::Skill { name, owners, .. } => {
            if let Some(problem) = crate::registry::api::name_problem(name) {
                return Some(problem);
            }
            if !skills.insert(name.to_lowercase()) {
                return Some(format!("the skill `{name}` is on an earlier line"));
            }
            if owners.is_empty() || owners.iter().any(|owner| !users.contains(owner)) {
                return Some(format!(
                    "the owners of `{name}` must be users on earlier lines"
                ));
            }
        }
        Record::Version(version) => {
            if !skills.contains(&version.skill.to_lowercase()) {
                return Some(format!(
                    "the skill `{}` is not on an earlier line",
                    version.skill
                ));
            }
            if let Err(problem) = crate::registry::api::parse_version(&version.version) {
                return Some(problem);
            }
            if !versions.insert((version.skill.to_lowercase(), version.version.clone())) {
                return Some(format!(
                    "{}@{} is on an earlier line",
                    version.skill, version.version
                ));
            }
            if !is_sha256(&version.checksum)
                || version.size < 0
                || !users.contains(&version.publisher)
            {
                return Some(format!(
                    "{}@{} needs a SHA-256 checksum, a size and a publisher on an earlier line",
                    version.skill, version.version
                ));
            }
        }
    }
    None
}

/// `registry import`: two passes over the export. The first checks every line and copies
/// every archive (each verified against its checksum and size) before any record is written,
/// so a bad export changes nothing but unreferenced archives (`registry gc` removes them); the
/// second writes the records.
pub(super) fn import(args: &ImportArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let location = args.store.location()?;
    let folder = &args.folder;
    let mut export = ExportReader::open(folder)?;
    let stores = location
        .open(OnOpen::Migrate)
        .map_err(|error| store_error(&location, &error))?;
    if !stores
        .meta
        .is_empty()
        .map_err(|error| store_error(&location, &error))?
    {
        return Err(UserError {
            message: format!(
                "{} already holds users or skills: import only into an empty registry",
                location.database_shown()
            ),
            hints: vec![
                "import into a new database; versions are immutable and never merged".into(),
            ],
        }
        .into());
    }
    let source = FsBlobs::new(folder.join("blobs"));
    fs_err::create_dir_all(&location.data)?;
    let tmp = tempfile::tempdir_in(&location.data)?;
    let (mut users, mut skills, mut versions) = (HashSet::new(), HashSet::new(), HashSet::new());
    let mut archives = HashSet::new();
    while let Some(record) = export.next_record()? {
        if let Some(problem) = record_problem(&record, &mut users, &mut skills, &mut versions) {
            return Err(export.bad(&problem));
        }
        if let Record::Version(version) = &record
            && archives.insert(version.checksum.clone())
        {
            copy_blob(
                &source,
                stores.blobs.as_ref(),
                tmp.path(),
                &version.checksum,
                version.size,
            )
            .map_err(|error| export.bad(&error.to_string()))?;
        }
    }
    drop(tmp);
    let mut export = ExportReader::open(folder)?;
    let mut records = 0usize;
    while let Some(record) = export.next_record()? {
        stores.meta.import(&record).map_err(|error| UserError {
            message: format!("{}:{}: {error}", export.path.display(), export.number),
            hints: vec![format!(
                "the records before this line are in {}: import again into a new, empty database",
                location.database_shown()
            )],
        })?;
        records += 1;
    }
    let mut err = printer.status();
    writeln!(
        err,
        "Imported {records} {} and {} {} (every checksum verified) into {}.",
        crate::output::plural(records, "record", "records"),
        archives.len(),
        crate::output::plural(archives.len(), "archive", "archives"),
        location.database_shown()
    )?;
    err.flush()?;
    Ok(ExitStatus::Success)
}
