//! The registry's connections: accepting them, bounding how many are open and how long each may
//! sit idle, and draining them on shutdown.
//!
//! `axum::serve` accepts every connection and waits forever for each: a few hundred idle TCP
//! connections, or clients that send half a request header and stop, are enough to exhaust the
//! process's file descriptors and make the registry unreachable. So the server drives hyper
//! itself:
//!
//! - at most `--max-connections` are served at once; the accept loop takes a permit *before*
//!   accepting, so further connections wait in the kernel's listen backlog, where they cost the
//!   process nothing, and are accepted as soon as one closes;
//! - a client has `--header-timeout` to send a request's headers, counted from the connection
//!   being accepted or from the previous answer on a kept-alive connection (hyper's
//!   `header_read_timeout`, so idle keep-alive connections are closed by the same timer);
//! - a connection that moves no bytes for `--idle-timeout` (a stalled upload, a download nobody
//!   reads) is closed, unless the server itself is busy on its behalf (see [`working`]);
//! - with `--tls-cert` and `--tls-key`, each connection is a TLS connection (rustls), whose
//!   handshake must finish within `--header-timeout` too.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tower_service::Service as _;

/// How long connections still busy after SIGINT or SIGTERM may take to finish.
const GRACE: Duration = Duration::from_secs(30);

/// Bounds on connections, set by `skillpkg registry serve`'s options.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct ConnectionLimits {
    /// Connections served at once; more wait (unanswered, in the listen backlog) until one
    /// closes. Keep it well under the open-file limit (ulimit -n): a download also holds a file
    #[arg(long, value_name = "N", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Seconds a client has to send a request's headers, from connecting or from the previous
    /// answer on a kept-alive connection (so idle keep-alive connections close after this too)
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout: u64,
    /// Seconds a connection may move no data (a stalled upload, a download nobody reads) before
    /// it is closed; time the server spends working on a request does not count
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout: u64,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            max_connections: 512,
            header_timeout: 10,
            idle_timeout: 60,
        }
    }
}

/// Serves `app` on `listener` within `limits` (over TLS with `tls`) until `shutdown`
/// completes, then lets the requests in flight finish (for up to 30 seconds) and returns.
pub async fn serve(
    listener: TcpListener,
    app: axum::Router,
    limits: ConnectionLimits,
    tls: Option<tokio_rustls::TlsAcceptor>,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections as usize));
    let (stop, stopped) = watch::channel(false);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(limits.header_timeout))
        .keep_alive(true);
    let idle = Duration::from_secs(limits.idle_timeout);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // The permit first: while every connection is taken, new ones wait in the backlog.
        let permit = tokio::select! {
            () = &mut shutdown => break,
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
        };
        let stream = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    refused(&error).await;
                    continue;
                }
            },
        };
        // Answers are written as soon as they are ready, not held back for more data.
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(
            stream,
            tls.clone(),
            permit,
            app.clone(),
            http.clone(),
            Duration::from_secs(limits.header_timeout),
            idle,
            stopped.clone(),
        ));
    }
    drop(listener);
    let _ = stop.send(true);
    // Every connection holds a permit until it ends, so all of them back means all closed.
    let _ = tokio::time::timeout(GRACE, permits.acquire_many(limits.max_connections)).await;
}

/// After a failed accept: a connection reset before it was accepted is nobody's problem; out of
/// file descriptors or memory, pause rather than spin (connections close meanwhile).
async fn refused(error: &io::Error) {
    if matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
    ) {
        return;
    }
    let line = serde_json::json!({ "error": format!("accepting a connection failed: {error}") });
    let _ = std::io::Write::write_all(
        &mut std::io::stderr().lock(),
        format!("{line}\n").as_bytes(),
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// Serves one connection until it ends, goes idle for too long, or the server stops: after
/// its TLS handshake, when there is one, which must finish within `handshake`.
#[expect(
    clippy::too_many_arguments,
    reason = "one connection's whole context, passed once"
)]
async fn connection(
    stream: TcpStream,
    tls: Option<tokio_rustls::TlsAcceptor>,
    permit: OwnedSemaphorePermit,
    app: axum::Router,
    http: http1::Builder,
    handshake: Duration,
    idle: Duration,
    stop: watch::Receiver<bool>,
) {
    let activity = Arc::new(Activity::new());
    let watched = Watched {
        stream,
        activity: activity.clone(),
    };
    match tls {
        None => serve_connection(watched, activity, app, http, idle, stop).await,
        Some(acceptor) => {
            // A client that connects and never finishes the handshake is dropped like one
            // that never sends its headers; a failed handshake is the client's business.
            if let Ok(Ok(secured)) = tokio::time::timeout(handshake, acceptor.accept(watched)).await
            {
                serve_connection(secured, activity, app, http, idle, stop).await;
            }
        }
    }
    drop(permit);
}

/// Serves HTTP/1.1 on `stream` until it ends, goes idle for too long, or the server stops.
async fn serve_connection<S>(
    stream: S,
    activity: Arc<Activity>,
    app: axum::Router,
    http: http1::Builder,
    idle: Duration,
    mut stop: watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let io = TokioIo::new(stream);
    let service = {
        let activity = activity.clone();
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            activity.requests.fetch_add(1, Ordering::Relaxed);
            let mut app = app.clone();
            ACTIVITY.scope(activity.clone(), async move { app.call(request).await })
        })
    };
    let connection = http.serve_connection(io, service);
    let mut connection = std::pin::pin!(connection);
    let mut stopping = false;
    loop {
        tokio::select! {
            // Errors (a header timeout, a client that hung up) end the connection; the client
            // has gone or is told by the closed socket.
            _ = connection.as_mut() => break,
            () = activity.idle_for(idle) => break,
            Ok(()) = stop.changed(), if !stopping => {
                stopping = true;
                // Nothing asked yet: nothing to finish. Otherwise hyper closes the connection
                // once the answer in flight is sent (at once if it is between requests).
                if activity.requests.load(Ordering::Relaxed) == 0 {
                    break;
                }
                connection.as_mut().graceful_shutdown();
            }
        }
    }
}

tokio::task_local! {
    /// The activity of the connection whose request is being handled.
    static ACTIVITY: Arc<Activity>;
}

/// Marks the connection of the request being handled as busy until the guard is dropped, so
/// that work that moves no bytes (a database call, checking an uploaded archive) is not taken
/// for an idle client. Outside a request it does nothing.
pub(crate) fn working() -> Option<Working> {
    ACTIVITY
        .try_with(|activity| {
            activity.working.fetch_add(1, Ordering::Relaxed);
            Working(activity.clone())
        })
        .ok()
}

/// See [`working`].
pub(crate) struct Working(Arc<Activity>);

impl Drop for Working {
    fn drop(&mut self) {
        self.0.touch();
        self.0.working.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What a connection's idle timer looks at.
struct Activity {
    born: Instant,
    /// When bytes last moved, in milliseconds after `born`.
    moved: AtomicU64,
    /// Server work under way for this connection (see [`working`]).
    working: AtomicUsize,
    /// Requests whose headers arrived.
    requests: AtomicU64,
}

impl Activity {
    fn new() -> Self {
        Self {
            born: Instant::now(),
            moved: AtomicU64::new(0),
            working: AtomicUsize::new(0),
            requests: AtomicU64::new(0),
        }
    }

    fn touch(&self) {
        let now = u64::try_from(self.born.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.moved.store(now, Ordering::Relaxed);
    }

    fn last_moved(&self) -> Instant {
        self.born + Duration::from_millis(self.moved.load(Ordering::Relaxed))
    }

    /// Completes once no bytes have moved for `idle` while the server was not working.
    async fn idle_for(&self, idle: Duration) {
        loop {
            tokio::time::sleep_until((self.last_moved() + idle).into()).await;
            if self.working.load(Ordering::Relaxed) > 0 {
                self.touch();
            } else if self.last_moved() + idle <= Instant::now() {
                return;
            }
        }
    }
}

/// A TCP stream that records when bytes move.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let result = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.touch();
        }
        result
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_write(cx, buf);
        if matches!(result, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.touch();
        }
        result
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        if matches!(result, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.touch();
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
