//! The resource limits of evaluation: past them the interpreter (and the
//! term store it shares with the compiler) unwinds with a
//! [`ResourceLimit`] instead of answering wrongly or exhausting memory.

/// Most distinct ground terms the interpreter creates before it gives up.
pub const MAX_TERMS: usize = 20_000_000;
/// Most facts one relation may hold before the interpreter gives up.
pub const MAX_ROWS: usize = 10_000_000;
/// Most join steps (rows tried, literals tested, calls made, answers of
/// recursive calls copied) one evaluation may take: the static relations of
/// one stratum at load time, or the relations one phase needs in one state
/// (or for one joint move). A description whose joins run on for minutes
/// (a recursion over a cyclic successor relation, a rule with an unbound
/// variable crossing large relations) stops here with an error; the
/// heaviest evaluation of the corpus takes far less (see the README).
pub const MAX_WORK: u64 = 1_000_000_000;

/// Most calls of recursive relations answered on demand nested in one
/// another (a chain of calls each still waiting for the next). Their stack
/// grows on the heap as needed; this stops a recursion through ever deeper
/// terms, which would otherwise take all memory.
pub const MAX_CALL_DEPTH: usize = 20_000;

/// The work limit in force: [`MAX_WORK`], or the value of the environment
/// variable `GDLC_MAX_WORK` when it is set (the tests use a lower one to
/// reach the limit quickly in unoptimized builds).
pub fn max_work() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("GDLC_MAX_WORK")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(MAX_WORK)
    })
}

/// The panic payload with which the interpreter stops when a description
/// needs more than its resource limits (a relation materialized bottom-up
/// that a top-down prover would only query). The methods of
/// [`gdl_runtime::Reasoner`] cannot fail, so the interpreter unwinds instead of answering
/// wrongly; [`catch_limit`] turns it back into an error.
#[derive(Debug)]
pub struct ResourceLimit(pub String);

/// Stops the evaluation: it needs `what`, more than its limits allow.
pub fn exceeded(what: String) -> ! {
    std::panic::panic_any(ResourceLimit(format!(
        "the reference interpreter stopped: evaluating this description needs {what}"
    )))
}

/// Runs `f`, turning an interpreter [`ResourceLimit`] into an error (other
/// panics go on unwinding).
pub fn catch_limit<T>(f: impl FnOnce() -> T) -> Result<T, ResourceLimit> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Ok(v),
        Err(payload) => match payload.downcast::<ResourceLimit>() {
            Ok(limit) => Err(*limit),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

/// Keeps the default panic message for real bugs but stays silent for
/// [`ResourceLimit`], which the caller reports itself.
pub fn quiet_resource_limits() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<ResourceLimit>().is_none() {
            default(info);
        }
    }));
}
