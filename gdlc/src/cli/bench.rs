//! `gdlc bench`: the interpreter and the compiled reasoner side by side,
//! the perft and flat Monte-Carlo speeds of each and their ratios, as a
//! table or as JSON.

use super::common::{compiled_binary, interpreter, progress, stem, strings, Failure, INTERPRETED};
use clap::Args;
use gdl_runtime::report::{deadline_after, deepening_perft, mc_json, time_budget, MC_MAX_LENGTH};
use gdl_runtime::{flat_monte_carlo, Reasoner};
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `gdlc bench`.
#[derive(Args)]
pub(crate) struct BenchArgs {
    /// The description (.kif).
    game: PathBuf,
    /// The whole budget: a quarter each for the perft and the
    /// Monte-Carlo of each backend (building the compiled reasoner not
    /// counted).
    #[arg(long, default_value_t = 20.0, value_parser = positive_seconds)]
    seconds: f64,
    /// Print one JSON object with the figures instead of a table.
    #[arg(long)]
    json: bool,
}

/// A `--seconds` value of `gdlc bench`: a positive number of seconds.
fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && time_budget(s).is_ok() && deadline_after(s).is_some() => Ok(s),
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

impl BenchArgs {
    /// Perft (the deepest depth completed in S/4 seconds) and S/4 seconds
    /// of flat Monte-Carlo, with the interpreter and with the compiled
    /// reasoner, and their ratios.
    pub(crate) fn run(self) -> Result<ExitCode, Failure> {
        let Self {
            game,
            seconds,
            json,
        } = self;
        let quarter = seconds / 4.0;
        let name = stem(&game);
        let binary = compiled_binary(&game, false)?;
        let mut r = interpreter(&game)?;
        let bar = progress(json);
        let error = |e: gdl_runtime::DriverError| Failure(format!("error: {e}"));
        bar.set_message("interpreted: perft");
        let perft = deepening_perft(&mut r, u32::MAX, quarter).map_err(error)?;
        let interpreted_perft = perft.json(&name, INTERPRETED);
        bar.set_message("interpreted: Monte-Carlo");
        let budget = time_budget(quarter).map_err(|e| Failure(format!("error: {e}")))?;
        let mc = flat_monte_carlo(&mut r, budget, 0, MC_MAX_LENGTH, &mut |_| {}).map_err(error)?;
        let interpreted_mc = mc_json(&mc, r.roles(), &name, INTERPRETED);
        let quarter_arg = quarter.to_string();
        let report = |what: &str, args: &[&str]| {
            bar.set_message(format!("compiled: {what}"));
            let out = gdlc::backend::output(&binary, &strings(args)).map_err(Failure::of)?;
            reparse(&out)
        };
        let compiled_perft = report("perft", &["perft", "--seconds", &quarter_arg, "--json"])?;
        let compiled_mc = report(
            "Monte-Carlo",
            &["mc", "--seconds", &quarter_arg, "--threads", "1", "--json"],
        )?;
        bar.finish_and_clear();
        let backend = |perft: serde_json::Value, mut mc: serde_json::Value| {
            let (states, playouts) = (number(&mc, "states"), number(&mc, "playouts"));
            mc["mean_length"] = ratio(states, playouts).into();
            serde_json::json!({ "perft": perft, "mc": mc })
        };
        let figures = serde_json::json!({
            "game": name,
            "seconds": seconds,
            "interpreted": backend(interpreted_perft, interpreted_mc),
            "compiled": backend(compiled_perft, compiled_mc),
        });
        let speedup = |section: &str, key: &str| {
            ratio(
                number(&figures["compiled"][section], key),
                number(&figures["interpreted"][section], key),
            )
        };
        let ratios = serde_json::json!({
            "perft_nodes_per_sec": speedup("perft", "nodes_per_sec"),
            "mc_playouts_per_sec": speedup("mc", "playouts_per_sec"),
            "mc_states_per_sec": speedup("mc", "states_per_sec"),
        });
        if json {
            let mut figures = figures;
            figures["ratios"] = ratios;
            println!("{figures}");
        } else {
            print!("{}", bench_table(&figures, &ratios, quarter));
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// A report that a compiled binary printed as JSON, read back.
fn reparse(json: &str) -> Result<serde_json::Value, Failure> {
    serde_json::from_str(json).map_err(|e| {
        Failure(format!(
            "error: a report is not the JSON expected ({e}): {json}"
        ))
    })
}

/// A number of a report (0 when missing).
fn number(report: &serde_json::Value, key: &str) -> f64 {
    report[key].as_f64().unwrap_or(0.0)
}

/// `a / b`, or `None` when `b` is 0.
fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

/// The figures of `gdlc bench` as a table: one column per backend, then
/// the ratio compiled / interpreted.
fn bench_table(figures: &serde_json::Value, ratios: &serde_json::Value, quarter: f64) -> String {
    let rows = [
        ("perft depth", "perft", "depth", None),
        (
            "perft nodes/s",
            "perft",
            "nodes_per_sec",
            Some("perft_nodes_per_sec"),
        ),
        (
            "mc playouts/s",
            "mc",
            "playouts_per_sec",
            Some("mc_playouts_per_sec"),
        ),
        (
            "mc states/s",
            "mc",
            "states_per_sec",
            Some("mc_states_per_sec"),
        ),
        ("mean playout length", "mc", "mean_length", None),
    ];
    let mut out = format!(
        "{}: {quarter} s for each perft (the deepest depth completed) and each Monte-Carlo run\n",
        figures["game"].as_str().unwrap_or_default()
    );
    let mut line = |cells: [&str; 4]| {
        let [label, a, b, r] = cells;
        let text = format!("{label:<20} {a:>14} {b:>14} {r:>22}");
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(["", "interpreted", "compiled", "compiled/interpreted"]);
    for (label, section, key, ratio) in rows {
        let cell = |backend: &str| {
            let v = &figures[backend][section][key];
            match (v.as_u64(), v.as_f64()) {
                (Some(n), _) => n.to_string(),
                (None, Some(x)) if key == "mean_length" => format!("{x:.1}"),
                (None, Some(x)) => format!("{x:.0}"),
                _ => "-".to_string(),
            }
        };
        let r = ratio
            .and_then(|k| ratios[k].as_f64())
            .map_or_else(String::new, |x| format!("{x:.1}x"));
        line([label, &cell("interpreted"), &cell("compiled"), &r]);
    }
    out
}
