//! The registry client: HTTP calls (ureq) with retries. Tokens on disk are [`super::credentials`].

use std::io::Read as _;
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::api::{ErrorBody, Me, Owners, Published, SearchResult, SkillInfo};

/// A failed call.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The registry answered with an error status.
    #[error("the registry said {status}: {detail}")]
    Status { status: u16, detail: String },
    /// No answer at all, after retries.
    #[error("cannot reach the registry at {url}: {message}")]
    Transport { url: String, message: String },
    #[error("the registry's answer was not what skillpkg expects: {0}")]
    Invalid(String),
}

/// A registry at `base`, with an optional token.
pub struct Client {
    base: String,
    token: Option<String>,
    agent: ureq::Agent,
}

/// How many times a connection failure or a 5xx is tried again, and the first pause.
const RETRIES: u32 = 4;
const BACKOFF: Duration = Duration::from_millis(200);

/// Builds one attempt of a request: the agent, the URL, and the `Authorization` header if any.
type MakeRequest<'a> = dyn Fn(&ureq::Agent, &str, Option<&str>) -> Result<ureq::http::Response<ureq::Body>, ureq::Error>
    + 'a;

impl Client {
    pub fn new(base: &str, token: Option<String>) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(300)))
            .build()
            .into();
        Self {
            base: base.trim_end_matches('/').to_owned(),
            token,
            agent,
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends a request made by `make`, retrying connection failures and 5xx with backoff.
    fn call(
        &self,
        path: &str,
        make: &MakeRequest<'_>,
    ) -> Result<ureq::http::Response<ureq::Body>, ClientError> {
        let url = self.url(path);
        let auth = self.token.as_ref().map(|token| format!("Bearer {token}"));
        let mut pause = BACKOFF;
        for attempt in 0..=RETRIES {
            match make(&self.agent, &url, auth.as_deref()) {
                Ok(response) if response.status().is_server_error() && attempt < RETRIES => {}
                Ok(response) => return Ok(response),
                Err(error) if attempt == RETRIES => {
                    return Err(ClientError::Transport {
                        url,
                        message: error.to_string(),
                    });
                }
                Err(_) => {}
            }
            std::thread::sleep(pause);
            pause *= 2;
        }
        Err(ClientError::Transport {
            url,
            message: "no answer".into(),
        })
    }

    fn json<T: DeserializeOwned>(
        mut response: ureq::http::Response<ureq::Body>,
    ) -> Result<T, ClientError> {
        let status = response.status().as_u16();
        let mut text = String::new();
        response
            .body_mut()
            .as_reader()
            .take(64 * 1024 * 1024)
            .read_to_string(&mut text)
            .map_err(|error| ClientError::Invalid(error.to_string()))?;
        if !(200..300).contains(&status) {
            let detail = serde_json::from_str::<ErrorBody>(&text)
                .ok()
                .and_then(|body| body.errors.into_iter().next())
                .map_or_else(|| text.chars().take(200).collect(), |error| error.detail);
            return Err(ClientError::Status { status, detail });
        }
        serde_json::from_str(&text).map_err(|error| ClientError::Invalid(error.to_string()))
    }

    pub fn me(&self) -> Result<Me, ClientError> {
        Self::json(self.call("/api/v1/me", &|agent, url, auth| {
            with_auth(agent.get(url), auth).call()
        })?)
    }

    /// An anonymous `GET` of JSON.
    fn get_json<T: DeserializeOwned>(&self, path: &str) -> Result<T, ClientError> {
        Self::json(self.call(path, &|agent, url, _| agent.get(url).call())?)
    }

    pub fn search(&self, query: &str, page: usize) -> Result<SearchResult, ClientError> {
        self.get_json(&format!("/api/v1/skills?q={}&page={page}", encode(query)))
    }

    pub fn info(&self, name: &str) -> Result<SkillInfo, ClientError> {
        self.get_json(&format!("/api/v1/skills/{}", encode(name)))
    }

    pub fn publish(
        &self,
        name: &str,
        version: &str,
        archive: &[u8],
        checksum: &str,
        progress: &dyn Fn(u64),
    ) -> Result<Published, ClientError> {
        let path = format!("/api/v1/skills/{}/{}", encode(name), encode(version));
        Self::json(self.call(&path, &|agent, url, auth| {
            // Each attempt sends the archive from its start, reporting bytes as they go out.
            let mut reader = Progress {
                rest: archive,
                sent: 0,
                report: progress,
            };
            progress(0);
            with_auth(agent.put(url), auth)
                .header("x-checksum-sha256", checksum)
                .header("content-type", "application/zip")
                .header("content-length", archive.len().to_string())
                .send(ureq::SendBody::from_reader(&mut reader))
        })?)
    }

    pub fn download(&self, name: &str, version: &str) -> Result<Vec<u8>, ClientError> {
        let path = format!(
            "/api/v1/skills/{}/{}/download",
            encode(name),
            encode(version)
        );
        let mut response = self.call(&path, &|agent, url, _| agent.get(url).call())?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Self::json::<serde_json::Value>(response).map(|_| Vec::new());
        }
        let mut bytes = Vec::new();
        response
            .body_mut()
            .as_reader()
            .take(512 * 1024 * 1024)
            .read_to_end(&mut bytes)
            .map_err(|error| ClientError::Transport {
                url: self.url(&path),
                message: error.to_string(),
            })?;
        Ok(bytes)
    }

    pub fn yank(&self, name: &str, version: &str, undo: bool) -> Result<(), ClientError> {
        let path = if undo {
            format!("/api/v1/skills/{}/{}/unyank", encode(name), encode(version))
        } else {
            format!("/api/v1/skills/{}/{}", encode(name), encode(version))
        };
        let response = self.call(&path, &|agent, url, auth| {
            if undo {
                with_auth(agent.put(url), auth).send_empty()
            } else {
                with_auth(agent.delete(url), auth).call()
            }
        })?;
        Self::json::<serde_json::Value>(response).map(|_| ())
    }

    pub fn owners(&self, name: &str) -> Result<Owners, ClientError> {
        self.get_json(&format!("/api/v1/skills/{}/owners", encode(name)))
    }

    pub fn change_owners(
        &self,
        name: &str,
        users: &[String],
        add: bool,
    ) -> Result<(), ClientError> {
        let path = format!("/api/v1/skills/{}/owners", encode(name));
        let body = Owners {
            users: users.to_vec(),
        };
        let response = self.call(&path, &|agent, url, auth| {
            if add {
                with_auth(agent.put(url), auth).send_json(&body)
            } else {
                with_auth(agent.delete(url), auth)
                    .force_send_body()
                    .send_json(&body)
            }
        })?;
        Self::json::<serde_json::Value>(response).map(|_| ())
    }
}

fn with_auth<B>(request: ureq::RequestBuilder<B>, auth: Option<&str>) -> ureq::RequestBuilder<B> {
    match auth {
        Some(value) => request.header("authorization", value),
        None => request,
    }
}

/// Percent-encodes a URL path segment or query value.
fn encode(text: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// A reader over the archive that reports how many bytes have been read (and so sent).
struct Progress<'a> {
    rest: &'a [u8],
    sent: u64,
    report: &'a dyn Fn(u64),
}

impl std::io::Read for Progress<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.rest.read(buf)?;
        self.sent += n as u64;
        (self.report)(self.sent);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::io::Read as _;

    use super::Progress;

    #[test]
    fn progress_reports_every_byte_read_in_order() {
        let archive = vec![7_u8; 100_000];
        let seen = RefCell::new(Vec::new());
        let report = |sent| seen.borrow_mut().push(sent);
        let mut reader = Progress {
            rest: &archive,
            sent: 0,
            report: &report,
        };
        let mut out = Vec::new();
        let mut buf = [0_u8; 8192];
        loop {
            let n = reader.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        assert_eq!(out, archive);
        let seen = seen.into_inner();
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        assert_eq!(seen.last(), Some(&100_000));
        assert!(seen.len() > 10, "reported as it goes, not once at the end");
    }
}
