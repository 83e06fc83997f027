//! The time kept back from a clock for answering. The player stops
//! searching at `received + clock - margin`; what follows — merging the
//! search statistics, waking the request's thread, writing the answer —
//! takes a few milliseconds on a quiet machine and up to a second on a
//! loaded one. The margin is the configured base plus the latency the
//! player has measured: each answer's delay past its deadline, taken in
//! when the answer has been written.

use std::time::Duration;

/// Most of a clock the margin may take: the rest is searched.
const MOST_OF_CLOCK: u32 = 2;

/// The adaptive margin (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Margin {
    /// The configured margin, kept for what the player cannot measure
    /// (the network, the time before a request is read).
    base: Duration,
    /// The latency past a deadline to expect: the last one measured times
    /// one and a half when that is more, else the one before decayed by an
    /// eighth, so that one slow answer is covered at once and a quiet
    /// spell brings the margin back down over a few moves.
    late: Duration,
}

impl Margin {
    /// A margin of `base` until some latency is measured.
    pub fn new(base: Duration) -> Self {
        Margin {
            base,
            late: Duration::ZERO,
        }
    }

    /// The margin for a clock of `clock`: the base plus the expected
    /// latency, at most half the clock.
    pub fn of(&self, clock: Duration) -> Duration {
        (self.base + self.late).min(clock / MOST_OF_CLOCK)
    }

    /// Takes in that an answer was written `after` its deadline; the
    /// expected latency it now implies, when that changed by over 10 ms.
    pub fn answered(&mut self, after: Duration) -> Option<Duration> {
        let before = self.late;
        self.late = (after * 3 / 2).max(self.late * 7 / 8);
        let changed = before.abs_diff(self.late) > Duration::from_millis(10);
        changed.then_some(self.late)
    }
}

#[cfg(test)]
mod tests {
    use super::Margin;
    use std::time::Duration;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_late_answer_widens_the_margin_at_once_and_quiet_ones_narrow_it() {
        let mut margin = Margin::new(ms(300));
        assert_eq!(margin.of(ms(3000)), ms(300));
        // An answer written 800 ms after its deadline (a loaded machine).
        assert_eq!(margin.answered(ms(800)), Some(ms(1200)));
        assert_eq!(margin.of(ms(3000)), ms(1500));
        // Answers on time again: the margin comes down by an eighth of the
        // latency each time, never below the base.
        margin.answered(ms(2));
        assert_eq!(margin.of(ms(3000)), ms(300 + 1050));
        for _ in 0..100 {
            margin.answered(ms(2));
        }
        assert_eq!(margin.of(ms(3000)), ms(303));
        assert_eq!(margin.answered(ms(2)), None, "a change under 10 ms");
    }

    #[test]
    fn the_margin_leaves_half_the_clock_to_the_search() {
        let mut margin = Margin::new(ms(300));
        margin.answered(ms(5000));
        assert_eq!(margin.of(ms(3000)), ms(1500));
        assert_eq!(margin.of(ms(400)), ms(200));
    }
}
