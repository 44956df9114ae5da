//! The zip container, checked record by record before anything is extracted.
//!
//! A zip archive describes its entries twice: a local header in front of each entry's data, and
//! a record in the central directory at the end. Readers (the `zip` crate among them) take the
//! central directory's word, keep one entry per name, and read data wherever a record points.
//! A hostile archive exploits each of those: two records with one name (the second `SKILL.md`
//! wins, and the entry count that would reveal it is skipped for zip64), a local header named
//! `../../x` behind a harmless central name (what another tool extracts), more records than the
//! end record declares, or records that point into each other's data so that a small archive
//! expands without limit. [`audit`] walks the central directory itself and refuses all of these,
//! so the reader afterwards sees exactly one record per entry, each with its own bytes.

use std::io::{self, Read, Seek, SeekFrom};

/// One central-directory record, as checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The name, as raw bytes.
    pub name: Vec<u8>,
    /// Where its local header starts.
    pub offset: u64,
    pub compressed: u64,
    /// The uncompressed size the record declares; extraction holds the entry to it.
    pub size: u64,
    pub method: u16,
    pub flags: u16,
}

/// Why the container was refused.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("{0}")]
    Malformed(String),
    #[error("the archive has `{0}` twice")]
    Duplicate(String),
    #[error(
        "entry `{central}` has the local name `{local}`; an archive whose two names differ is refused"
    )]
    NameMismatch { central: String, local: String },
    #[error(
        "entries `{0}` and `{1}` share bytes; an archive whose entries overlap is refused (a zip bomb?)"
    )]
    Overlap(String, String),
    #[error(transparent)]
    Io(#[from] io::Error),
}

const EOCD: u32 = 0x0605_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;
const ZIP64_EOCD: u32 = 0x0606_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;
/// The end record's fixed part, and the most a comment adds to it.
const EOCD_LEN: u64 = 22;
const MAX_COMMENT: u64 = 0xFFFF;
/// A central record's fixed part: every record takes at least this much.
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;

fn malformed(what: impl Into<String>) -> AuditError {
    AuditError::Malformed(what.into())
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

fn read_at<R: Read + Seek>(file: &mut R, at: u64, len: usize) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(at))?;
    let mut buffer = vec![0; len];
    file.read_exact(&mut buffer)?;
    Ok(buffer)
}

/// Where the central directory is and how many records it declares.
struct Directory {
    offset: u64,
    size: u64,
    entries: u64,
    /// Where the end records start: the central directory must end before.
    end: u64,
}

/// Finds the end of central directory record (the last one whose comment reaches exactly to the
/// end of the file) and, when it defers to zip64, the zip64 record.
fn directory<R: Read + Seek>(file: &mut R, len: u64) -> Result<Directory, AuditError> {
    if len < EOCD_LEN {
        return Err(malformed("it is too short to be a zip archive"));
    }
    let tail_len = len.min(EOCD_LEN + MAX_COMMENT);
    let tail_start = len - tail_len;
    let tail = read_at(file, tail_start, usize::try_from(tail_len).unwrap_or(0))?;
    let found = (0..=tail.len() - 22).rev().find(|&at| {
        u32_at(&tail, at) == Some(EOCD)
            && u16_at(&tail, at + 20).map(|comment| at + 22 + usize::from(comment))
                == Some(tail.len())
    });
    let Some(at) = found else {
        return Err(malformed("it has no end of central directory record"));
    };
    // Readers that search back from the end and forgive a comment of the wrong length would
    // take an end record inside this one's comment for the real one: two readers, two archives.
    if tail[at + 22..]
        .windows(4)
        .any(|window| window == EOCD.to_le_bytes())
    {
        return Err(malformed(
            "its end of central directory record is followed by another one in its comment",
        ));
    }
    let field16 = |offset| u16_at(&tail, at + offset).unwrap_or(0);
    let field32 = |offset| u32_at(&tail, at + offset).unwrap_or(0);
    let eocd_start = tail_start + at as u64;
    let (disk, cd_disk) = (field16(4), field16(6));
    let (on_disk, entries) = (field16(8), field16(10));
    let (size, offset) = (field32(12), field32(16));
    let zip64 =
        on_disk == 0xFFFF || entries == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF;
    if !zip64 {
        if disk != 0 || cd_disk != 0 || on_disk != entries {
            return Err(malformed("it spans several disks"));
        }
        return Ok(Directory {
            offset: u64::from(offset),
            size: u64::from(size),
            entries: u64::from(entries),
            end: eocd_start,
        });
    }
    // Zip64: a 20-byte locator sits right before the end record and points at the zip64 record.
    let locator_start = eocd_start
        .checked_sub(20)
        .ok_or_else(|| malformed("its zip64 locator is missing"))?;
    let locator = read_at(file, locator_start, 20)?;
    if u32_at(&locator, 0) != Some(ZIP64_LOCATOR) {
        return Err(malformed("its zip64 locator is missing"));
    }
    let record_start = u64_at(&locator, 8).unwrap_or(u64::MAX);
    if record_start
        .checked_add(56)
        .is_none_or(|end| end > locator_start)
    {
        return Err(malformed("its zip64 end record is out of place"));
    }
    let record = read_at(file, record_start, 56)?;
    if u32_at(&record, 0) != Some(ZIP64_EOCD) {
        return Err(malformed("its zip64 end record is missing"));
    }
    let (on_disk, entries) = (u64_at(&record, 24), u64_at(&record, 32));
    if u32_at(&record, 16) != Some(0) || u32_at(&record, 20) != Some(0) || on_disk != entries {
        return Err(malformed("it spans several disks"));
    }
    Ok(Directory {
        entries: entries.unwrap_or(0),
        size: u64_at(&record, 40).unwrap_or(0),
        offset: u64_at(&record, 48).unwrap_or(0),
        end: record_start,
    })
}

/// The zip64 extra field's values for the fields that are saturated in the record, in order.
fn zip64_values(extra: &[u8], wanted: usize) -> Result<Vec<u64>, AuditError> {
    let mut at = 0;
    while at + 4 <= extra.len() {
        let id = u16_at(extra, at).unwrap_or(0);
        let len = usize::from(u16_at(extra, at + 2).unwrap_or(0));
        let data = extra
            .get(at + 4..at + 4 + len)
            .ok_or_else(|| malformed("an extra field runs past its record"))?;
        if id == 0x0001 {
            if data.len() < wanted * 8 {
                return Err(malformed("a zip64 extra field is too short"));
            }
            return Ok((0..wanted)
                .map(|index| u64_at(data, index * 8).unwrap_or(0))
                .collect());
        }
        at += 4 + len;
    }
    if wanted == 0 {
        Ok(Vec::new())
    } else {
        Err(malformed("a record needs a zip64 extra field and has none"))
    }
}

/// Walks the central directory of the archive in `file` (`len` bytes long) and checks it: the
/// declared number of records is the number present and they fill the directory exactly; no
/// name appears twice; each local header carries its record's name and method; each entry's
/// bytes lie between the start of the file and the central directory, and no two entries share
/// any. Returns the records in directory order.
pub fn audit<R: Read + Seek>(file: &mut R, len: u64) -> Result<Vec<Record>, AuditError> {
    let directory = directory(file, len)?;
    let Directory {
        offset,
        size,
        entries,
        end,
    } = directory;
    if offset.checked_add(size).is_none_or(|cd_end| cd_end > end) {
        return Err(malformed("its central directory lies outside the archive"));
    }
    if entries.saturating_mul(CENTRAL_LEN as u64) > size {
        return Err(malformed(format!(
            "it declares {entries} entries, more than its central directory can hold"
        )));
    }
    let bytes = read_at(
        file,
        offset,
        usize::try_from(size).map_err(|_| malformed("its central directory is too large"))?,
    )?;
    let mut records = Vec::with_capacity(usize::try_from(entries).unwrap_or(0));
    let mut at = 0;
    for _ in 0..entries {
        let (record, next) = central_record(&bytes, at)?;
        records.push(record);
        at = next;
    }
    if at != bytes.len() {
        return Err(malformed(format!(
            "its central directory holds more than the {entries} records it declares"
        )));
    }
    let mut names = std::collections::HashSet::with_capacity(records.len());
    for record in &records {
        if !names.insert(record.name.as_slice()) {
            return Err(AuditError::Duplicate(
                String::from_utf8_lossy(&record.name).into_owned(),
            ));
        }
    }
    // Each entry's local header and data, in file order, must end before the next begins.
    let mut spans = Vec::with_capacity(records.len());
    for (index, record) in records.iter().enumerate() {
        let data_end = local_header(file, record, offset)?;
        spans.push((record.offset, data_end, index));
    }
    spans.sort_unstable();
    for pair in spans.windows(2) {
        let ((_, end, first), (start, _, second)) = (pair[0], pair[1]);
        if start < end {
            let name = |index: usize| String::from_utf8_lossy(&records[index].name).into_owned();
            return Err(AuditError::Overlap(name(first), name(second)));
        }
    }
    Ok(records)
}

/// Parses the central record at `at`; returns it and where the next one starts.
fn central_record(bytes: &[u8], at: usize) -> Result<(Record, usize), AuditError> {
    let fixed = bytes
        .get(at..at + CENTRAL_LEN)
        .filter(|fixed| u32_at(fixed, 0) == Some(CENTRAL))
        .ok_or_else(|| malformed("its central directory has fewer records than it declares"))?;
    let field16 = |offset| u16_at(fixed, offset).unwrap_or(0);
    let field32 = |offset| u32_at(fixed, offset).unwrap_or(0);
    let (flags, method) = (field16(8), field16(10));
    let (name_len, extra_len, comment_len) = (
        usize::from(field16(28)),
        usize::from(field16(30)),
        usize::from(field16(32)),
    );
    let name_start = at + CENTRAL_LEN;
    let extra_start = name_start + name_len;
    let next = extra_start + extra_len + comment_len;
    if next > bytes.len() {
        return Err(malformed(
            "a central record runs past the central directory",
        ));
    }
    let name = bytes[name_start..extra_start].to_vec();
    let extra = &bytes[extra_start..extra_start + extra_len];
    // Saturated fields come from the zip64 extra field, in the order size, compressed, offset.
    let (mut size, mut compressed, mut offset) = (
        u64::from(field32(24)),
        u64::from(field32(20)),
        u64::from(field32(42)),
    );
    let saturated = [size, compressed, offset]
        .iter()
        .filter(|&&value| value == 0xFFFF_FFFF)
        .count();
    let mut values = zip64_values(extra, saturated)?.into_iter();
    for field in [&mut size, &mut compressed, &mut offset] {
        if *field == 0xFFFF_FFFF {
            *field = values.next().unwrap_or(u64::MAX);
        }
    }
    if field16(34) != 0 && field16(34) != 0xFFFF {
        return Err(malformed("it spans several disks"));
    }
    Ok((
        Record {
            name,
            offset,
            compressed,
            size,
            method,
            flags,
        },
        next,
    ))
}

/// Checks `record`'s local header; returns where its data ends.
fn local_header<R: Read + Seek>(
    file: &mut R,
    record: &Record,
    directory_start: u64,
) -> Result<u64, AuditError> {
    let shown = || String::from_utf8_lossy(&record.name).into_owned();
    let out_of_place = || {
        malformed(format!(
            "entry `{}` points outside the archive's data",
            shown()
        ))
    };
    if record
        .offset
        .checked_add(LOCAL_LEN as u64)
        .is_none_or(|end| end > directory_start)
    {
        return Err(out_of_place());
    }
    let fixed = read_at(file, record.offset, LOCAL_LEN)?;
    if u32_at(&fixed, 0) != Some(LOCAL) {
        return Err(malformed(format!(
            "entry `{}` has no local header where its record points",
            shown()
        )));
    }
    let name_len = usize::from(u16_at(&fixed, 26).unwrap_or(0));
    let extra_len = u64::from(u16_at(&fixed, 28).unwrap_or(0));
    let data_start = record.offset + LOCAL_LEN as u64 + name_len as u64 + extra_len;
    let data_end = data_start
        .checked_add(record.compressed)
        .filter(|&end| end <= directory_start)
        .ok_or_else(out_of_place)?;
    let local_name = read_at(file, record.offset + LOCAL_LEN as u64, name_len)?;
    if local_name != record.name {
        return Err(AuditError::NameMismatch {
            central: shown(),
            local: String::from_utf8_lossy(&local_name).into_owned(),
        });
    }
    if u16_at(&fixed, 8) != Some(record.method) {
        return Err(malformed(format!(
            "entry `{}` has one compression method in its record and another in its header",
            shown()
        )));
    }
    Ok(data_end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored (uncompressed) zip with the given entries, written by hand so that tests can
    /// make it lie.
    pub(crate) struct Builder {
        pub entries: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    }

    impl Builder {
        /// Entries as (central name, local name, data).
        pub(super) fn bytes(&self) -> Vec<u8> {
            let mut out = Vec::new();
            let mut central = Vec::new();
            for (name, local, data) in &self.entries {
                let offset = u32::try_from(out.len()).unwrap();
                let crc = crc32fast::hash(data);
                let len = u32::try_from(data.len()).unwrap();
                out.extend_from_slice(&LOCAL.to_le_bytes());
                out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
                out.extend_from_slice(&crc.to_le_bytes());
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(&u16::try_from(local.len()).unwrap().to_le_bytes());
                out.extend_from_slice(&0u16.to_le_bytes());
                out.extend_from_slice(local);
                out.extend_from_slice(data);
                central.extend_from_slice(&CENTRAL.to_le_bytes());
                central.extend_from_slice(&[20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
                central.extend_from_slice(&crc.to_le_bytes());
                central.extend_from_slice(&len.to_le_bytes());
                central.extend_from_slice(&len.to_le_bytes());
                central.extend_from_slice(&u16::try_from(name.len()).unwrap().to_le_bytes());
                central.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
                central.extend_from_slice(&(0o100_644u32 << 16).to_le_bytes());
                central.extend_from_slice(&offset.to_le_bytes());
                central.extend_from_slice(name);
            }
            let cd_offset = u32::try_from(out.len()).unwrap();
            let count = u16::try_from(self.entries.len()).unwrap();
            out.extend_from_slice(&central);
            out.extend_from_slice(&EOCD.to_le_bytes());
            out.extend_from_slice(&[0, 0, 0, 0]);
            out.extend_from_slice(&count.to_le_bytes());
            out.extend_from_slice(&count.to_le_bytes());
            out.extend_from_slice(&u32::try_from(central.len()).unwrap().to_le_bytes());
            out.extend_from_slice(&cd_offset.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out
        }
    }

    fn entry(name: &str, data: &str) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
        (name.into(), name.into(), data.into())
    }

    fn check(bytes: &[u8]) -> Result<Vec<Record>, AuditError> {
        audit(&mut io::Cursor::new(bytes), bytes.len() as u64)
    }

    #[test]
    fn an_honest_archive_passes_with_every_record() {
        let bytes = Builder {
            entries: vec![entry("s/SKILL.md", "hello"), entry("s/a.txt", "x")],
        }
        .bytes();
        let records = check(&bytes).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].name, b"s/SKILL.md");
        assert_eq!(records[0].size, 5);
    }

    #[test]
    fn a_local_name_that_differs_from_the_central_one_is_refused() {
        let bytes = Builder {
            entries: vec![(b"s/SKILL.md".to_vec(), b"../../x".to_vec(), b"hi".to_vec())],
        }
        .bytes();
        assert!(matches!(
            check(&bytes),
            Err(AuditError::NameMismatch { .. })
        ));
    }

    #[test]
    fn a_name_twice_is_refused() {
        let bytes = Builder {
            entries: vec![entry("s/SKILL.md", "one"), entry("s/SKILL.md", "two")],
        }
        .bytes();
        assert!(matches!(check(&bytes), Err(AuditError::Duplicate(_))));
    }

    #[test]
    fn a_count_that_disagrees_with_the_records_is_refused() {
        let mut bytes = Builder {
            entries: vec![entry("s/SKILL.md", "one"), entry("s/b", "two")],
        }
        .bytes();
        let at = bytes.len() - 22;
        // Declare one record where there are two, then three.
        bytes[at + 8] = 1;
        bytes[at + 10] = 1;
        assert!(check(&bytes).is_err());
        bytes[at + 8] = 3;
        bytes[at + 10] = 3;
        assert!(check(&bytes).is_err());
    }

    #[test]
    fn overlapping_entries_are_refused() {
        // Entry `s/a`'s data holds a complete local entry `s/b`; the central record of `s/b`
        // points into it, so the two share bytes (how overlap bombs expand without limit).
        let inner = b"xyz";
        let mut embedded = Vec::new();
        embedded.extend_from_slice(&LOCAL.to_le_bytes());
        embedded.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        embedded.extend_from_slice(&crc32fast::hash(inner).to_le_bytes());
        embedded.extend_from_slice(&3u32.to_le_bytes());
        embedded.extend_from_slice(&3u32.to_le_bytes());
        embedded.extend_from_slice(&3u16.to_le_bytes());
        embedded.extend_from_slice(&0u16.to_le_bytes());
        embedded.extend_from_slice(b"s/b");
        embedded.extend_from_slice(inner);
        let mut bytes = Builder {
            entries: vec![
                (b"s/a".to_vec(), b"s/a".to_vec(), embedded),
                (b"s/b".to_vec(), b"s/b".to_vec(), inner.to_vec()),
            ],
        }
        .bytes();
        assert!(check(&bytes).is_ok(), "the honest layout passes");
        let cd = usize::try_from(u32_at(&bytes, bytes.len() - 6).unwrap()).unwrap();
        let second = cd + CENTRAL_LEN + 3;
        let inside_a = u32::try_from(LOCAL_LEN + 3).unwrap();
        bytes[second + 42..second + 46].copy_from_slice(&inside_a.to_le_bytes());
        assert!(matches!(check(&bytes), Err(AuditError::Overlap(..))));
    }

    #[test]
    fn an_end_record_hidden_in_the_comment_is_refused() {
        // Found by the zip_audit fuzzer: an empty archive's end record whose comment holds the
        // real archive's end record (with a comment length that does not fit). The audit took
        // the empty one; the zip crate, forgiving the length, took the other.
        let honest = Builder {
            entries: vec![entry("s/SKILL.md", "hello")],
        }
        .bytes();
        let (body, end) = honest.split_at(honest.len() - 22);
        let mut bytes = body.to_vec();
        bytes.extend_from_slice(&EOCD.to_le_bytes());
        bytes.extend_from_slice(&[0; 16]);
        bytes.extend_from_slice(&(22u16 + 3).to_le_bytes());
        bytes.extend_from_slice(end);
        bytes.extend_from_slice(b"xyz");
        let error = check(&bytes).unwrap_err();
        assert!(
            error.to_string().contains("another one in its comment"),
            "{error}"
        );
        assert!(check(&honest).is_ok());
    }

    #[test]
    fn garbage_is_refused_not_panicked_on() {
        for bytes in [
            &b""[..],
            b"PK\x05\x06",
            &[0u8; 100],
            b"PK\x05\x06\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\0\0",
        ] {
            assert!(check(bytes).is_err());
        }
    }
}
