//! A tiny HTTP/1.1 server on `std::net`, enough for one page and a JSON API on loopback.
//!
//! One thread per connection, at most [`Limits::max_connections`] at once (more get a 503
//! at once); one request per connection (`Connection: close`), so there is no keep-alive
//! state to get wrong. Requests are bounded: headers by [`Limits::max_header_bytes`]
//! (431), bodies by [`Limits::max_body_bytes`] (413) and announced by `Content-Length`
//! (chunked bodies get 411), and reads and writes time out after [`Limits::timeout`]
//! (408 for a request that stalls). The `Host` header must name the loopback
//! (`127.0.0.1`, `localhost`, `[::1]`), so that a web page from elsewhere cannot reach the
//! server through DNS rebinding. Every error is JSON: `{"error": "..."}`.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

/// Bounds on what one client can make the server do.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The request line and headers, in bytes.
    pub max_header_bytes: usize,
    /// The body, in bytes.
    pub max_body_bytes: usize,
    /// Connections served at once.
    pub max_connections: usize,
    /// How long a read or a write may wait.
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_header_bytes: 16 * 1024,
            max_body_bytes: 64 * 1024,
            max_connections: 64,
            timeout: Duration::from_secs(10),
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

/// Serves `listener` forever, each connection on its own thread.
pub fn serve(listener: TcpListener, handler: Handler, limits: Limits) -> io::Result<()> {
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let mut stream = match stream {
            Ok(stream) => stream,
            // A client that gave up before we accepted it, or a transient lack of file
            // descriptors: nothing to answer, go on.
            Err(e) => {
                tracing::debug!("accept failed: {e}");
                continue;
            }
        };
        let _ = stream.set_read_timeout(Some(limits.timeout));
        let _ = stream.set_write_timeout(Some(limits.timeout));
        if active.fetch_add(1, Ordering::SeqCst) >= limits.max_connections {
            active.fetch_sub(1, Ordering::SeqCst);
            respond(
                &mut stream,
                &Response::error(503, "too many connections; try again"),
            );
            continue;
        }
        let guard = ActiveGuard(active.clone());
        let handler = handler.clone();
        let limits = limits.clone();
        let spawned = std::thread::Builder::new()
            .name("zerosum-http".to_string())
            .spawn(move || {
                let _guard = guard;
                handle_connection(stream, &handler, &limits);
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start a connection thread: {e}");
        }
    }
    Ok(())
}

/// Decrements the count of active connections when the connection's thread ends.
struct ActiveGuard(Arc<AtomicUsize>);

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn handle_connection(mut stream: TcpStream, handler: &Handler, limits: &Limits) {
    let response = match read_request(&mut stream, limits) {
        Ok(request) => match catch_unwind(AssertUnwindSafe(|| handler(&request))) {
            Ok(response) => response,
            Err(_) => Response::error(500, "internal error (a bug: please report it)"),
        },
        Err(ReadError::Closed) => return,
        Err(ReadError::Respond(response)) => response,
    };
    respond(&mut stream, &response);
}

/// Writes `response`, then closes the connection gently: the client's unread bytes (a
/// body we refused) are drained for a moment, so that it gets the answer rather than a reset.
fn respond(stream: &mut TcpStream, response: &Response) {
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
         Connection: close\r\n\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len()
    );
    let written = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(&response.body))
        .and_then(|()| stream.flush());
    if written.is_err() {
        return;
    }
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut sink = [0u8; 4096];
    let mut drained = 0;
    while drained < 1 << 20 {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}

/// Why no request came out of a connection.
#[derive(Debug)]
enum ReadError {
    /// The client went away before sending a request: nothing to answer.
    Closed,
    /// The request was bad: send this answer.
    Respond(Response),
}

/// Reads one request from `stream` within `limits`.
fn read_request(stream: &mut impl Read, limits: &Limits) -> Result<Request, ReadError> {
    let bad = |status: u16, message: &str| ReadError::Respond(Response::error(status, message));
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = find(&buffer, b"\r\n\r\n") {
            break end;
        }
        if buffer.len() > limits.max_header_bytes {
            return Err(bad(431, "request headers too large"));
        }
        match stream.read(&mut chunk) {
            Ok(0) if buffer.is_empty() => return Err(ReadError::Closed),
            Ok(0) => return Err(bad(400, "the request ended before its headers did")),
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            Err(e) if is_timeout(&e) => return Err(bad(408, "request timed out")),
            Err(_) => return Err(ReadError::Closed),
        }
    };
    if head_end > limits.max_header_bytes {
        return Err(bad(431, "request headers too large"));
    }
    let head = std::str::from_utf8(&buffer[..head_end])
        .map_err(|_| bad(400, "request headers are not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad(400, "malformed request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(bad(505, "only HTTP/1.x is spoken here"));
    }
    let mut content_length = 0usize;
    let mut host = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(bad(400, "malformed header line"));
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => {
                content_length = value
                    .parse()
                    .map_err(|_| bad(400, "Content-Length is not a number"))?;
            }
            "transfer-encoding" => {
                return Err(bad(
                    411,
                    "chunked bodies are not accepted; send Content-Length",
                ))
            }
            "host" => host = Some(value.to_string()),
            _ => {}
        }
    }
    match host {
        None => return Err(bad(400, "missing Host header")),
        Some(host) if !is_loopback_host(&host) => {
            return Err(bad(
                400,
                "this server answers only requests addressed to 127.0.0.1 or localhost",
            ))
        }
        Some(_) => {}
    }
    if content_length > limits.max_body_bytes {
        return Err(bad(413, "request body too large"));
    }
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < content_length {
        match stream.read(&mut chunk) {
            Ok(0) => return Err(bad(400, "the request ended before its body did")),
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(e) if is_timeout(&e) => return Err(bad(408, "request timed out")),
            Err(_) => return Err(ReadError::Closed),
        }
    }
    body.truncate(content_length);
    // Origin form (`/path?query`) or absolute form (`http://host/path`).
    let path = match target.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => target,
    };
    let path = path.split(['?', '#']).next().unwrap_or("/").to_string();
    Ok(Request {
        method: method.to_string(),
        path,
        body,
    })
}

/// Whether a `Host` header names the loopback (any port).
fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    matches!(
        name.to_ascii_lowercase().as_str(),
        "127.0.0.1" | "localhost" | "::1"
    )
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The reason phrase of the statuses this server sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Request, u16> {
        let limits = Limits {
            max_header_bytes: 256,
            max_body_bytes: 16,
            ..Limits::default()
        };
        read_request(&mut text.as_bytes(), &limits).map_err(|e| match e {
            ReadError::Closed => 0,
            ReadError::Respond(r) => r.status,
        })
    }

    #[test]
    fn parses_a_post_with_a_body() {
        let request = read(
            "POST /api/games?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\
             Content-Length: 4\r\n\r\n{}{}",
        )
        .unwrap();
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/api/games");
        assert_eq!(request.body, b"{}{}");
    }

    #[test]
    fn refuses_what_is_out_of_bounds_or_malformed() {
        let host = "Host: localhost\r\n";
        assert_eq!(read(""), Err(0));
        assert_eq!(read("GET / HTTP/1.1\r\n"), Err(400));
        assert_eq!(read("GET /\r\n\r\n"), Err(400));
        assert_eq!(read("GET / HTTP/2\r\n\r\n"), Err(505));
        assert_eq!(read("GET / HTTP/1.1\r\n\r\n"), Err(400), "no Host");
        assert_eq!(
            read("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n"),
            Err(400)
        );
        let long = format!("GET / HTTP/1.1\r\n{host}X: {}\r\n\r\n", "y".repeat(300));
        assert_eq!(read(&long), Err(431));
        let big = format!("POST / HTTP/1.1\r\n{host}Content-Length: 17\r\n\r\n");
        assert_eq!(read(&big), Err(413));
        let chunked = format!("POST / HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\n\r\n");
        assert_eq!(read(&chunked), Err(411));
        let short = format!("POST / HTTP/1.1\r\n{host}Content-Length: 5\r\n\r\nab");
        assert_eq!(read(&short), Err(400));
        let nan = format!("POST / HTTP/1.1\r\n{host}Content-Length: x\r\n\r\n");
        assert_eq!(read(&nan), Err(400));
    }

    #[test]
    fn loopback_hosts() {
        for host in [
            "127.0.0.1",
            "127.0.0.1:80",
            "localhost:8080",
            "LOCALHOST",
            "[::1]:9",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "example.com",
            "127.0.0.2",
            "10.0.0.1:80",
            "localhost.evil:80",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }
}
