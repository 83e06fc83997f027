//! Bugs the mutation fuzzer (`gdlc-fuzz mutate`) found, each pinned with
//! its shrunk description.

/// A byte that is not UTF-8 on a line longer than the diagnostic window:
/// the diagnostic's span ended inside the replacement character, and the
/// window cut the line there (a panic on a char boundary).
#[test]
fn invalid_utf8_on_a_long_line_is_a_diagnostic() {
    let mut bytes = b"(role robot) ".repeat(20);
    bytes.push(0xff);
    bytes.extend(b"(init (cell 1)) ".repeat(20));
    let error = match gdlc::load_bytes("long.kif".into(), bytes) {
        Ok(_) => panic!("a description that is not UTF-8 was accepted"),
        Err(e) => e.to_string(),
    };
    assert!(error.contains("not valid UTF-8"), "{error}");
    assert!(error.contains("long.kif:1:261"), "{error}");
    assert!(error.lines().all(|l| l.chars().count() < 200), "{error}");
}
