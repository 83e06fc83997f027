//! The protocol's edge cases over HTTP: malformed requests get an HTTP
//! error or a logged no-op and the match goes on; INFO and ABORT are
//! answered at once while a PLAY is being computed; one match at a time.

use crate::common;

use common::{game, post, read_answer, spawn_player, start_message};
use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn start_tictactoe(port: u16, id: &str, play_clock: u64) {
    let start = post(
        port,
        start_message(id, "xplayer", &game("tictactoe.kif"), 10, play_clock).as_bytes(),
    );
    assert_eq!((start.status, start.body.as_str()), (200, "ready"));
}

#[test]
fn malformed_requests_get_errors_and_the_match_goes_on() {
    let port = spawn_player(1);
    // A connection that sends nothing, and one that stops inside its body,
    // stay open through the whole test.
    let silent = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut partial = TcpStream::connect(("127.0.0.1", port)).unwrap();
    partial
        .write_all(b"POST / HTTP/1.0\r\nContent-Length: 100\r\n\r\n( INF")
        .unwrap();
    start_tictactoe(port, "m.1", 1);
    let status = |body: &[u8]| post(port, body).status;
    assert_eq!(status(b"( PLAY m.1 NIL"), 400, "unclosed parenthesis");
    assert_eq!(status(b"( PLAY m.1 NIL ) )"), 400, "unmatched parenthesis");
    assert_eq!(status(b""), 400, "empty body");
    assert_eq!(status(b"( HELLO m.1 )"), 400, "unknown message");
    assert_eq!(status(b"( PLAY m.1 )"), 400, "missing moves");
    assert_eq!(status(b"( PLAY m.1 \xff\xfe )"), 400, "not UTF-8");
    let big = vec![b' '; 5 << 20];
    assert_eq!(status(&big), 413, "a 5 MB body");
    let wrong_id = post(port, b"( PLAY other.7 NIL )");
    assert_eq!((wrong_id.status, wrong_id.body.as_str()), (200, "busy"));
    // The first PLAY, then joint moves of the wrong length, not legal, or
    // not moves at all: refused, and the state stays as it was.
    let first = post(port, b"( play m.1 nil )");
    assert_eq!(first.status, 200);
    let mv = first.body;
    for bad in [
        format!("( PLAY m.1 ( {mv} ) )"),
        format!("( PLAY m.1 ( {mv} noop noop ) )"),
        format!("( PLAY m.1 ( {mv} ( mark 1 1 ) ) )"),
        "( PLAY m.1 ( ( mark 9 9 ) noop ) )".to_string(),
        "( PLAY m.1 ( ?x noop ) )".to_string(),
    ] {
        assert_eq!(post(port, bad.as_bytes()).status, 400, "{bad}");
    }
    let next = post(port, format!("( PLAY m.1 ( {mv} noop ) )").as_bytes());
    assert_eq!((next.status, next.body.as_str()), (200, "noop"));
    let info = post(port, b"( info )");
    assert_eq!(info.body, "( ( name tester ) ( status busy ) )");
    let abort = post(port, b"( ABORT m.1 )");
    assert_eq!((abort.status, abort.body.as_str()), (200, "aborted"));
    let info = post(port, b"( INFO )");
    assert_eq!(info.body, "( ( name tester ) ( status available ) )");
    drop(silent);
    drop(partial);
}

#[test]
fn info_and_abort_are_answered_while_a_play_is_computed() {
    let port = spawn_player(1);
    start_tictactoe(port, "m.2", 4);
    let started = Instant::now();
    let play = std::thread::spawn(move || post(port, b"( PLAY m.2 NIL )"));
    std::thread::sleep(Duration::from_millis(300));
    let info = post(port, b"( INFO )");
    assert_eq!(info.body, "( ( name tester ) ( status busy ) )");
    assert!(
        info.took < Duration::from_millis(500),
        "INFO took {:?}",
        info.took
    );
    let abort = post(port, b"( ABORT m.2 )");
    assert_eq!(abort.body, "aborted");
    assert!(
        abort.took < Duration::from_millis(500),
        "ABORT took {:?}",
        abort.took
    );
    // The PLAY being computed ends at once, not at its deadline.
    let play = play.join().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(play.status, 400, "{}", play.body);
    let info = post(port, b"( INFO )");
    assert_eq!(info.body, "( ( name tester ) ( status available ) )");
}

#[test]
fn one_match_at_a_time() {
    let port = spawn_player(1);
    start_tictactoe(port, "m.3", 1);
    let second = post(
        port,
        start_message("m.4", "xplayer", &game("tictactoe.kif"), 10, 1).as_bytes(),
    );
    assert_eq!((second.status, second.body.as_str()), (200, "busy"));
    assert_eq!(post(port, b"( STOP m.3 NIL )").body, "done");
    start_tictactoe(port, "m.4", 1);
    assert_eq!(post(port, b"( ABORT m.4 )").body, "aborted");
}

#[test]
fn bad_descriptions_and_roles_are_refused_at_start() {
    let port = spawn_player(1);
    let invalid = post(port, b"( START m.5 a ( ( role a ) ( <= p ?x ) ) 10 1 )");
    assert_eq!(invalid.status, 400, "{}", invalid.body);
    let no_role = post(
        port,
        start_message("m.6", "zplayer", &game("tictactoe.kif"), 10, 1).as_bytes(),
    );
    assert_eq!(no_role.status, 400, "{}", no_role.body);
    assert!(no_role.body.contains("no role"), "{}", no_role.body);
    let info = post(port, b"( INFO )");
    assert_eq!(info.body, "( ( name tester ) ( status available ) )");
}

#[test]
fn other_methods_and_options() {
    let port = spawn_player(1);
    let mut get = TcpStream::connect(("127.0.0.1", port)).unwrap();
    get.write_all(b"GET /hello HTTP/1.0\r\n\r\n").unwrap();
    assert_eq!(read_answer(get, Instant::now()).status, 405);
    let mut options = TcpStream::connect(("127.0.0.1", port)).unwrap();
    options.write_all(b"OPTIONS / HTTP/1.0\r\n\r\n").unwrap();
    assert_eq!(read_answer(options, Instant::now()).status, 200);
}

#[test]
fn an_answer_written_late_makes_the_next_deadline_earlier() {
    let settings = gdlc_player::default_settings(1);
    let player = gdlc_player::Player::new(
        gdlc_player::InterpreterLoader::default(),
        "tester",
        settings,
    );
    let start = start_message("m.1", "xplayer", &game("tictactoe.kif"), 10, 1);
    assert_eq!(player.handle(&start, Instant::now()).body, "ready");
    // With nothing measured, the move is chosen 300 ms (the base margin)
    // before the 1 s play clock ends.
    let received = Instant::now();
    let first = player.handle("( PLAY m.1 NIL )", received);
    let deadline = first.deadline.expect("a move has a deadline");
    assert_eq!(deadline - received, Duration::from_millis(700));
    // Its answer went out 100 ms after that deadline: the next move keeps
    // back one and a half times that latency besides the base.
    player.answered(deadline, deadline + Duration::from_millis(100));
    let received = Instant::now();
    let mv = &first.body;
    let second = player.handle(&format!("( PLAY m.1 ( {mv} noop ) )"), received);
    assert_eq!(second.status, 200, "{}", second.body);
    let deadline = second.deadline.expect("a move has a deadline");
    assert_eq!(deadline - received, Duration::from_millis(550));
    // Its only legal move (o is to play), answered at once.
    assert_eq!(second.body, "noop");
    assert!(
        received.elapsed() < Duration::from_millis(300),
        "{:?}",
        received.elapsed()
    );
    // Other answers carry no deadline.
    assert_eq!(player.handle("( INFO )", Instant::now()).deadline, None);
}
