//! What every request passes before a handler sees it: only GET and HEAD,
//! no body, a bounded URI, and a `Host` that names this machine (a page on
//! another site whose name a DNS rebinding points here sends its own name).
//! Every response gets headers that keep the page to its own assets and
//! out of other sites' frames; none allows cross-origin reads.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::reply::error_response;

/// Longer URIs get 414: a query is at most `MAX_QUERY_CHARS` characters, a
/// few times that percent-encoded.
pub const MAX_URI_BYTES: usize = 32 * 1024;

const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
    form-action 'self'; frame-ancestors 'none'";

#[derive(Clone, Copy)]
pub struct Guard {
    port: u16,
    /// Bound to a loopback address: only loopback names are this machine.
    loopback_only: bool,
}

impl Guard {
    pub fn new(local: SocketAddr) -> Guard {
        Guard {
            port: local.port(),
            loopback_only: local.ip().is_loopback(),
        }
    }
}

pub async fn check(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    if let Some(refused) = refusal(guard, &request) {
        return secured(refused);
    }
    secured(next.run(request).await)
}

fn refusal(guard: Guard, request: &Request) -> Option<Response> {
    let method = request.method();
    if method != Method::GET && method != Method::HEAD {
        let mut response = error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{method} is not allowed: this server is read-only (GET, HEAD)"),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Some(response);
    }
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok());
    if !host.is_some_and(|h| host_allowed(h, guard.port, guard.loopback_only)) {
        return Some(error_response(
            StatusCode::FORBIDDEN,
            format!(
                "Host {:?} is not this machine: open http://127.0.0.1:{}/",
                host.unwrap_or(""),
                guard.port
            ),
        ));
    }
    let has_body = request.headers().contains_key(header::TRANSFER_ENCODING)
        || request
            .headers()
            .get(header::CONTENT_LENGTH)
            .is_some_and(|n| n != "0");
    if has_body {
        return Some(error_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            "requests carry no body here".to_string(),
        ));
    }
    let uri_length = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if uri_length > MAX_URI_BYTES {
        return Some(error_response(
            StatusCode::URI_TOO_LONG,
            format!("the address is longer than {MAX_URI_BYTES} bytes"),
        ));
    }
    None
}

/// Whether `host` (a `Host` header) names this server: a loopback name
/// (`localhost`, `127.0.0.1`, `[::1]`), or when bound beyond loopback any
/// IP address (a rebinding attack needs a name), with this port or none.
pub fn host_allowed(host: &str, port: u16, loopback_only: bool) -> bool {
    let (name, given_port) = match host.rsplit_once(':') {
        // `[::1]` alone has colons but no port.
        Some((name, p)) if !p.ends_with(']') => (name, Some(p)),
        _ => (host, None),
    };
    if given_port.is_some_and(|p| p.parse::<u16>() != Ok(port)) {
        return false;
    }
    if name.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let ip = match name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
        Some(v6) => v6.parse::<std::net::Ipv6Addr>().map(IpAddr::V6),
        None => name.parse::<std::net::Ipv4Addr>().map(IpAddr::V4),
    };
    ip.is_ok_and(|ip| ip.is_loopback() || !loopback_only)
}

/// The headers of every answer (`transport` writes them too).
pub const SECURITY_HEADERS: [(HeaderName, &str); 5] = [
    (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::REFERRER_POLICY, "no-referrer"),
    (header::CACHE_CONTROL, "no-cache"),
];

fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::host_allowed;

    #[test]
    fn loopback_names_with_this_port_or_none_are_allowed() {
        for host in [
            "localhost",
            "LOCALHOST:8765",
            "127.0.0.1",
            "127.0.0.1:8765",
            "[::1]",
            "[::1]:8765",
        ] {
            assert!(host_allowed(host, 8765, true), "{host}");
        }
    }

    #[test]
    fn other_names_ports_and_forms_are_refused() {
        for host in [
            "evil.example",
            "evil.example:8765",
            "localhost:8766",
            "localhost.",
            "127.0.0.1:",
            "127.0.0.1:99999",
            "localhost.evil.example",
            "192.168.1.5:8765",
            "[::1",
            "::1",
            "",
        ] {
            assert!(!host_allowed(host, 8765, true), "{host}");
        }
    }

    #[test]
    fn bound_beyond_loopback_ip_addresses_are_allowed_but_not_names() {
        assert!(host_allowed("192.168.1.5:8765", 8765, false));
        assert!(host_allowed("[fe80::1]:8765", 8765, false));
        assert!(!host_allowed("evil.example:8765", 8765, false));
    }
}
