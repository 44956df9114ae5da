//! `multipart/form-data` bodies (RFC 7578), which the Skills API takes its uploads as and ureq 3
//! cannot write. Only what an upload needs: text fields and files, each a part framed by CRLF
//! lines, under a random boundary that no part contains.
//!
//! The body is built in memory: an upload is capped at the API's limit (8 MiB by default, see
//! [`super::DEFAULT_MAX_BYTES`]), and a body in memory can be sent again as is when a request
//! is retried.

use sha2::{Digest as _, Sha256};

/// One part of a form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    /// The form field: `files[]` or `display_name`.
    pub name: &'static str,
    /// A file's name, for a file part.
    pub filename: Option<String>,
    /// The part's `Content-Type`, for a file part.
    pub content_type: Option<&'static str>,
    pub body: Vec<u8>,
}

impl Part {
    /// A text field.
    pub(crate) fn text(name: &'static str, value: &str) -> Self {
        Self {
            name,
            filename: None,
            content_type: None,
            body: value.as_bytes().to_vec(),
        }
    }

    /// The SHA-256 of the body, lower-case hex.
    pub(crate) fn sha256(&self) -> String {
        crate::pack::archive::hex(&Sha256::digest(&self.body))
    }
}

/// An encoded form: its boundary and its bytes.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    pub boundary: String,
    pub bytes: Vec<u8>,
}

impl Body {
    /// The request's `Content-Type`.
    pub(crate) fn content_type(&self) -> String {
        format!("multipart/form-data; boundary={}", self.boundary)
    }
}

/// Why a form cannot be encoded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EncodeError {
    /// The system gave no random bytes for the boundary.
    #[error("cannot make a multipart boundary: {0}")]
    Random(String),
    /// A name or filename would break the part's header line.
    #[error(
        "`{0}` cannot be a multipart field or file name: it holds a quote, a backslash or a control character"
    )]
    BadName(String),
}

/// Encodes `parts` under a fresh random boundary that occurs in none of them.
pub(crate) fn encode(parts: &[Part]) -> Result<Body, EncodeError> {
    for part in parts {
        for name in std::iter::once(part.name).chain(part.filename.as_deref()) {
            if !header_safe(name) {
                return Err(EncodeError::BadName(name.to_owned()));
            }
        }
    }
    loop {
        let mut random = [0_u8; 16];
        getrandom::fill(&mut random).map_err(|error| EncodeError::Random(error.to_string()))?;
        let boundary = format!("skillpkg-{}", crate::pack::archive::hex(&random));
        // 128 random bits: a collision is a curiosity, but checking costs one pass.
        if !parts.iter().any(|part| {
            memchr::memmem::find(&part.body, boundary.as_bytes()).is_some()
                || part
                    .filename
                    .as_deref()
                    .is_some_and(|name| name.contains(&boundary))
        }) {
            let bytes = encode_with(parts, &boundary);
            return Ok(Body { boundary, bytes });
        }
    }
}

/// Whether `name` can go between the quotes of a `Content-Disposition` parameter as it is:
/// RFC 7578 §4.2 leaves escaping to convention, so names that would need it are refused.
pub(crate) fn header_safe(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| c == '"' || c == '\\' || c.is_control())
}

/// The body of `parts` under `boundary`: each part is `--boundary`, its header lines, an empty
/// line and its bytes, every line ending in CRLF; the last boundary line ends in `--`.
fn encode_with(parts: &[Part], boundary: &str) -> Vec<u8> {
    let size: usize = parts.iter().map(|part| part.body.len() + 200).sum();
    let mut out = Vec::with_capacity(size + boundary.len() + 8);
    for part in parts {
        out.extend_from_slice(b"--");
        out.extend_from_slice(boundary.as_bytes());
        out.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"");
        out.extend_from_slice(part.name.as_bytes());
        out.push(b'"');
        if let Some(filename) = &part.filename {
            out.extend_from_slice(b"; filename=\"");
            out.extend_from_slice(filename.as_bytes());
            out.push(b'"');
        }
        out.extend_from_slice(b"\r\n");
        if let Some(content_type) = part.content_type {
            out.extend_from_slice(b"Content-Type: ");
            out.extend_from_slice(content_type.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&part.body);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"--");
    out.extend_from_slice(boundary.as_bytes());
    out.extend_from_slice(b"--\r\n");
    out
}

/// The `Content-Type` of a file part: what the Python SDK sends. It passes each file as
/// `(filename, bytes)`, and httpx then sends `mimetypes.guess_type(filename)`, else
/// `application/octet-stream`. Python's guesses depend on the machine's `mime.types`, so the
/// API cannot rely on them; this table holds the guesses Python's own map makes for the files
/// skills carry, and everything else is `application/octet-stream`.
pub(crate) fn content_type(path: &str) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .filter(|(stem, _)| !stem.is_empty() && !stem.ends_with('/'))
        .map(|(_, extension)| extension.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("py") => "text/x-python",
        Some("sh") => "application/x-sh",
        Some("js" | "mjs") => "text/javascript",
        Some("json") => "application/json",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("csv") => "text/csv",
        Some("xml") => "text/xml",
        Some("yaml" | "yml") => "application/yaml",
        Some("pdf") => "application/pdf",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("zip") => "application/zip",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::{EncodeError, Part, content_type, encode, encode_with};

    /// A part read back: (name, filename, content type, body).
    type Parsed = (String, Option<String>, Option<String>, Vec<u8>);

    /// A strict reader of what [`encode`] writes, written from RFC 7578 rather than from it.
    fn parse(body: &[u8], boundary: &str) -> Vec<Parsed> {
        let delimiter = format!("--{boundary}");
        let closing = format!("\r\n--{boundary}--\r\n");
        assert!(body.starts_with(format!("{delimiter}\r\n").as_bytes()));
        assert!(body.ends_with(closing.as_bytes()));
        let inner = &body[delimiter.len() + 2..body.len() - closing.len()];
        let separator = format!("\r\n{delimiter}\r\n");
        let mut parts = Vec::new();
        for raw in split(inner, separator.as_bytes()) {
            let end = memchr::memmem::find(raw, b"\r\n\r\n").expect("headers end");
            let head = std::str::from_utf8(&raw[..end]).unwrap();
            let mut lines = head.split("\r\n");
            let disposition = lines
                .next()
                .unwrap()
                .strip_prefix("Content-Disposition: form-data; name=\"")
                .unwrap();
            let (name, rest) = disposition.split_once('"').unwrap();
            let filename = rest
                .strip_prefix("; filename=\"")
                .map(|rest| rest.strip_suffix('"').unwrap().to_owned());
            let content_type = lines
                .next()
                .map(|line| line.strip_prefix("Content-Type: ").unwrap().to_owned());
            assert_eq!(lines.next(), None);
            parts.push((
                name.to_owned(),
                filename,
                content_type,
                raw[end + 4..].to_vec(),
            ));
        }
        parts
    }

    fn split<'a>(mut bytes: &'a [u8], separator: &[u8]) -> Vec<&'a [u8]> {
        let mut out = Vec::new();
        while let Some(at) = memchr::memmem::find(bytes, separator) {
            out.push(&bytes[..at]);
            bytes = &bytes[at + separator.len()..];
        }
        out.push(bytes);
        out
    }

    fn file(path: &str, body: &[u8]) -> Part {
        Part {
            name: "files[]",
            filename: Some(path.to_owned()),
            content_type: Some(content_type(path)),
            body: body.to_vec(),
        }
    }

    #[test]
    fn a_form_reads_back_as_its_parts() {
        let parts = vec![
            Part::text("display_name", "pdf-forms"),
            file(
                "pdf-forms/SKILL.md",
                b"---\nname: pdf-forms\n---\r\n\r\nBody\r\n",
            ),
            file("pdf-forms/scripts/fill.py", b""),
            file(
                "pdf-forms/assets/blob.bin",
                &[0, 255, b'\r', b'\n', b'-', b'-'],
            ),
            file("pdf-forms/r\u{e9}sum\u{e9}.md", "caf\u{e9}".as_bytes()),
        ];
        let body = encode(&parts).unwrap();
        assert!(body.boundary.starts_with("skillpkg-") && body.boundary.len() == 41);
        assert_eq!(
            body.content_type(),
            format!("multipart/form-data; boundary={}", body.boundary)
        );
        let parsed = parse(&body.bytes, &body.boundary);
        assert_eq!(parsed.len(), parts.len());
        for (part, (name, filename, content_type, bytes)) in parts.iter().zip(parsed) {
            assert_eq!(part.name, name);
            assert_eq!(part.filename, filename);
            assert_eq!(part.content_type.map(str::to_owned), content_type);
            assert_eq!(part.body, bytes);
        }
    }

    #[test]
    fn the_framing_is_exactly_rfc_7578() {
        let parts = [Part::text("display_name", "x"), file("x/SKILL.md", b"hi")];
        let expected = "--B\r\nContent-Disposition: form-data; name=\"display_name\"\r\n\r\nx\r\n\
             --B\r\nContent-Disposition: form-data; name=\"files[]\"; filename=\"x/SKILL.md\"\r\n\
             Content-Type: text/markdown\r\n\r\nhi\r\n--B--\r\n";
        assert_eq!(
            String::from_utf8(encode_with(&parts, "B")).unwrap(),
            expected
        );
    }

    #[test]
    fn boundaries_are_fresh_each_time() {
        let parts = [file("x/SKILL.md", b"same")];
        assert_ne!(
            encode(&parts).unwrap().boundary,
            encode(&parts).unwrap().boundary
        );
    }

    #[test]
    fn names_that_would_break_the_header_are_refused() {
        for name in ["x/a\"b.md", "x/a\\b.md", "x/a\r\nb.md", "x/tab\t.md", ""] {
            let error = encode(&[file(name, b"")]).unwrap_err();
            assert!(matches!(error, EncodeError::BadName(_)), "{name:?}");
        }
    }

    #[test]
    fn content_types_follow_the_extension() {
        assert_eq!(content_type("x/SKILL.md"), "text/markdown");
        assert_eq!(content_type("x/scripts/run.PY"), "text/x-python");
        assert_eq!(content_type("x/LICENSE"), "application/octet-stream");
        assert_eq!(content_type("x/.md"), "application/octet-stream");
        assert_eq!(content_type("x/data.tar.gz"), "application/octet-stream");
    }
}
