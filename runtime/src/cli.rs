//! The command line of a generated binary: `perft`, `mc` and `trace`, with
//! the options and the output of the `gdlc` commands of the same names
//! (without the game argument, which is built in), and `gdl-perf-record`,
//! the correctness record of `gdlc gdl-perf --correctness`. Reports name
//! the backend `compiled`.
//!
//! Exit status: 0 on success, 1 for a runtime error, 2 for a usage error.
//!
//! `lexopt` splits the arguments (`--option VALUE`, `--option=VALUE`,
//! `--flag`, and `--`, after which nothing is an option); this module knows
//! each command's options and checks them.

use crate::report::{
    deadline_after, deepening_perft, parallel_mc_json, parallel_mc_text, time_budget, timed_perft,
    trace, MC_MAX_LENGTH, PLAYOUT_STEPS,
};
use crate::{default_threads, parallel_playouts, Kernels, McBudget, Reasoner, MAX_THREADS};
use lexopt::Arg;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::ExitCode;

/// The backend name in the reports of a generated binary.
const BACKEND: &str = "compiled";

const USAGE: &str = "\
usage: perft (--depth D | --seconds S | --depth D --seconds S) [--json]
       mc (--seconds S | --playouts N) [--seed N] [--threads N] [--json]
       trace [--depth D] [--seconds S] [--max-steps N]
       gdl-perf-record --state-changes N [--seed N]

  perft   count the game tree from the initial state (nodes and leaves per depth);
          with --seconds, deepen (up to D) while time is left, and time the deepest
          depth completed
  mc      flat Monte-Carlo: uniformly random playouts; playouts/s and states/s,
          on N threads (default: one per core), each with its own reasoner
  trace   the conformance trace as JSON, in the schema of the oracle files
  gdl-perf-record
          the record of random games of gdl-perf's correctness test, until
          more than N joint moves are played";

/// A parsed command line.
#[derive(Clone, Debug, PartialEq)]
enum Command {
    Help,
    Perft {
        depth: Option<u32>,
        seconds: Option<f64>,
        json: bool,
    },
    Mc {
        budget: McBudget,
        seed: u64,
        threads: usize,
        json: bool,
    },
    Trace {
        depth: u32,
        seconds: f64,
        max_steps: usize,
    },
    Record {
        state_changes: u64,
        seed: u64,
    },
}

/// Runs the command given by `args` (the arguments after the program name)
/// on `reasoner`; `game` is the name shown in the reports. `mc` on more
/// than one thread makes each further thread's reasoner with `R::default()`.
pub fn run<'a, R: Reasoner + Default + 'a>(
    mut reasoner: R,
    game: &str,
    args: impl Iterator<Item = String>,
) -> ExitCode {
    let build = || Box::new(R::default()) as Box<dyn Kernels + 'a>;
    run_kernels(&mut reasoner, &build, game, args.collect())
}

/// [`run`] on the reasoner's [`Kernels`], `build` making a further
/// thread's: everything but the drivers' loops is compiled here, once.
pub fn run_kernels<'a>(
    reasoner: &mut dyn Kernels,
    build: &(dyn Fn() -> Box<dyn Kernels + 'a> + Sync),
    game: &str,
    args: Vec<String>,
) -> ExitCode {
    let command = match parse(args) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("error: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    // A panic has printed its message already; it is a runtime error.
    let outcome = catch_unwind(AssertUnwindSafe(|| execute(reasoner, build, game, command)))
        .unwrap_or_else(|_| Err("the reasoner stopped on a panic".to_string()));
    match outcome {
        Ok(output) => {
            print!("{output}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

/// Runs a command and returns what it prints on stdout.
fn execute<'a>(
    r: &mut dyn Kernels,
    build: &(dyn Fn() -> Box<dyn Kernels + 'a> + Sync),
    game: &str,
    command: Command,
) -> Result<String, String> {
    let text = |e: crate::DriverError| e.to_string();
    Ok(match command {
        Command::Help => format!("{USAGE}\n"),
        Command::Perft {
            depth,
            seconds,
            json,
        } => {
            let run = match (depth, seconds) {
                (Some(depth), None) => timed_perft(r, depth),
                (depth, Some(seconds)) => deepening_perft(r, depth.unwrap_or(u32::MAX), seconds),
                (None, None) => unreachable!("the parser requires --depth or --seconds"),
            }
            .map_err(text)?;
            if json {
                format!("{}\n", run.json(game, BACKEND))
            } else {
                run.text()
            }
        }
        Command::Mc {
            budget,
            seed,
            threads,
            json,
        } => {
            let run = parallel_playouts(
                r,
                build,
                threads,
                budget,
                seed,
                MC_MAX_LENGTH,
                &mut |_, _| {},
            )
            .map_err(text)?;
            if json {
                format!(
                    "{}\n",
                    parallel_mc_json(&run, r.role_names(), game, BACKEND)
                )
            } else {
                parallel_mc_text(&run, r.role_names())
            }
        }
        Command::Record {
            state_changes,
            seed,
        } => {
            record(r, state_changes, seed)?;
            String::new()
        }
        Command::Trace {
            depth,
            seconds,
            max_steps,
        } => {
            let t = trace(r, game, depth, deadline_after(seconds), max_steps).map_err(text)?;
            format!("{t:#}\n")
        }
    })
}

/// Writes the correctness record to stdout as it is made; an error the
/// record ends with is this command's error too.
fn record(r: &mut dyn Kernels, state_changes: u64, seed: u64) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = r
        .correctness_record(state_changes, seed, &mut out)
        .and_then(|recorded| out.flush().map(|()| recorded));
    match written {
        Ok(None) => Ok(()),
        Ok(Some(message)) => Err(message),
        Err(e) => Err(format!("cannot write the record: {e}")),
    }
}

/// The options given to a command, by name: a flag's value is empty.
type Given = BTreeMap<&'static str, String>;

/// Parses `COMMAND [--option VALUE | --option=VALUE | --flag]...`.
fn parse(args: Vec<String>) -> Result<Command, String> {
    let mut parser = lexopt::Parser::from_args(args);
    let sub = match parser.next().map_err(message)? {
        None => return Err("a command is required".into()),
        Some(Arg::Long("help") | Arg::Short('h')) => return Ok(Command::Help),
        Some(Arg::Value(v)) if v == "help" => return Ok(Command::Help),
        Some(other) => text(&other),
    };
    // Each command's options, and whether they take a value.
    let spec: &[(&'static str, bool)] = match sub.as_str() {
        "perft" => &[("depth", true), ("seconds", true), ("json", false)],
        "mc" => &[
            ("seconds", true),
            ("playouts", true),
            ("seed", true),
            ("threads", true),
            ("json", false),
        ],
        "trace" => &[("depth", true), ("seconds", true), ("max-steps", true)],
        "gdl-perf-record" => &[("state-changes", true), ("seed", true)],
        other => return Err(format!("unknown command `{other}`")),
    };
    let Some(given) = options(&mut parser, &sub, spec)? else {
        return Ok(Command::Help);
    };
    match sub.as_str() {
        "perft" => perft_command(&given),
        "mc" => mc_command(&given),
        "gdl-perf-record" => Ok(Command::Record {
            state_changes: number(&given, "state-changes")?
                .ok_or("`gdl-perf-record` needs `--state-changes N`")?,
            seed: number(&given, "seed")?.unwrap_or(0),
        }),
        _ => Ok(Command::Trace {
            depth: number(&given, "depth")?.unwrap_or(3),
            seconds: number(&given, "seconds")?.unwrap_or(60.0),
            max_steps: number(&given, "max-steps")?.unwrap_or(PLAYOUT_STEPS),
        }),
    }
}

/// The options of command `sub` (`spec`: their names and whether they take
/// a value), each given at most once; `None` when help is asked for.
fn options(
    parser: &mut lexopt::Parser,
    sub: &str,
    spec: &[(&'static str, bool)],
) -> Result<Option<Given>, String> {
    let mut given = Given::new();
    while let Some(arg) = parser.next().map_err(message)? {
        let name = match arg {
            Arg::Long("help") | Arg::Short('h') => return Ok(None),
            Arg::Long(name) => name.to_string(),
            other => return Err(format!("unexpected argument `{}`", text(&other))),
        };
        let Some(&(key, takes_value)) = spec.iter().find(|(n, _)| *n == name) else {
            return Err(format!("`{sub}` has no option `--{name}`"));
        };
        let value = match takes_value {
            true => parser.value().map_err(message)?.to_string_lossy().into(),
            false => String::new(),
        };
        if given.insert(key, value).is_some() {
            return Err(format!("`--{key}` is given more than once"));
        }
    }
    Ok(Some(given))
}

/// An argument as it was written.
fn text(arg: &Arg) -> String {
    match arg {
        Arg::Short(c) => format!("-{c}"),
        Arg::Long(name) => format!("--{name}"),
        Arg::Value(v) => v.to_string_lossy().into(),
    }
}

/// What is wrong, in this module's words where `lexopt`'s differ.
fn message(error: lexopt::Error) -> String {
    match error {
        lexopt::Error::MissingValue {
            option: Some(option),
        } => format!("`{option}` needs a value"),
        lexopt::Error::UnexpectedValue { option, .. } => format!("`{option}` takes no value"),
        other => other.to_string(),
    }
}

/// `perft`: `--depth D`, `--seconds S` or both, and `--json`.
fn perft_command(given: &Given) -> Result<Command, String> {
    let depth = number(given, "depth")?;
    let seconds = number::<f64>(given, "seconds")?;
    if let Some(s) = seconds {
        time_budget(s)?;
        deadline_after(s).ok_or(format!("--seconds {s} is too far away"))?;
    } else if depth.is_none() {
        return Err("`perft` needs `--depth D` or `--seconds S`".into());
    }
    Ok(Command::Perft {
        depth,
        seconds,
        json: given.contains_key("json"),
    })
}

/// `mc`: `--seconds S` or `--playouts N`, `--seed N`, `--threads N` and
/// `--json`.
fn mc_command(given: &Given) -> Result<Command, String> {
    let budget = match (number::<f64>(given, "seconds")?, number(given, "playouts")?) {
        (Some(s), None) => time_budget(s)?,
        (None, Some(n)) => McBudget::Playouts(n),
        _ => return Err("`mc` needs exactly one of `--seconds S` and `--playouts N`".into()),
    };
    let threads = match number(given, "threads")? {
        Some(n) if (1..=MAX_THREADS).contains(&n) => n,
        Some(n) => return Err(format!("`--threads` must be 1 to {MAX_THREADS}, not {n}")),
        None => default_threads(),
    };
    Ok(Command::Mc {
        budget,
        seed: number(given, "seed")?.unwrap_or(0),
        threads,
        json: given.contains_key("json"),
    })
}

/// The value of option `key` read as a number, if it was given.
fn number<T: std::str::FromStr>(given: &Given, key: &str) -> Result<Option<T>, String> {
    given
        .get(key)
        .map(|v| {
            v.parse()
                .map_err(|_| format!("invalid value `{v}` for `--{key}`: not a number"))
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn parse_line(line: &str) -> Result<Command, String> {
        parse(line.split_whitespace().map(str::to_string).collect())
    }

    #[test]
    fn commands_and_their_options() {
        assert_eq!(
            parse_line("perft --depth 5 --json"),
            Ok(Command::Perft {
                depth: Some(5),
                seconds: None,
                json: true
            })
        );
        assert_eq!(
            parse_line("perft --depth=2"),
            Ok(Command::Perft {
                depth: Some(2),
                seconds: None,
                json: false
            })
        );
        assert_eq!(
            parse_line("perft --seconds 0.5"),
            Ok(Command::Perft {
                depth: None,
                seconds: Some(0.5),
                json: false
            })
        );
        assert_eq!(
            parse_line("mc --seconds 1.5 --seed 7"),
            Ok(Command::Mc {
                budget: McBudget::Time(Duration::from_millis(1500)),
                seed: 7,
                threads: default_threads(),
                json: false
            })
        );
        assert_eq!(
            parse_line("trace --max-steps 10"),
            Ok(Command::Trace {
                depth: 3,
                seconds: 60.0,
                max_steps: 10
            })
        );
        assert_eq!(
            parse_line("mc --playouts=4 --json --seed=9 --threads 3"),
            Ok(Command::Mc {
                budget: McBudget::Playouts(4),
                seed: 9,
                threads: 3,
                json: true
            })
        );
        assert_eq!(
            parse_line("gdl-perf-record --state-changes 50"),
            Ok(Command::Record {
                state_changes: 50,
                seed: 0
            })
        );
        for line in ["help", "-h", "--help", "perft --help", "trace --depth 1 -h"] {
            assert_eq!(parse_line(line), Ok(Command::Help), "{line}");
        }
    }

    #[test]
    fn usage_errors_say_what_is_wrong() {
        for (line, message) in [
            ("", "a command is required"),
            ("frobnicate", "unknown command"),
            ("perft", "needs `--depth D` or `--seconds S`"),
            ("perft --seconds -2", "non-negative"),
            ("perft --depth", "needs a value"),
            ("perft --depth x", "not a number"),
            ("perft --depth 1 --depth 2", "more than once"),
            ("perft --depth 1 --seed 2", "no option `--seed`"),
            ("perft --depth 1 extra", "unexpected argument `extra`"),
            ("perft --depth 1 -x", "unexpected argument `-x`"),
            ("perft --depth 1 -- --json", "unexpected argument `--json`"),
            ("--depth", "unknown command `--depth`"),
            ("perft --json=yes --depth 1", "takes no value"),
            ("mc --seed 1", "exactly one of"),
            ("mc --seconds 1 --playouts 2", "exactly one of"),
            ("mc --seconds -1", "non-negative"),
            ("mc --seconds 1 --threads 0", "must be 1 to 1024, not 0"),
            ("mc --seconds 1 --threads 1025", "must be 1 to 1024"),
            ("mc --seconds 1 --threads x", "not a number"),
            ("gdl-perf-record", "needs `--state-changes N`"),
            ("gdl-perf-record --state-changes -1", "not a number"),
        ] {
            let error = parse_line(line).expect_err(line);
            assert!(error.contains(message), "{line}: {error}");
        }
    }
}
