//! The HTTP front (tiny_http): one thread per request, so that a request
//! that never finishes its body, or a PLAY being computed, holds up no
//! other; bodies are read up to [`MAX_BODY`] bytes and must be UTF-8.
//! Answers carry `Content-Type: text/acl`, their length and the CORS
//! headers of ggp-base's players.

use crate::{Loader, Player};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tiny_http::{Header, Method, Request, Response, Server};

/// Largest request body read: the biggest published descriptions are a
/// few hundred kilobytes.
pub const MAX_BODY: usize = 4 << 20;
/// Most requests served at once; past that a request is answered 503.
pub const MAX_REQUESTS: usize = 64;

/// Serves `player` on `server` until the server fails.
pub fn serve<L: Loader>(server: Server, player: Arc<Player<L>>) {
    let active = Arc::new(AtomicUsize::new(0));
    for request in server.incoming_requests() {
        let received = Instant::now();
        if active.fetch_add(1, Ordering::SeqCst) >= MAX_REQUESTS {
            active.fetch_sub(1, Ordering::SeqCst);
            respond(request, 503, "too many requests at once".into());
            continue;
        }
        let player = Arc::clone(&player);
        let done = Arc::clone(&active);
        let spawned = std::thread::Builder::new()
            .name("request".into())
            .spawn(move || {
                answer(request, &player, received);
                done.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            active.fetch_sub(1, Ordering::SeqCst);
            eprintln!("gdlc-player: cannot start a request thread: {e}");
        }
    }
}

fn answer<L: Loader>(mut request: Request, player: &Player<L>, received: Instant) {
    match request.method() {
        Method::Post => {}
        Method::Options => return respond(request, 200, "ok".into()),
        other => {
            let why = format!("method {other} not allowed: GGP messages are POSTed");
            return respond(request, 405, why);
        }
    }
    if request.body_length().is_some_and(|n| n > MAX_BODY) {
        return respond(
            request,
            413,
            format!("a request body is at most {MAX_BODY} bytes"),
        );
    }
    let mut bytes = Vec::new();
    let read = request
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut bytes);
    if let Err(e) = read {
        eprintln!("gdlc-player: cannot read a request: {e}");
        return respond(request, 400, format!("cannot read the request: {e}"));
    }
    if bytes.len() > MAX_BODY {
        return respond(
            request,
            413,
            format!("a request body is at most {MAX_BODY} bytes"),
        );
    }
    let Ok(body) = String::from_utf8(bytes) else {
        eprintln!("gdlc-player: answered 400: the body is not UTF-8");
        return respond(request, 400, "the body is not UTF-8".into());
    };
    let reply = player.handle(&body, received);
    respond(request, reply.status, reply.body);
    if let Some(deadline) = reply.deadline {
        player.answered(deadline, Instant::now());
    }
}

fn respond(request: Request, status: u16, body: String) {
    let headers = [
        ("Content-Type", "text/acl"),
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Allow-Methods", "POST, GET, OPTIONS"),
        ("Access-Control-Allow-Headers", "Content-Type"),
        ("Access-Control-Allow-Age", "86400"),
    ];
    let mut response = Response::from_string(body).with_status_code(status);
    for (name, value) in headers {
        if let Ok(h) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(h);
        }
    }
    if let Err(e) = request.respond(response) {
        eprintln!("gdlc-player: cannot send an answer: {e}");
    }
}
