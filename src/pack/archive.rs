//! The deterministic `.skill` writer: a zip whose bytes depend only on the files' paths,
//! contents and executable bits.
//!
//! Entries are sorted; every timestamp is 1980-01-01 00:00; modes are 0644 or 0755; there are
//! no folder entries and no extra fields. Each file is read whole and deflated once, by
//! libdeflate at level 6: on the benchmark trees (`cargo bench --bench package`) that takes
//! 0.4–0.9× the time of zlib-rs at the same level, and `package` as a whole a third of the CPU
//! time of Info-ZIP's `zip -6`, for archives within 1 % of its size. A file is stored instead when deflating would not shrink it, or when its first
//! 64 KiB look random (every byte value about equally common, and a quick level-1 deflate of
//! them gains under 3 %: already compressed, like PNG, PDF streams, fonts or archives), which
//! costs a fraction of deflating the whole.
//! All of that is a function of the content alone, so two machines write the same bytes.
//! Files are compressed on every core in bounded batches, so memory stays flat whatever the
//! bundle size; a file larger than a batch is streamed on its own through zlib (level 6),
//! since libdeflate compresses whole buffers only.

use std::io::{self, Read, Write};
use std::path::Path;

use flate2::Compression;
use flate2::write::DeflateEncoder;
use sha2::{Digest, Sha256};

use super::select::PackFile;

/// The deflate level: fixed, so the bytes never change.
const LEVEL: i32 = 6;
/// Files up to this size are compressed in memory, in parallel.
const BATCH_BYTES: u64 = 16 * 1024 * 1024;
/// A sample this big decides whether compressing is worth trying.
const SAMPLE: usize = 64 * 1024;
/// Samples shorter than this are too short to judge; such files are simply tried.
const MIN_SAMPLE: usize = 4096;
/// Sizes the zip format holds without zip64.
const ZIP32_LIMIT: u64 = 0xFFFF_FFFF;
/// 1980-01-01 00:00:00 in MS-DOS form.
const DOS_TIME: u16 = 0;
const DOS_DATE: u16 = (1 << 5) | 1;

/// One written entry, for the central directory and the digests.
#[derive(Clone, Debug)]
pub struct Written {
    pub name: String,
    pub path: String,
    pub offset: u64,
    pub crc: u32,
    pub compressed: u64,
    pub size: u64,
    pub method: u16,
    pub executable: bool,
    pub descriptor: bool,
    /// SHA-256 of the content.
    pub sha256: [u8; 32],
}

/// What was written.
#[derive(Clone, Debug)]
pub struct Summary {
    pub entries: Vec<Written>,
    /// SHA-256 of the archive bytes.
    pub sha256: String,
    /// `h1:` digest of the contents (Go's dirhash), independent of compression.
    pub content_digest: String,
    pub bytes: u64,
}

/// A writer that counts and hashes what passes through.
struct Tally<W> {
    inner: W,
    hash: Sha256,
    written: u64,
}

impl<W: Write> Write for Tally<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A file compressed (or not) in memory.
struct Prepared {
    method: u16,
    crc: u32,
    size: u64,
    data: Vec<u8>,
    sha256: [u8; 32],
}

fn prepare(file: &PackFile) -> io::Result<Prepared> {
    let content = fs_err::read(&file.source)?;
    let crc = crc32fast::hash(&content);
    let sha256: [u8; 32] = Sha256::digest(&content).into();
    let size = content.len() as u64;
    if !incompressible(&content[..content.len().min(SAMPLE)])
        && let Some(data) = deflate(&content)
    {
        return Ok(Prepared {
            method: 8,
            crc,
            size,
            data,
            sha256,
        });
    }
    Ok(Prepared {
        method: 0,
        crc,
        size,
        data: content,
        sha256,
    })
}

/// Whether `sample` is long enough to judge and its byte values are so evenly spread that
/// deflate would not shrink it: the sum of the squared counts of each byte value is within
/// 3 % of what uniformly random bytes give (n²/256 + n). Text scores many times that; even
/// x86 code or a PNG's pixel rows in the clear score several times. Integers only, so every
/// machine decides alike.
fn looks_random(sample: &[u8]) -> bool {
    if sample.len() < MIN_SAMPLE {
        return false;
    }
    let mut counts = [0u64; 256];
    for &byte in sample {
        counts[usize::from(byte)] += 1;
    }
    let n = sample.len() as u64;
    let squares: u64 = counts.iter().map(|count| count * count).sum();
    // 256 · Σc² ≤ 1.03 · (n² + 256 n)
    squares * 256 * 100 <= (n * n + 256 * n) * 103
}

/// Whether a file whose first bytes are `sample` is not worth deflating: its bytes look random
/// and a quick deflate (level 1) of the sample does not bring it under 97 %. The histogram
/// alone cannot see repetition (a random block repeated, a table of every byte value), which
/// the quick pass does, for a fraction of what deflating the whole at level 6 would cost.
fn incompressible(sample: &[u8]) -> bool {
    looks_random(sample)
        && QUICK.with_borrow_mut(|quick| {
            let mut out = vec![0u8; sample.len() * 97 / 100];
            quick.deflate_compress(sample, &mut out).is_err()
        })
}

thread_local! {
    /// Each thread's compressors: making one allocates its hash tables, so they are kept.
    static COMPRESSOR: std::cell::RefCell<libdeflater::Compressor> = std::cell::RefCell::new(
        libdeflater::Compressor::new(
            libdeflater::CompressionLvl::new(LEVEL).unwrap_or_default(),
        ),
    );
    static QUICK: std::cell::RefCell<libdeflater::Compressor> = std::cell::RefCell::new(
        // Level 1, the fastest that compresses (`fastest()` is level 0: stored blocks).
        libdeflater::Compressor::new(libdeflater::CompressionLvl::new(1).unwrap_or_default()),
    );
}

/// `data` deflated, or `None` when that would not make it smaller.
fn deflate(data: &[u8]) -> Option<Vec<u8>> {
    COMPRESSOR.with_borrow_mut(|compressor| {
        // Only output shorter than the input is of use, so the buffer never needs to be larger.
        let mut out = vec![0u8; data.len().saturating_sub(1)];
        let written = compressor.deflate_compress(data, &mut out).ok()?;
        out.truncate(written);
        Some(out)
    })
}

/// Writes the archive of `files` to `out`, each under `prefix` (`name/`, or empty for the flat
/// layout), compressing on `threads` threads. `progress` is told the bytes read so far.
pub fn write(
    out: impl Write,
    prefix: &str,
    files: &[PackFile],
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> io::Result<Summary> {
    if files.len() > 0xFFFF {
        return Err(io::Error::other(format!(
            "{} files is more than a zip without zip64 holds (65,535)",
            files.len()
        )));
    }
    let mut out = Tally {
        inner: out,
        hash: Sha256::new(),
        written: 0,
    };
    let mut entries = Vec::with_capacity(files.len());
    let mut done = 0u64;
    let mut index = 0;
    while index < files.len() {
        if files[index].size > BATCH_BYTES {
            let entry = stream(&mut out, prefix, &files[index])?;
            done += entry.size;
            progress(done);
            entries.push(entry);
            index += 1;
            continue;
        }
        // A batch: consecutive small files up to BATCH_BYTES, compressed in parallel.
        let mut end = index;
        let mut batch_bytes = 0;
        while end < files.len()
            && files[end].size <= BATCH_BYTES
            && batch_bytes + files[end].size <= BATCH_BYTES
        {
            batch_bytes += files[end].size;
            end += 1;
        }
        if end == index {
            end += 1;
        }
        let prepared = crate::parallel::map_in_order(&files[index..end], threads, prepare);
        for (file, prepared) in files[index..end].iter().zip(prepared) {
            let prepared = prepared.map_err(|error| {
                io::Error::new(error.kind(), format!("{}: {error}", file.source.display()))
            })?;
            let entry = put(&mut out, prefix, file, &prepared)?;
            done += entry.size;
            entries.push(entry);
        }
        progress(done);
        index = end;
    }
    let directory_start = out.written;
    for entry in &entries {
        central(&mut out, entry)?;
    }
    let directory_size = out.written - directory_start;
    if directory_start > ZIP32_LIMIT || directory_size > ZIP32_LIMIT {
        return Err(io::Error::other(
            "the archive is larger than 4 GiB, which needs zip64",
        ));
    }
    let count = u16::try_from(entries.len()).unwrap_or(u16::MAX);
    let mut end = Vec::with_capacity(22);
    end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    end.extend_from_slice(&[0, 0, 0, 0]);
    end.extend_from_slice(&count.to_le_bytes());
    end.extend_from_slice(&count.to_le_bytes());
    end.extend_from_slice(
        &u32::try_from(directory_size)
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    end.extend_from_slice(
        &u32::try_from(directory_start)
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    end.extend_from_slice(&0u16.to_le_bytes());
    out.write_all(&end)?;
    out.flush()?;
    let sha256 = hex(&out.hash.finalize());
    let content_digest = content_digest(
        entries
            .iter()
            .map(|entry| (entry.path.as_str(), &entry.sha256)),
    );
    Ok(Summary {
        bytes: out.written,
        entries,
        sha256,
        content_digest,
    })
}

fn flags(name: &str, descriptor: bool) -> u16 {
    let utf8 = if name.is_ascii() { 0 } else { 0x0800 };
    utf8 | if descriptor { 0x0008 } else { 0 }
}

fn local_header(
    out: &mut impl Write,
    name: &str,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    descriptor: bool,
) -> io::Result<()> {
    let mut header = Vec::with_capacity(30 + name.len());
    header.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
    header.extend_from_slice(&20u16.to_le_bytes());
    header.extend_from_slice(&flags(name, descriptor).to_le_bytes());
    header.extend_from_slice(&method.to_le_bytes());
    header.extend_from_slice(&DOS_TIME.to_le_bytes());
    header.extend_from_slice(&DOS_DATE.to_le_bytes());
    header.extend_from_slice(&crc.to_le_bytes());
    header.extend_from_slice(&u32::try_from(compressed).unwrap_or(u32::MAX).to_le_bytes());
    header.extend_from_slice(&u32::try_from(size).unwrap_or(u32::MAX).to_le_bytes());
    header.extend_from_slice(&u16::try_from(name.len()).unwrap_or(u16::MAX).to_le_bytes());
    header.extend_from_slice(&0u16.to_le_bytes());
    header.extend_from_slice(name.as_bytes());
    out.write_all(&header)
}

fn too_big(file: &PackFile) -> io::Error {
    io::Error::other(format!(
        "{} is larger than 4 GiB, which needs zip64",
        file.path
    ))
}

fn put<W: Write>(
    out: &mut Tally<W>,
    prefix: &str,
    file: &PackFile,
    prepared: &Prepared,
) -> io::Result<Written> {
    if prepared.size > ZIP32_LIMIT {
        return Err(too_big(file));
    }
    let name = format!("{prefix}{}", file.path);
    let offset = out.written;
    local_header(
        out,
        &name,
        prepared.method,
        prepared.crc,
        prepared.data.len() as u64,
        prepared.size,
        false,
    )?;
    out.write_all(&prepared.data)?;
    Ok(Written {
        name,
        path: file.path.clone(),
        offset,
        crc: prepared.crc,
        compressed: prepared.data.len() as u64,
        size: prepared.size,
        method: prepared.method,
        executable: file.executable,
        descriptor: false,
        sha256: prepared.sha256,
    })
}

/// A large file, deflated while it is read, with the sizes in a data descriptor after it.
fn stream<W: Write>(out: &mut Tally<W>, prefix: &str, file: &PackFile) -> io::Result<Written> {
    let name = format!("{prefix}{}", file.path);
    let offset = out.written;
    local_header(out, &name, 8, 0, 0, 0, true)?;
    let start = out.written;
    let mut reader = fs_err::File::open(&file.source)?;
    let mut crc = crc32fast::Hasher::new();
    let mut hash = Sha256::new();
    let mut size = 0u64;
    let mut encoder = DeflateEncoder::new(&mut *out, Compression::new(LEVEL.unsigned_abs()));
    let mut buffer = vec![0u8; 256 * 1024];
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        crc.update(&buffer[..n]);
        hash.update(&buffer[..n]);
        size += n as u64;
        encoder.write_all(&buffer[..n])?;
    }
    encoder.finish()?;
    if size > ZIP32_LIMIT {
        return Err(too_big(file));
    }
    let compressed = out.written - start;
    let crc = crc.finalize();
    let mut descriptor = Vec::with_capacity(16);
    descriptor.extend_from_slice(&0x0807_4b50u32.to_le_bytes());
    descriptor.extend_from_slice(&crc.to_le_bytes());
    descriptor.extend_from_slice(&u32::try_from(compressed).unwrap_or(u32::MAX).to_le_bytes());
    descriptor.extend_from_slice(&u32::try_from(size).unwrap_or(u32::MAX).to_le_bytes());
    out.write_all(&descriptor)?;
    Ok(Written {
        name,
        path: file.path.clone(),
        offset,
        crc,
        compressed,
        size,
        method: 8,
        executable: file.executable,
        descriptor: true,
        sha256: hash.finalize().into(),
    })
}

fn central(out: &mut impl Write, entry: &Written) -> io::Result<()> {
    let mode: u32 = if entry.executable {
        0o100_755
    } else {
        0o100_644
    };
    let mut header = Vec::with_capacity(46 + entry.name.len());
    header.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
    // Made by Unix (3), zip 2.0.
    header.extend_from_slice(&0x0314u16.to_le_bytes());
    header.extend_from_slice(&20u16.to_le_bytes());
    header.extend_from_slice(&flags(&entry.name, entry.descriptor).to_le_bytes());
    header.extend_from_slice(&entry.method.to_le_bytes());
    header.extend_from_slice(&DOS_TIME.to_le_bytes());
    header.extend_from_slice(&DOS_DATE.to_le_bytes());
    header.extend_from_slice(&entry.crc.to_le_bytes());
    header.extend_from_slice(
        &u32::try_from(entry.compressed)
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    header.extend_from_slice(&u32::try_from(entry.size).unwrap_or(u32::MAX).to_le_bytes());
    header.extend_from_slice(
        &u16::try_from(entry.name.len())
            .unwrap_or(u16::MAX)
            .to_le_bytes(),
    );
    header.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
    header.extend_from_slice(&(mode << 16).to_le_bytes());
    header.extend_from_slice(
        &u32::try_from(entry.offset)
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    header.extend_from_slice(entry.name.as_bytes());
    out.write_all(&header)
}

/// Lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, byte| {
            let _ = write!(out, "{byte:02x}");
            out
        })
}

/// Go's `dirhash.Hash1`: SHA-256 over lines `"<hex sha256>  <path>\n"` sorted by path, as
/// `h1:` + base64. Like Go's, it is defined only for names without a line break; packing and
/// extracting refuse names with any control character before a digest is taken.
pub fn content_digest<'a>(files: impl Iterator<Item = (&'a str, &'a [u8; 32])>) -> String {
    use base64::Engine as _;
    let mut lines: Vec<String> = files
        .map(|(path, sha)| format!("{}  {path}\n", hex(sha)))
        .collect();
    lines.sort_by(|a, b| {
        a.split_once("  ")
            .map(|x| x.1)
            .cmp(&b.split_once("  ").map(|x| x.1))
    });
    let mut hash = Sha256::new();
    for line in &lines {
        hash.update(line.as_bytes());
    }
    format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(hash.finalize())
    )
}

/// The `h1:` digest of the files in the folder `dir`, as [`content_digest`] of an archive of
/// it would be, leaving out files named in `skip` (at any depth). `None` when the folder holds
/// anything an archive could not have come from (a symbolic link, a FIFO, a device) or more than
/// `limits` allows: such a folder is not what an extraction wrote.
pub fn folder_digest(
    dir: &Path,
    skip: &[&str],
    limits: &super::extract::Limits,
) -> io::Result<Option<String>> {
    let mut hashes: Vec<(String, [u8; 32])> = Vec::new();
    let mut pending = vec![(dir.to_path_buf(), String::new())];
    let mut total = 0u64;
    while let Some((folder, prefix)) = pending.pop() {
        for entry in fs_err::read_dir(&folder)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Ok(None);
            };
            let relative = format!("{prefix}{name}");
            if kind.is_dir() {
                pending.push((entry.path(), format!("{relative}/")));
                continue;
            }
            if !kind.is_file() {
                return Ok(None);
            }
            if skip.contains(&name.as_str()) {
                continue;
            }
            if hashes.len() >= limits.max_files {
                return Ok(None);
            }
            let mut file = crate::fsx::open_regular(&entry.path())?;
            let mut hash = Sha256::new();
            total += io::copy(
                &mut (&mut file).take(limits.max_bytes - total.min(limits.max_bytes) + 1),
                &mut hash,
            )?;
            if total > limits.max_bytes {
                return Ok(None);
            }
            hashes.push((relative, hash.finalize().into()));
        }
    }
    Ok(Some(content_digest(
        hashes.iter().map(|(path, sha)| (path.as_str(), sha)),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `h1:` digests of files, as Go's `dirhash.Hash1` takes them: (name, content).
    fn go_hash1(files: &[(&str, &[u8])]) -> String {
        let hashes: Vec<(&str, [u8; 32])> = files
            .iter()
            .map(|(name, data)| (*name, Sha256::digest(data).into()))
            .collect();
        content_digest(hashes.iter().map(|(name, sha)| (*name, sha)))
    }

    /// xorshift64* bytes: the same on every machine.
    fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
        let mut state = seed | 1;
        (0..len)
            .map(|_| {
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                state.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes()[7]
            })
            .collect()
    }

    fn prose(len: usize) -> Vec<u8> {
        let words = [
            "the", "skill", "reads", "a", "file", "and", "writes", "its", "report", "when",
            "asked", "to", "check", "tables", "charts", "or", "logs", "in", "each", "folder",
        ];
        let mut text = String::new();
        for (index, choice) in random_bytes(len, 9).into_iter().enumerate() {
            if text.len() >= len {
                break;
            }
            text.push_str(words[usize::from(choice) % words.len()]);
            text.push(if index % 11 == 10 { '\n' } else { ' ' });
        }
        text.truncate(len);
        text.into_bytes()
    }

    fn prepared(content: &[u8]) -> Prepared {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("file");
        fs_err::write(&source, content).unwrap();
        prepare(&PackFile {
            path: "file".into(),
            source,
            size: content.len() as u64,
            executable: false,
        })
        .unwrap()
    }

    fn inflate(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::DeflateDecoder::new(data)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn random_looking_samples_are_told_from_compressible_ones() {
        assert!(looks_random(&random_bytes(SAMPLE, 1)));
        assert!(looks_random(&random_bytes(MIN_SAMPLE, 2)));
        // Already-deflated data is as flat as random bytes.
        let mut compressed = prepared(&prose(400_000)).data;
        compressed.truncate(SAMPLE);
        assert!(compressed.len() >= MIN_SAMPLE);
        assert!(looks_random(&compressed));
        assert!(!looks_random(&prose(SAMPLE)));
        assert!(!looks_random(&vec![0u8; SAMPLE]));
        // Random bytes over half the alphabet are still compressible: not random-looking.
        let half: Vec<u8> = random_bytes(SAMPLE, 3).iter().map(|b| b & 0x7f).collect();
        assert!(!looks_random(&half));
        // Too short to judge: tried instead.
        assert!(!looks_random(&random_bytes(MIN_SAMPLE - 1, 4)));
    }

    #[test]
    fn each_file_is_deflated_once_or_stored() {
        let text = prose(50_000);
        let deflated = prepared(&text);
        assert_eq!(deflated.method, 8);
        assert!(deflated.data.len() * 4 < text.len());
        assert_eq!(inflate(&deflated.data), text);
        assert_eq!(deflated.crc, crc32fast::hash(&text));
        // Random bytes are stored, whatever their size; so is what would not shrink.
        for content in [
            random_bytes(200_000, 5),
            random_bytes(100, 6),
            b"ab".to_vec(),
            Vec::new(),
        ] {
            let stored = prepared(&content);
            assert_eq!(stored.method, 0, "{} bytes", content.len());
            assert_eq!(stored.data, content);
        }
        // Bytes as evenly spread as random ones, but repeated, are still deflated: a random
        // block over and over, and a table of every byte value.
        let block = random_bytes(8192, 8);
        let repeated: Vec<u8> = block.iter().copied().cycle().take(256 * 1024).collect();
        assert!(looks_random(&repeated[..SAMPLE]));
        let table: Vec<u8> = (0..=255u8).cycle().take(SAMPLE).collect();
        for content in [repeated, table] {
            let packed = prepared(&content);
            assert_eq!(packed.method, 8);
            assert!(packed.data.len() * 5 < content.len());
            assert_eq!(inflate(&packed.data), content);
        }
        // Short text that deflate does shrink is deflated.
        let short = prose(300);
        let small = prepared(&short);
        assert_eq!(small.method, 8);
        assert_eq!(inflate(&small.data), short);
    }

    #[test]
    fn the_same_content_gives_the_same_bytes() {
        let text = prose(300_000);
        assert_eq!(prepared(&text).data, prepared(&text).data);
        // Deflating into a buffer one byte shorter than the input gives the bytes a roomy
        // buffer would.
        let mut roomy =
            libdeflater::Compressor::new(libdeflater::CompressionLvl::new(LEVEL).unwrap());
        let mut out = vec![0u8; roomy.deflate_compress_bound(text.len())];
        let written = roomy.deflate_compress(&text, &mut out).unwrap();
        assert_eq!(prepared(&text).data, out[..written]);
    }

    /// Go's own expected values (`golang.org/x/mod` at fe2ec04: `sumdb/dirhash/hash_test.go` and
    /// zip/testdata), not recomputed here: the same algorithm computing both sides would prove
    /// nothing.
    #[test]
    fn content_digest_matches_go_dirhash_test_vectors() {
        // TestHash1: Hash1([xyz, abc]) with each file "data for <name>".
        assert_eq!(
            go_hash1(&[("xyz", b"data for xyz"), ("abc", b"data for abc")]),
            "h1:EP6WfDoQTSk9klnxcjriWJOGztueJUywHNmWeq+efB8="
        );
        // TestHashDir and TestHashZip: the same files under `prefix/`.
        assert_eq!(
            go_hash1(&[
                ("prefix/xyz", b"data for xyz"),
                ("prefix/abc", b"data for abc")
            ]),
            "h1:rLyfpGMAgqOnGE2aKOY5Xb6cOc0/YQhPjHBHBwkblhs="
        );
        // zip/testdata/create/simple.txt: a module of three files.
        assert_eq!(
            go_hash1(&[
                ("example.com/m@v1.0.0/go.mod", b"module example.com/m\n\ngo 1.13\n"),
                ("example.com/m@v1.0.0/m.go", b"package m\n\nfunc Foo() int { return 42 }\n"),
                (
                    "example.com/m@v1.0.0/cmd/hello/hello.go",
                    b"package main\n\nimport (\n  \"fmt\"\n  \"example.com/m\"\n)\n\nfunc main() {\n  fmt.Println(m.Foo())\n}\n"
                ),
            ]),
            "h1:tpqYOOmuilagXzyqoJ3roUjp8gneQeTv5YVpL6BG7/k="
        );
        // zip/testdata/create/exclude_cap_go_mod_submodule.txt: one file.
        assert_eq!(
            go_hash1(&[("example.com/m@v1.0.0/a.go", b"package a\n")]),
            "h1:xctQQey8/y7IcBjFZDP/onWLSXhlqcsC3i1fgSdpMHk="
        );
        // zip_test.go's emptyHash.
        assert_eq!(
            go_hash1(&[]),
            "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
        );
    }

    /// A folder's digest is Go's `HashDir` with no prefix: `TestHash1`'s files on disk.
    #[test]
    fn folder_digest_matches_go_hash_dir() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::write(dir.path().join("xyz"), "data for xyz").unwrap();
        fs_err::write(dir.path().join("abc"), "data for abc").unwrap();
        let limits = crate::pack::extract::Limits::default();
        assert_eq!(
            folder_digest(dir.path(), &[], &limits).unwrap().as_deref(),
            Some("h1:EP6WfDoQTSk9klnxcjriWJOGztueJUywHNmWeq+efB8=")
        );
        fs_err::create_dir(dir.path().join("prefix")).unwrap();
        fs_err::rename(dir.path().join("xyz"), dir.path().join("prefix/xyz")).unwrap();
        fs_err::rename(dir.path().join("abc"), dir.path().join("prefix/abc")).unwrap();
        assert_eq!(
            folder_digest(dir.path(), &[], &limits).unwrap().as_deref(),
            Some("h1:rLyfpGMAgqOnGE2aKOY5Xb6cOc0/YQhPjHBHBwkblhs=")
        );
    }
}
