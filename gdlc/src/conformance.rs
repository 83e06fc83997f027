//! Comparison of a trace (see [`crate::trace`]) with an oracle file of the
//! conformance corpus: roles, initial state, every perft depth the oracle
//! has, both playouts step by step, and the goals.

use serde_json::Value;

/// The perft depth and playout length a trace needs to be compared with
/// `oracle`: its deepest perft depth, and the length of its longest playout
/// (the full 300 steps when a playout ended at a terminal state).
pub fn needs(oracle: &Value) -> (u32, usize) {
    let depth = oracle["perft"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l["depth"].as_u64())
        .max()
        .unwrap_or(0) as u32;
    let steps = oracle["playouts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let n = p["steps"].as_array().map_or(0, Vec::len);
            if p["truncated"].as_bool() == Some(true) {
                n
            } else {
                crate::trace::PLAYOUT_STEPS
            }
        })
        .max()
        .unwrap_or(0);
    (depth, steps)
}

/// Every disagreement between a trace and an oracle, as readable lines; empty
/// when they agree. A playout the oracle truncated is compared over the steps
/// it has.
pub fn compare(ours: &Value, oracle: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    for field in ["roles", "init"] {
        if ours[field] != oracle[field] {
            diffs.push(format!(
                "{field}: ours {} oracle {}",
                ours[field], oracle[field]
            ));
        }
    }
    if oracle.get("init_terminal").is_some() && ours["init_terminal"] != oracle["init_terminal"] {
        diffs.push(format!(
            "init_terminal: ours {} oracle {}",
            ours["init_terminal"], oracle["init_terminal"]
        ));
    }
    let empty = Vec::new();
    let our_perft = ours["perft"].as_array().unwrap_or(&empty);
    for level in oracle["perft"].as_array().unwrap_or(&empty) {
        let mine = our_perft.iter().find(|l| l["depth"] == level["depth"]);
        let same =
            mine.is_some_and(|m| m["nodes"] == level["nodes"] && m["leaves"] == level["leaves"]);
        if !same {
            diffs.push(format!(
                "perft depth {}: ours {} oracle nodes {} leaves {}",
                level["depth"],
                mine.map_or("missing".to_string(), |m| format!(
                    "nodes {} leaves {}",
                    m["nodes"], m["leaves"]
                )),
                level["nodes"],
                level["leaves"]
            ));
            break;
        }
    }
    let our_playouts = ours["playouts"].as_array().unwrap_or(&empty);
    for (i, theirs) in oracle["playouts"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        let Some(mine) = our_playouts.get(i) else {
            diffs.push(format!("playout {i}: missing"));
            continue;
        };
        let their_steps = theirs["steps"].as_array().unwrap_or(&empty);
        let my_steps = mine["steps"].as_array().unwrap_or(&empty);
        let mut stepwise = true;
        for (t, (a, b)) in their_steps.iter().zip(my_steps).enumerate() {
            for field in ["legal", "joint", "state"] {
                if a[field] != b[field] {
                    diffs.push(format!(
                        "playout {i} step {t} {field}: ours {} oracle {}",
                        b[field], a[field]
                    ));
                    stepwise = false;
                    break;
                }
            }
            if !stepwise {
                break;
            }
        }
        if !stepwise || theirs["truncated"].as_bool() == Some(true) {
            if stepwise && my_steps.len() < their_steps.len() {
                diffs.push(format!(
                    "playout {i}: ours ends after {} steps, oracle has {}",
                    my_steps.len(),
                    their_steps.len()
                ));
            }
            continue;
        }
        if my_steps.len() != their_steps.len() || mine["terminal_step"] != theirs["terminal_step"] {
            diffs.push(format!(
                "playout {i}: ours ends at step {} (terminal {}), oracle at {}",
                my_steps.len(),
                mine["terminal_step"],
                theirs["terminal_step"]
            ));
        } else if mine["goals"] != theirs["goals"] {
            diffs.push(format!(
                "playout {i} goals: ours {} oracle {}",
                mine["goals"], theirs["goals"]
            ));
        }
    }
    diffs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn oracle() -> Value {
        json!({
            "roles": ["a"], "init": ["p"], "init_terminal": false,
            "perft": [{"depth": 0, "nodes": 1, "leaves": 1}, {"depth": 1, "nodes": 3, "leaves": 2}],
            "playouts": [{"seed": 0, "steps": [{"legal": {"a": ["x", "y"]}, "joint": {"a": "x"}, "state": ["q"]}],
                          "terminal_step": 1, "goals": {"a": 100}}]
        })
    }

    #[test]
    fn agreement_is_empty() {
        assert!(compare(&oracle(), &oracle()).is_empty());
        assert_eq!(needs(&oracle()), (1, crate::trace::PLAYOUT_STEPS));
    }

    #[test]
    fn each_field_is_compared() {
        let mut ours = oracle();
        ours["perft"][1]["leaves"] = json!(3);
        ours["playouts"][0]["goals"]["a"] = json!(50);
        ours["init"] = json!(["r"]);
        let diffs = compare(&ours, &oracle());
        assert_eq!(diffs.len(), 3, "{diffs:?}");
        assert!(diffs[0].starts_with("init"));
        assert!(diffs[1].starts_with("perft depth 1"));
        assert!(diffs[2].starts_with("playout 0 goals"));
        let mut ours = oracle();
        ours["playouts"][0]["steps"][0]["state"] = json!(["z"]);
        assert_eq!(
            compare(&ours, &oracle()),
            vec![r#"playout 0 step 0 state: ours ["z"] oracle ["q"]"#]
        );
    }

    #[test]
    fn truncated_oracle_playouts_compare_their_prefix() {
        let mut theirs = oracle();
        theirs["playouts"][0] = json!({"seed": 0, "steps": [{"legal": {"a": ["x", "y"]}, "joint": {"a": "x"}, "state": ["q"]}], "truncated": true});
        let mut ours = oracle();
        ours["playouts"][0]["steps"] = json!([
            {"legal": {"a": ["x", "y"]}, "joint": {"a": "x"}, "state": ["q"]},
            {"legal": {"a": ["x"]}, "joint": {"a": "x"}, "state": ["r"]}
        ]);
        assert!(compare(&ours, &theirs).is_empty());
        assert_eq!(needs(&theirs).1, 1);
    }
}
