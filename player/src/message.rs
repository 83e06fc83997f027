//! The messages of the GGP match protocol (`GGP-PROTOCOL.md`), read from a
//! request body. Keywords and `NIL` are read in any case; match ids, roles,
//! moves and the description keep the text they were sent with.

use crate::sexpr::{self, SExpr, SExprError};
use std::time::Duration;

/// One message from a game manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// `( START <matchId> <role> (<rule> …) <startClock> <playClock> )`.
    Start {
        /// The match id.
        id: String,
        /// The role this player plays, as written.
        role: String,
        /// The description: the text of the rule list, as sent.
        description: String,
        /// The start clock.
        start_clock: Duration,
        /// The play clock.
        play_clock: Duration,
    },
    /// `( PLAY <matchId> NIL|(<move> …) )`; in a GDL-II match the list holds
    /// this player's percepts instead (`( PLAY <matchId> (<percept> …) )`),
    /// or, in the Dresden server's later form, `( PLAY <matchId> <turn>
    /// NIL|<own move> NIL|(<percept> …) )`.
    Play {
        /// The match id.
        id: String,
        /// The joint move just played, one text per role, or this player's
        /// percepts in a GDL-II match; `None` for `NIL`.
        moves: Option<Vec<String>>,
        /// The turn and own move of the later GDL-II form.
        own: Option<Own>,
    },
    /// `( STOP <matchId> NIL|(<move> …) )`, or a GDL-II form as for PLAY.
    Stop {
        /// The match id.
        id: String,
        /// The last joint move (or percepts); `None` for `NIL`.
        moves: Option<Vec<String>>,
        /// The turn and own move of the later GDL-II form.
        own: Option<Own>,
    },
    /// `( ABORT <matchId> )`.
    Abort {
        /// The match id.
        id: String,
    },
    /// `( INFO )`.
    Info,
    /// `( PREVIEW (<rule> …) <previewClock> )`.
    Preview,
}

/// What the Dresden server's later GDL-II form of PLAY and STOP tells a
/// player besides its percepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Own {
    /// The messages of the match sent before this one (0 for the first PLAY).
    pub turn: u64,
    /// This player's move in the step just played, as the server recorded
    /// it (its own replacement of a late or illegal answer); `None` for
    /// `NIL`.
    pub last_move: Option<String>,
}

/// Why a body is not a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageError {
    /// Not one s-expression.
    Syntax(SExprError),
    /// A list starting with an unknown keyword (or not a list at all).
    Unknown(String),
    /// A known keyword with the wrong arguments.
    Malformed(&'static str, String),
}

impl std::fmt::Display for MessageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MessageError::Syntax(e) => write!(f, "not an s-expression: {e}"),
            MessageError::Unknown(what) => write!(f, "unknown message `{what}`"),
            MessageError::Malformed(keyword, why) => write!(f, "malformed {keyword}: {why}"),
        }
    }
}

impl std::error::Error for MessageError {}

/// Reads one message from a request body.
pub fn parse(text: &str) -> Result<Message, MessageError> {
    let expr = sexpr::parse(text).map_err(MessageError::Syntax)?;
    let SExpr::List(items, _) = &expr else {
        return Err(MessageError::Unknown(text[expr.span()].to_string()));
    };
    let keyword = items
        .first()
        .and_then(SExpr::atom)
        .ok_or_else(|| MessageError::Unknown(short(&text[expr.span()])))?;
    let keyword = keyword.to_ascii_uppercase();
    let args = &items[1..];
    let arity = |n: usize, k: &'static str| {
        if args.len() == n {
            Ok(())
        } else {
            Err(MessageError::Malformed(
                k,
                format!("{} arguments, expected {n}", args.len()),
            ))
        }
    };
    match keyword.as_str() {
        "START" => {
            arity(5, "START")?;
            Ok(Message::Start {
                id: atom(&args[0], "START", "match id")?,
                role: atom(&args[1], "START", "role")?,
                description: text[args[2].span()].to_string(),
                start_clock: clock(&args[3], "START")?,
                play_clock: clock(&args[4], "START")?,
            })
        }
        "PLAY" | "STOP" => {
            let k = if keyword == "PLAY" { "PLAY" } else { "STOP" };
            let id = atom(
                args.first().ok_or_else(|| malformed_step(k, 0))?,
                k,
                "match id",
            )?;
            let (moves, own) = match args {
                [_, list] => (moves(text, list, k)?, None),
                [_, turn, last, list] => (moves(text, list, k)?, Some(own(text, turn, last, k)?)),
                _ => return Err(malformed_step(k, args.len())),
            };
            Ok(if k == "PLAY" {
                Message::Play { id, moves, own }
            } else {
                Message::Stop { id, moves, own }
            })
        }
        "ABORT" => {
            arity(1, "ABORT")?;
            Ok(Message::Abort {
                id: atom(&args[0], "ABORT", "match id")?,
            })
        }
        "INFO" => {
            arity(0, "INFO")?;
            Ok(Message::Info)
        }
        "PREVIEW" => {
            arity(2, "PREVIEW")?;
            Ok(Message::Preview)
        }
        _ => Err(MessageError::Unknown(short(&keyword))),
    }
}

/// A PLAY or STOP with neither 2 arguments nor 4 (GDL-II).
fn malformed_step(keyword: &'static str, found: usize) -> MessageError {
    MessageError::Malformed(
        keyword,
        format!("{found} arguments, expected 2 (or 4 in a GDL-II match)"),
    )
}

/// The turn and own move of the later GDL-II form of PLAY and STOP.
fn own(text: &str, turn: &SExpr, last: &SExpr, keyword: &'static str) -> Result<Own, MessageError> {
    let turn = turn
        .atom()
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| MessageError::Malformed(keyword, "the turn is not a number".into()))?;
    let last_move = match last {
        SExpr::Atom(s, _) if s.eq_ignore_ascii_case("nil") => None,
        e => Some(text[e.span()].to_string()),
    };
    Ok(Own { turn, last_move })
}

/// At most 60 characters of `text`, for error messages.
fn short(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

fn atom(e: &SExpr, keyword: &'static str, what: &str) -> Result<String, MessageError> {
    e.atom()
        .map(str::to_string)
        .ok_or_else(|| MessageError::Malformed(keyword, format!("the {what} is a list")))
}

/// A clock in whole seconds, as ggp-base sends it.
fn clock(e: &SExpr, keyword: &'static str) -> Result<Duration, MessageError> {
    e.atom()
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&s| s <= 1_000_000)
        .map(Duration::from_secs)
        .ok_or_else(|| {
            MessageError::Malformed(keyword, "a clock is not a number of seconds".into())
        })
}

/// `NIL` (any case) or a list of moves, each kept as the text it was sent as.
fn moves(
    text: &str,
    e: &SExpr,
    keyword: &'static str,
) -> Result<Option<Vec<String>>, MessageError> {
    match e {
        SExpr::Atom(s, _) if s.eq_ignore_ascii_case("nil") => Ok(None),
        SExpr::Atom(..) => Err(MessageError::Malformed(
            keyword,
            "the moves are neither NIL nor a list".into(),
        )),
        SExpr::List(items, _) => Ok(Some(
            items.iter().map(|m| text[m.span()].to_string()).collect(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_message_in_any_case() {
        let start = parse("( start m.1 xPlayer (( role xPlayer ) ( role o ) ) 10 5)").unwrap();
        assert_eq!(
            start,
            Message::Start {
                id: "m.1".into(),
                role: "xPlayer".into(),
                description: "(( role xPlayer ) ( role o ) )".into(),
                start_clock: Duration::from_secs(10),
                play_clock: Duration::from_secs(5),
            }
        );
        assert_eq!(
            parse("( PLAY m.1 nil )").unwrap(),
            Message::Play {
                id: "m.1".into(),
                moves: None,
                own: None
            }
        );
        assert_eq!(
            parse("( Stop m.1 (( Mark 1 3 ) noop ) )").unwrap(),
            Message::Stop {
                id: "m.1".into(),
                moves: Some(vec!["( Mark 1 3 )".into(), "noop".into()]),
                own: None
            }
        );
        assert_eq!(
            parse("(abort m.1)").unwrap(),
            Message::Abort { id: "m.1".into() }
        );
        assert_eq!(parse("( INFO )").unwrap(), Message::Info);
        assert_eq!(
            parse("( PREVIEW ((role a)) 10 )").unwrap(),
            Message::Preview
        );
    }

    #[test]
    fn reads_both_gdl_ii_forms_of_play_and_stop() {
        // The 2011 form: the percepts alone, none as `()`.
        assert_eq!(
            parse("(PLAY m.1 (3 (DID X NOOP) ))").unwrap(),
            Message::Play {
                id: "m.1".into(),
                moves: Some(vec!["3".into(), "(DID X NOOP)".into()]),
                own: None
            }
        );
        assert_eq!(
            parse("(PLAY m.1 ())").unwrap(),
            Message::Play {
                id: "m.1".into(),
                moves: Some(Vec::new()),
                own: None
            }
        );
        // The later form: turn, own move, percepts.
        assert_eq!(
            parse("(PLAY m.1 0 NIL NIL)").unwrap(),
            Message::Play {
                id: "m.1".into(),
                moves: None,
                own: Some(Own {
                    turn: 0,
                    last_move: None
                })
            }
        );
        assert_eq!(
            parse("(STOP m.1 3 (CHOOSE 2) (1))").unwrap(),
            Message::Stop {
                id: "m.1".into(),
                moves: Some(vec!["1".into()]),
                own: Some(Own {
                    turn: 3,
                    last_move: Some("(CHOOSE 2)".into())
                })
            }
        );
        assert!(matches!(
            parse("(PLAY m.1 x NIL NIL)"),
            Err(MessageError::Malformed(..))
        ));
        assert!(matches!(
            parse("(PLAY m.1 1 NIL)"),
            Err(MessageError::Malformed(..))
        ));
    }

    #[test]
    fn rejects_malformed_messages() {
        assert!(matches!(parse("(PLAY m.1"), Err(MessageError::Syntax(_))));
        assert!(matches!(parse("(HELLO)"), Err(MessageError::Unknown(_))));
        assert!(matches!(parse("hello"), Err(MessageError::Unknown(_))));
        assert!(matches!(
            parse("(PLAY m.1)"),
            Err(MessageError::Malformed(..))
        ));
        assert!(matches!(
            parse("(PLAY m.1 noop)"),
            Err(MessageError::Malformed(..))
        ));
        assert!(matches!(
            parse("(START m r ((role r)) ten 5)"),
            Err(MessageError::Malformed(..))
        ));
        assert!(matches!(parse("((INFO))"), Err(MessageError::Unknown(_))));
    }
}
