//! The conformance trace: what a reasoner says about a game, in exactly the
//! schema of the oracle files (`roles`, `init`, `init_terminal`, `perft`,
//! `playouts`), so that two reasoners or a reasoner and an oracle can be
//! compared field by field.
//!
//! The trace is built by [`gdl_runtime::report::trace`], which every backend
//! prints through; this module hands it over as a `serde_json` value.

use gdl_runtime::report::Json;
use gdl_runtime::{DriverError, Reasoner};
use serde_json::{Number, Value};
use std::time::Instant;

pub use gdl_runtime::report::{PLAYOUT_SEEDS, PLAYOUT_STEPS};

/// Builds the trace of `game`: perft to `depth` (by iterative deepening,
/// stopping at `deadline`) and the two deterministic playouts of at most
/// `max_steps` steps.
pub fn trace<R: Reasoner>(
    r: &mut R,
    game: &str,
    depth: u32,
    deadline: Option<Instant>,
    max_steps: usize,
) -> Result<Value, DriverError> {
    gdl_runtime::report::trace(r, game, depth, deadline, max_steps).map(|t| to_value(&t))
}

/// The `serde_json` value of a runtime JSON value.
pub fn to_value(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Int(n) => Value::Number((*n).into()),
        Json::Float(x) => Number::from_f64(*x).map_or(Value::Null, Value::Number),
        Json::Str(s) => Value::String(s.clone()),
        Json::Array(items) => Value::Array(items.iter().map(to_value).collect()),
        Json::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), to_value(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runtime's hand-written JSON is what serde_json writes for the
    /// same value, compact and pretty.
    #[test]
    fn runtime_json_is_serde_json() {
        let floats = [
            0.0,
            -0.0,
            1.0,
            0.1,
            65.0,
            1e-5,
            1.234e-5,
            9.99e-6,
            1e-7,
            123456.789,
            1e15,
            1.5e15,
            1e16,
            1.7976931348623157e308,
            5e-324,
            2.2250738585072014e-308,
            1206868.85495743,
            0.000485554,
            19900.537115496747,
            -3.25e-9,
        ];
        for x in floats {
            let ours = Json::Float(x).compact();
            assert_eq!(ours, serde_json::to_string(&x).unwrap(), "{x:e}");
        }
        let json = Json::object([
            ("b", Json::from(vec!["\u{7f}\u{0}\\".to_string()])),
            ("a", Json::from(Some(3u32))),
            ("c", Json::object([("z", 1.5), ("y", 2.0)])),
            ("d", Json::Array(Vec::new())),
        ]);
        let value = to_value(&json);
        assert_eq!(json.compact(), serde_json::to_string(&value).unwrap());
        assert_eq!(json.pretty(), serde_json::to_string_pretty(&value).unwrap());
    }
}
