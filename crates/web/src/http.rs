//! The HTTP/1.1 server under `serve`, on hyper (the HTTP library of the Rust ecosystem
//! that tokio's and most Rust web servers are built on).
//!
//! What this layer adds to hyper, and answers in JSON (`{"error": "..."}`):
//! - the `Host` header must name the loopback (`127.0.0.1`, `localhost`, `[::1]`) or the
//!   host the server was told to listen on ([`Hosts`]), so that a web page from elsewhere
//!   cannot reach the server through DNS rebinding (400);
//! - bodies are bounded by [`Limits::max_body_bytes`] (413) and must come with
//!   `Content-Length` (chunked bodies get 411); headers by [`Limits::max_header_bytes`]
//!   (hyper answers 431);
//! - a request's headers must arrive within [`Limits::timeout`] (hyper closes the
//!   connection) and its body too (408); a connection lives at most [`CONNECTION_LIFETIME`]
//!   timeouts, keep-alive included;
//! - at most [`Limits::max_connections`] connections are served at once; the next get 503
//!   and are closed;
//! - a handler that panics answers 500, and the server goes on.
//!
//! Handlers block (an agent's search can take seconds), so they run on tokio's blocking
//! threads, never on the threads that drive connections.

use std::convert::Infallible;
use std::io;
use std::net::TcpListener;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Serialize;

/// How many [`Limits::timeout`]s a connection may stay open, however busy.
pub const CONNECTION_LIFETIME: u32 = 30;

/// Which `Host` headers the server answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hosts {
    /// The loopback only (the default).
    Loopback,
    /// The loopback and this host name or address (`serve --host`).
    Also(String),
    /// Any (`serve --host 0.0.0.0`: the server cannot know the names it is reached by).
    Any,
}

impl Hosts {
    /// Whether a request whose `Host` header is `host` is answered.
    pub fn allow(&self, host: &str) -> bool {
        let name = host_name(host);
        match self {
            Hosts::Any => true,
            Hosts::Loopback => is_loopback(&name),
            Hosts::Also(extra) => is_loopback(&name) || name == host_name(extra),
        }
    }
}

/// Bounds on what one client can make the server do.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The request line and headers, in bytes.
    pub max_header_bytes: usize,
    /// The body, in bytes.
    pub max_body_bytes: usize,
    /// Connections served at once.
    pub max_connections: usize,
    /// How long headers, or a body, may take to arrive.
    pub timeout: Duration,
    /// The `Host` headers answered.
    pub hosts: Hosts,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_header_bytes: 16 * 1024,
            max_body_bytes: 64 * 1024,
            max_connections: 64,
            timeout: Duration::from_secs(10),
            hosts: Hosts::Loopback,
        }
    }
}

/// A request as the handler sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, ... as sent.
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    /// The body, `Content-Length` bytes.
    pub body: Vec<u8>,
}

/// A response: a status, a content type and a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type` header.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON body.
    pub fn json(status: u16, value: &impl Serialize) -> Response {
        Response {
            status,
            content_type: "application/json",
            body: serde_json::to_vec(value).expect("our response types always serialize"),
        }
    }

    /// `{"error": message}` with this status.
    pub fn error(status: u16, message: &str) -> Response {
        Response::json(status, &serde_json::json!({ "error": message }))
    }

    /// A static asset.
    pub fn asset(content_type: &'static str, text: &'static str) -> Response {
        Response {
            status: 200,
            content_type,
            body: text.as_bytes().to_vec(),
        }
    }
}

/// What answers requests; called from many threads at once.
pub type Handler = Arc<dyn Fn(&Request) -> Response + Send + Sync>;

/// Serves `listener` until the process ends.
pub fn serve(listener: TcpListener, handler: Handler, limits: Limits) -> io::Result<()> {
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("zerosum-http")
        .enable_all()
        .build()?;
    runtime.block_on(accept(listener, handler, Arc::new(limits)))
}

async fn accept(listener: TcpListener, handler: Handler, limits: Arc<Limits>) -> io::Result<()> {
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let active = Arc::new(AtomicUsize::new(0));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // A client that gave up before we accepted it, or a passing lack of file
            // descriptors: nothing to answer; wait a moment and go on.
            Err(e) => {
                tracing::debug!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let guard = ActiveGuard::enter(&active);
        let over = guard.count > limits.max_connections;
        let (handler, limits) = (handler.clone(), limits.clone());
        tokio::spawn(async move {
            let _guard = guard;
            let lifetime = limits.timeout * CONNECTION_LIFETIME;
            let mut builder = http1::Builder::new();
            // A client that shuts its side after the request still gets the answer.
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.timeout)
                .max_header_size(limits.max_header_bytes)
                .half_close(true)
                .keep_alive(!over);
            let service = service_fn(move |request| {
                let (handler, limits) = (handler.clone(), limits.clone());
                async move { Ok::<_, Infallible>(answer(request, over, handler, &limits).await) }
            });
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            let _ = tokio::time::timeout(lifetime, connection).await;
        });
    }
}

/// Counts a connection while it is served.
struct ActiveGuard {
    active: Arc<AtomicUsize>,
    /// Connections open with this one.
    count: usize,
}

impl ActiveGuard {
    fn enter(active: &Arc<AtomicUsize>) -> ActiveGuard {
        let count = active.fetch_add(1, Ordering::SeqCst) + 1;
        ActiveGuard {
            active: active.clone(),
            count,
        }
    }
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.active.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The answer to one request: read within the limits, handled on a blocking thread.
async fn answer(
    request: hyper::Request<Incoming>,
    over: bool,
    handler: Handler,
    limits: &Limits,
) -> hyper::Response<Full<Bytes>> {
    if over {
        return to_hyper(
            Response::error(503, "too many connections; try again"),
            true,
        );
    }
    let request = match read(request, limits).await {
        Ok(request) => request,
        // The rest of a refused request is not read: the connection ends with the answer.
        Err(refusal) => return to_hyper(refusal, true),
    };
    let handled =
        tokio::task::spawn_blocking(move || catch_unwind(AssertUnwindSafe(|| handler(&request))))
            .await;
    let response = match handled {
        Ok(Ok(response)) => response,
        _ => Response::error(500, "internal error (a bug: please report it)"),
    };
    to_hyper(response, false)
}

/// The request as the handler sees it, or the answer that refuses it.
async fn read(request: hyper::Request<Incoming>, limits: &Limits) -> Result<Request, Response> {
    let bad = Response::error;
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .or_else(|| request.uri().authority().map(|a| a.to_string()));
    match host {
        None => return Err(bad(400, "missing Host header")),
        Some(host) if !limits.hosts.allow(&host) => return Err(bad(
            400,
            "this server answers only requests addressed to 127.0.0.1 or localhost (or its --host)",
        )),
        Some(_) => {}
    }
    if request.headers().contains_key(header::TRANSFER_ENCODING) {
        return Err(bad(
            411,
            "chunked bodies are not accepted; send Content-Length",
        ));
    }
    let announced = match request.headers().get(header::CONTENT_LENGTH) {
        None => 0,
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .ok_or_else(|| bad(400, "Content-Length is not a number"))?,
    };
    if announced > limits.max_body_bytes as u64 {
        return Err(bad(413, "request body too large"));
    }
    let method = request.method().as_str().to_string();
    let path = request.uri().path().to_string();
    let body = Limited::new(request.into_body(), limits.max_body_bytes).collect();
    let body = match tokio::time::timeout(limits.timeout, body).await {
        Err(_) => return Err(bad(408, "request timed out")),
        Ok(Err(_)) => return Err(bad(400, "the request ended before its body did")),
        Ok(Ok(collected)) => collected.to_bytes().to_vec(),
    };
    Ok(Request { method, path, body })
}

fn to_hyper(response: Response, close: bool) -> hyper::Response<Full<Bytes>> {
    let mut builder = hyper::Response::builder()
        .status(response.status)
        .header(header::CONTENT_TYPE, response.content_type)
        .header(header::CACHE_CONTROL, "no-store")
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    if close {
        builder = builder.header(header::CONNECTION, "close");
    }
    builder
        .body(Full::new(Bytes::from(response.body)))
        .unwrap_or_else(|_| hyper::Response::new(Full::new(Bytes::new())))
}

/// The name in a `Host` header, without its port, lower case.
fn host_name(host: &str) -> String {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    name.to_ascii_lowercase()
}

fn is_loopback(name: &str) -> bool {
    matches!(name, "127.0.0.1" | "localhost" | "::1")
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpStream};
    use std::time::Instant;

    use super::*;

    #[test]
    fn loopback_hosts() {
        let loopback = Hosts::Loopback;
        for host in [
            "127.0.0.1",
            "127.0.0.1:80",
            "localhost:8080",
            "LOCALHOST",
            "[::1]:9",
        ] {
            assert!(loopback.allow(host), "{host}");
        }
        for host in [
            "example.com",
            "127.0.0.2",
            "10.0.0.1:80",
            "localhost.evil:80",
        ] {
            assert!(!loopback.allow(host), "{host}");
        }
        let lan = Hosts::Also("192.168.1.5".into());
        assert!(lan.allow("192.168.1.5:8080") && lan.allow("localhost"));
        assert!(!lan.allow("evil.example"));
        assert!(Hosts::Any.allow("evil.example"));
    }

    /// A server on a free loopback port that echoes the body's length, or panics on
    /// `/panic`, or sleeps on `/slow`.
    fn start(limits: Limits) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let handler: Handler = Arc::new(|request: &Request| match request.path.as_str() {
            "/panic" => panic!("a handler bug"),
            "/slow" => {
                std::thread::sleep(Duration::from_millis(500));
                Response::json(200, &0)
            }
            _ => Response::json(200, &request.body.len()),
        });
        std::thread::spawn(move || serve(listener, handler, limits));
        address
    }

    /// Sends `bytes` on a new connection and returns the status and the body of the
    /// answer (the server closes refused requests; others say `Connection: close`).
    fn exchange(address: SocketAddr, bytes: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let _ = stream.write_all(bytes);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let body = answer
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        (status, body)
    }

    fn small() -> Limits {
        Limits {
            max_header_bytes: 1024,
            max_body_bytes: 16,
            max_connections: 4,
            timeout: Duration::from_millis(500),
            hosts: Hosts::Loopback,
        }
    }

    #[test]
    fn refuses_what_is_out_of_bounds_or_malformed_in_json() {
        let address = start(small());
        let close = "Connection: close\r\n";
        let ask = |text: String| exchange(address, text.as_bytes());
        let (status, body) = ask(format!(
            "POST /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n{close}Content-Length: 4\r\n\r\n{{}}{{}}"
        ));
        assert_eq!((status, body.as_str()), (200, "4"));
        let json = |(status, body): (u16, String)| {
            let value: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert!(value["error"].is_string(), "{body}");
            status
        };
        assert_eq!(
            json(ask(format!("GET / HTTP/1.1\r\n{close}\r\n"))),
            400,
            "no Host"
        );
        assert_eq!(
            json(ask(format!(
                "GET / HTTP/1.1\r\nHost: evil.example\r\n{close}\r\n"
            ))),
            400
        );
        assert_eq!(
            json(ask(
                "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 17\r\n\r\n".into()
            )),
            413
        );
        assert_eq!(
            json(ask(
                "POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                    .into()
            )),
            411
        );
        assert_eq!(
            json(ask(format!(
                "GET /panic HTTP/1.1\r\nHost: localhost\r\n{close}\r\n"
            ))),
            500
        );
        // A body that stalls.
        assert_eq!(
            json(ask(
                "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nab".into()
            )),
            408
        );
        // hyper's own refusals: headers too large, garbage.
        let long = format!(
            "GET / HTTP/1.1\r\nHost: localhost\r\nX: {}\r\n\r\n",
            "y".repeat(2000)
        );
        assert_eq!(ask(long).0, 431);
        assert_eq!(ask("hello there\r\n\r\n".into()).0, 400);
        // After all that, and a panic, the server still answers.
        let (status, _) = ask(format!("GET / HTTP/1.1\r\nHost: [::1]\r\n{close}\r\n"));
        assert_eq!(status, 200);
    }

    #[test]
    fn slow_clients_are_cut_off_and_extra_connections_get_503() {
        let address = start(small());
        // Headers that never end: the connection is closed after the timeout.
        let start_time = Instant::now();
        let (status, _) = exchange(address, b"GET / HTTP/1.1\r\nHost: localhost\r\n");
        assert!(status == 0 || status == 408, "{status}");
        assert!(start_time.elapsed() < Duration::from_secs(10));
        // Four connections held open with slow requests; a fifth is turned away.
        let held: Vec<TcpStream> = (0..4)
            .map(|_| {
                let mut stream = TcpStream::connect(address).unwrap();
                stream
                    .write_all(b"GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .unwrap();
                stream
            })
            .collect();
        std::thread::sleep(Duration::from_millis(100));
        let (status, body) = exchange(
            address,
            b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(status, 503, "{body}");
        drop(held);
    }
}
