//! Reading a tar archive (the discovery index's other archive format, served as `.tar.gz`)
//! into a new folder, as warily as [`super::extract`] reads zips.
//!
//! Only what a skill needs is accepted: regular files and folders, named by the ustar `name`
//! and `prefix` fields, a GNU long name (`L`) or a pax `path` record (`x`). Links, devices and
//! FIFOs are refused; so are absolute paths, `..`, backslashes, a name given twice, more files
//! or bytes than the limits allow, and a header whose checksum is wrong. Nothing is written
//! outside the folder, which is made here and removed again when the archive is refused. The
//! reading is one pass over 512-byte blocks, never seeking, never holding more than one file's
//! header (or a capped long name) in memory.

use std::collections::HashSet;
use std::io::{self, Read};
use std::path::Path;

use super::extract::Limits;

/// The largest pax header or GNU long name read.
const MAX_META: u64 = 64 * 1024;
const BLOCK: usize = 512;

/// Why a tar archive was refused.
#[derive(Debug, thiserror::Error)]
pub enum TarError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Io(#[from] io::Error),
}

fn invalid(message: impl Into<String>) -> TarError {
    TarError::Invalid(message.into())
}

/// Unpacks the tar stream `reader` into `dest`, which must not exist yet. Returns the paths
/// written (`/`-separated, relative to `dest`). On any error `dest` is removed.
pub fn unpack(reader: impl Read, dest: &Path, limits: &Limits) -> Result<Vec<String>, TarError> {
    fs_err::create_dir(dest)?;
    let result = unpack_into(reader, dest, limits);
    if result.is_err() {
        let _ = fs_err::remove_dir_all(dest);
    }
    result
}

/// Reads one whole block; `false` at the end of the stream (on a block boundary).
fn read_block(reader: &mut impl Read, block: &mut [u8; BLOCK]) -> Result<bool, TarError> {
    let mut filled = 0;
    while filled < BLOCK {
        let n = reader.read(&mut block[filled..])?;
        if n == 0 {
            return if filled == 0 {
                Ok(false)
            } else {
                Err(invalid("the archive ends in the middle of a block"))
            };
        }
        filled += n;
    }
    Ok(true)
}

/// An octal number field (NUL- or space-terminated).
fn octal(field: &[u8], what: &str) -> Result<u64, TarError> {
    if field.first().is_some_and(|byte| byte & 0x80 != 0) {
        return Err(invalid(format!(
            "the {what} is in base-256, larger than any skill file"
        )));
    }
    let text: Vec<u8> = field
        .iter()
        .copied()
        .skip_while(|byte| *byte == b' ')
        .take_while(|byte| *byte != 0 && *byte != b' ')
        .collect();
    if text.is_empty() {
        return Ok(0);
    }
    let text =
        std::str::from_utf8(&text).map_err(|_| invalid(format!("the {what} is not a number")))?;
    u64::from_str_radix(text, 8)
        .map_err(|_| invalid(format!("the {what} `{}` is not octal", text.escape_debug())))
}

/// A NUL-terminated text field.
fn text(field: &[u8]) -> Result<String, TarError> {
    let end = field
        .iter()
        .position(|byte| *byte == 0)
        .unwrap_or(field.len());
    String::from_utf8(field[..end].to_vec()).map_err(|_| invalid("a name is not UTF-8"))
}

/// Reads an entry's data (at most [`MAX_META`] bytes) and its padding.
fn read_meta(reader: &mut impl Read, size: u64) -> Result<Vec<u8>, TarError> {
    if size > MAX_META {
        return Err(invalid("a long name or pax header is larger than 64 KiB"));
    }
    let mut data = Vec::new();
    reader.take(size).read_to_end(&mut data)?;
    if data.len() as u64 != size {
        return Err(invalid("the archive ends in the middle of an entry"));
    }
    skip_padding(reader, size)?;
    Ok(data)
}

fn skip_padding(reader: &mut impl Read, size: u64) -> Result<(), TarError> {
    let padding = (BLOCK as u64 - size % BLOCK as u64) % BLOCK as u64;
    let skipped = io::copy(&mut reader.take(padding), &mut io::sink())?;
    if skipped != padding {
        return Err(invalid("the archive ends in the middle of an entry"));
    }
    Ok(())
}

/// The `path` of a pax extended header's records (`LEN key=value\n`), if it has one.
fn pax_path(data: &[u8]) -> Result<Option<String>, TarError> {
    let mut rest = data;
    let mut path = None;
    while !rest.is_empty() {
        let space = rest
            .iter()
            .position(|byte| *byte == b' ')
            .ok_or_else(|| invalid("a pax record has no length"))?;
        let len: usize = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|len| len.parse().ok())
            .filter(|len| *len > space + 1 && *len <= rest.len())
            .ok_or_else(|| invalid("a pax record's length is wrong"))?;
        let record = &rest[space + 1..len];
        let record = record
            .strip_suffix(b"\n")
            .ok_or_else(|| invalid("a pax record does not end its line"))?;
        if let Some(value) = record.strip_prefix(b"path=") {
            path = Some(
                String::from_utf8(value.to_vec())
                    .map_err(|_| invalid("a pax path is not UTF-8"))?,
            );
        }
        rest = &rest[len..];
    }
    Ok(path)
}

/// Refuses a header whose checksum is wrong.
fn check_sum(block: &[u8; BLOCK]) -> Result<(), TarError> {
    let stored = octal(&block[148..156], "header checksum")?;
    let sum: u64 = block
        .iter()
        .enumerate()
        .map(|(at, byte)| {
            if (148..156).contains(&at) {
                u64::from(b' ')
            } else {
                u64::from(*byte)
            }
        })
        .sum();
    if sum == stored {
        Ok(())
    } else {
        Err(invalid(
            "a header's checksum is wrong: the archive is damaged",
        ))
    }
}

/// The name a ustar header gives: its `prefix` and `name` fields.
fn header_name(block: &[u8; BLOCK]) -> Result<String, TarError> {
    let name = text(&block[..100])?;
    let prefix = if &block[257..262] == b"ustar" {
        text(&block[345..500])?
    } else {
        String::new()
    };
    Ok(if prefix.is_empty() {
        name
    } else {
        format!("{prefix}/{name}")
    })
}

/// `path` made relative and checked: no absolute path, no `..`, no backslash, no NUL or
/// control character, no drive letter; `./` parts dropped. `None` for the archive's root.
fn normalise(path: &str) -> Result<Option<String>, TarError> {
    let refuse = || {
        invalid(format!(
            "the entry `{}` is not a plain relative path",
            path.escape_debug()
        ))
    };
    if path.starts_with('/') || path.contains(['\\', ':']) || path.chars().any(char::is_control) {
        return Err(refuse());
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(refuse()),
            other => parts.push(other),
        }
    }
    Ok((!parts.is_empty()).then(|| parts.join("/")))
}

fn unpack_into(
    mut reader: impl Read,
    dest: &Path,
    limits: &Limits,
) -> Result<Vec<String>, TarError> {
    let mut files = Vec::new();
    let mut seen = HashSet::new();
    let mut total = 0u64;
    let mut next_name: Option<String> = None;
    let mut headers = 0usize;
    let mut block = [0u8; BLOCK];
    while read_block(&mut reader, &mut block)? {
        if block.iter().all(|byte| *byte == 0) {
            break;
        }
        headers += 1;
        if headers > limits.max_files.saturating_mul(3).saturating_add(16) {
            return Err(invalid(format!("more than {} files", limits.max_files)));
        }
        check_sum(&block)?;
        let size = octal(&block[124..136], "size")?;
        let kind = block[156];
        match kind {
            b'x' => {
                if let Some(path) = pax_path(&read_meta(&mut reader, size)?)? {
                    next_name = Some(path);
                }
                continue;
            }
            b'g' => {
                read_meta(&mut reader, size)?;
                continue;
            }
            b'L' => {
                let data = read_meta(&mut reader, size)?;
                next_name = Some(text(&data)?);
                continue;
            }
            b'0' | 0 | b'7' | b'5' => {}
            b'1' | b'2' | b'K' => {
                return Err(invalid("the archive holds a link; skills hold files only"));
            }
            other => {
                return Err(invalid(format!(
                    "the archive holds a special file (type `{}`); skills hold files only",
                    char::from(other).escape_debug()
                )));
            }
        }
        let name = match next_name.take() {
            Some(name) => name,
            None => header_name(&block)?,
        };
        let Some(path) = normalise(&name)? else {
            skip_data(&mut reader, size)?;
            continue;
        };
        if kind == b'5' {
            fs_err::create_dir_all(dest.join(&path))?;
            skip_data(&mut reader, size)?;
            continue;
        }
        if !seen.insert(path.clone()) {
            return Err(invalid(format!(
                "`{}` is in the archive twice",
                path.escape_debug()
            )));
        }
        if seen.len() > limits.max_files {
            return Err(invalid(format!("more than {} files", limits.max_files)));
        }
        total = total.saturating_add(size);
        if total > limits.max_bytes {
            return Err(invalid(format!(
                "more than {} when unpacked",
                crate::fsx::size(limits.max_bytes)
            )));
        }
        let target = dest.join(&path);
        fs_err::create_dir_all(crate::fsx::parent_or_dot(&target))?;
        let mut file = fs_err::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)?;
        let copied = io::copy(&mut (&mut reader).take(size), &mut file)?;
        if copied != size {
            return Err(invalid("the archive ends in the middle of a file"));
        }
        drop(file);
        skip_padding(&mut reader, size)?;
        let executable = octal(&block[100..108], "mode")? & 0o111 != 0;
        crate::fsx::set_mode(&target, if executable { 0o755 } else { 0o644 })?;
        files.push(path);
    }
    Ok(files)
}

fn skip_data(reader: &mut impl Read, size: u64) -> Result<(), TarError> {
    if size > 0 {
        let skipped = io::copy(&mut reader.take(size), &mut io::sink())?;
        if skipped != size {
            return Err(invalid("the archive ends in the middle of an entry"));
        }
        skip_padding(reader, size)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ustar header for `name` of `kind` with `data`, then the data padded.
    fn entry(name: &str, kind: u8, data: &[u8], mode: u32) -> Vec<u8> {
        let mut header = [0u8; BLOCK];
        header[..name.len()].copy_from_slice(name.as_bytes());
        header[100..107].copy_from_slice(format!("{mode:07o}").as_bytes());
        header[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
        header[156] = kind;
        header[257..263].copy_from_slice(b"ustar\0");
        header[148..156].copy_from_slice(b"        ");
        let sum: u32 = header.iter().map(|byte| u32::from(*byte)).sum();
        header[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        let mut out = header.to_vec();
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(BLOCK) * BLOCK, 0);
        out
    }

    fn archive(entries: &[Vec<u8>]) -> Vec<u8> {
        let mut out: Vec<u8> = entries.concat();
        out.extend_from_slice(&[0u8; 1024]);
        out
    }

    #[test]
    fn files_folders_and_long_names_are_unpacked() {
        let work = tempfile::tempdir().unwrap();
        let long = format!("references/{}.md", "a".repeat(120));
        let bytes = archive(&[
            entry("./", b'5', b"", 0o755),
            entry("./SKILL.md", b'0', b"---\nname: x\n---\n", 0o644),
            entry("scripts/run.sh", b'0', b"#!/bin/sh\n", 0o755),
            entry("././@LongLink", b'L', long.as_bytes(), 0o644),
            entry("truncated", b'0', b"long", 0o644),
        ]);
        let dest = work.path().join("out");
        let files = unpack(&bytes[..], &dest, &Limits::default()).unwrap();
        assert_eq!(files, ["SKILL.md", "scripts/run.sh", long.as_str()]);
        assert_eq!(fs_err::read_to_string(dest.join(&long)).unwrap(), "long");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = fs_err::metadata(dest.join("scripts/run.sh"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o755);
        }
    }

    #[test]
    fn hostile_archives_are_refused_and_leave_nothing() {
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                archive(&[entry("../evil", b'0', b"x", 0o644)]),
                "plain relative",
            ),
            (
                archive(&[entry("/etc/passwd", b'0', b"x", 0o644)]),
                "plain relative",
            ),
            (archive(&[entry("link", b'2', b"", 0o644)]), "link"),
            (archive(&[entry("fifo", b'6', b"", 0o644)]), "special file"),
            (
                archive(&[entry("a", b'0', b"x", 0o644), entry("a", b'0', b"y", 0o644)]),
                "twice",
            ),
            (
                entry("a", b'0', b"xyz", 0o644)[..600].to_vec(),
                "ends in the middle",
            ),
        ];
        for (bytes, expected) in cases {
            let work = tempfile::tempdir().unwrap();
            let dest = work.path().join("out");
            let error = unpack(&bytes[..], &dest, &Limits::default()).unwrap_err();
            assert!(error.to_string().contains(expected), "{error}");
            assert!(!dest.exists());
            assert_eq!(fs_err::read_dir(work.path()).unwrap().count(), 0);
        }
        let mut damaged = archive(&[entry("a", b'0', b"x", 0o644)]);
        damaged[0] = b'b';
        let work = tempfile::tempdir().unwrap();
        let error = unpack(&damaged[..], &work.path().join("out"), &Limits::default()).unwrap_err();
        assert!(error.to_string().contains("checksum"), "{error}");
        let limits = Limits {
            max_files: 1,
            ..Limits::default()
        };
        let two = archive(&[entry("a", b'0', b"x", 0o644), entry("b", b'0', b"y", 0o644)]);
        let error = unpack(&two[..], &work.path().join("out2"), &limits).unwrap_err();
        assert!(error.to_string().contains("more than 1 files"), "{error}");
    }

    #[test]
    fn a_pax_path_names_the_next_file() {
        let record = "path=deep/name.md\n";
        let pax = format!("{} {record}", record.len() + 3);
        let bytes = archive(&[
            entry("PaxHeader", b'x', pax.as_bytes(), 0o644),
            entry("short", b'0', b"x", 0o644),
        ]);
        let work = tempfile::tempdir().unwrap();
        let files = unpack(&bytes[..], &work.path().join("out"), &Limits::default()).unwrap();
        assert_eq!(files, ["deep/name.md"]);
    }
}
