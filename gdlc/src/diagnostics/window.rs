//! The source as diagnostics show it: a line longer than a screen (many
//! published descriptions are one line of 10 000 characters or more) is
//! shown as a window around what the labels point at, cut with `...`, as
//! rustc does. Line and column numbers stay those of the real source.

use codespan_reporting::files::{Error, Files};
use std::ops::Range;

/// Lines up to this many characters are shown whole.
const MAX_LINE: usize = 160;
/// Characters shown before the first and after the last labelled point of
/// a long line.
const CONTEXT: usize = 60;
/// The mark where a long line is cut.
const CUT: &str = "...";

/// One line of the real source and what of it is shown.
struct Line {
    /// The line's bytes in the real source, without its newline.
    real: Range<usize>,
    /// The bytes of the real line that are shown.
    kept: Range<usize>,
    /// Where the shown line starts in the shown text.
    start: usize,
    /// Whether a cut mark stands before the kept bytes.
    cut_before: bool,
}

/// The shown text of a source and the map between its bytes and the real
/// ones, for codespan-reporting.
pub struct Shown<'a> {
    name: &'a str,
    real: &'a str,
    text: String,
    lines: Vec<Line>,
}

impl<'a> Shown<'a> {
    /// The shown form of `real` named `name`, long lines cut around the
    /// byte offsets `points` (the labels' starts and ends).
    pub fn new(name: &'a str, real: &'a str, points: &[usize]) -> Self {
        let mut shown = Shown {
            name,
            real,
            text: String::new(),
            lines: Vec::new(),
        };
        let mut start = 0;
        for piece in real
            .split_inclusive('\n')
            .chain(real.is_empty().then_some(""))
        {
            let end = start + piece.trim_end_matches('\n').len();
            shown.push_line(start..end, points);
            start += piece.len();
        }
        if real.ends_with('\n') {
            shown.push_line(real.len()..real.len(), points);
        }
        shown
    }

    /// Adds the shown form of the real line `real`.
    fn push_line(&mut self, real: Range<usize>, points: &[usize]) {
        let line = &self.real[real.clone()];
        let kept = if line.chars().count() <= MAX_LINE {
            real.clone()
        } else {
            let inside: Vec<usize> = points
                .iter()
                .copied()
                .filter(|p| real.contains(p) || *p == real.end)
                .collect();
            let first = inside.iter().copied().min().unwrap_or(real.start);
            let last = inside.iter().copied().max().unwrap_or(real.start);
            let lo = self.back(first, CONTEXT).max(real.start);
            let hi = self.ahead(last.max(first), CONTEXT).min(real.end);
            lo..self.ahead(lo, MAX_LINE).min(hi)
        };
        if !self.lines.is_empty() {
            self.text.push('\n');
        }
        let start = self.text.len();
        let cut_before = kept.start > real.start;
        if cut_before {
            self.text.push_str(CUT);
        }
        self.text.push_str(&self.real[kept.clone()]);
        if kept.end < real.end {
            self.text.push_str(CUT);
        }
        self.lines.push(Line {
            real,
            kept,
            start,
            cut_before,
        });
    }

    /// The byte `chars` characters before `at` in the real source.
    fn back(&self, at: usize, chars: usize) -> usize {
        self.real[..at]
            .char_indices()
            .rev()
            .nth(chars.saturating_sub(1))
            .map_or(0, |(i, _)| i)
    }

    /// The byte `chars` characters after `at` in the real source.
    fn ahead(&self, at: usize, chars: usize) -> usize {
        self.real[at..]
            .char_indices()
            .nth(chars)
            .map_or(self.real.len(), |(i, _)| at + i)
    }

    /// The index of the line holding real byte `at`.
    fn real_line(&self, at: usize) -> usize {
        self.lines
            .partition_point(|l| l.real.end < at)
            .min(self.lines.len() - 1)
    }

    /// The shown byte of real byte `at` (a cut part maps to the cut mark).
    pub fn shown(&self, at: usize) -> usize {
        let line = &self.lines[self.real_line(at)];
        let cut = if line.cut_before { CUT.len() } else { 0 };
        if at < line.kept.start {
            line.start
        } else if at > line.kept.end {
            line.start + cut + line.kept.len() + CUT.len()
        } else {
            line.start + cut + (at - line.kept.start)
        }
    }

    /// The shown range of a real range.
    pub fn shown_range(&self, real: Range<usize>) -> Range<usize> {
        self.shown(real.start)..self.shown(real.end)
    }

    /// The real byte of shown byte `at` on shown line `index`.
    fn real(&self, index: usize, at: usize) -> usize {
        let line = &self.lines[index];
        let cut = if line.cut_before { CUT.len() } else { 0 };
        let offset = at.saturating_sub(line.start + cut);
        (line.kept.start + offset).min(line.kept.end)
    }

    /// The end of shown line `index` in the shown text.
    fn shown_end(&self, index: usize) -> usize {
        self.lines
            .get(index + 1)
            .map_or(self.text.len(), |next| next.start - 1)
    }
}

impl<'a> Files<'a> for Shown<'_> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.text)
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, Error> {
        Ok(self
            .lines
            .partition_point(|l| l.start <= byte_index)
            .saturating_sub(1))
    }

    fn column_number(
        &'a self,
        (): (),
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, Error> {
        let real = self.real(line_index, byte_index);
        let line_start = self.lines[line_index].real.start;
        Ok(self.real[line_start..real].chars().count() + 1)
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, Error> {
        let line = self.lines.get(line_index).ok_or(Error::LineTooLarge {
            given: line_index,
            max: self.lines.len().saturating_sub(1),
        })?;
        let end = self.shown_end(line_index);
        Ok(line.start..(end + 1).min(self.text.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_shown_as_they_are() {
        let text = "(role a)\n(init p)\n";
        let shown = Shown::new("t", text, &[10, 12]);
        assert_eq!(shown.text, text);
        assert_eq!(shown.shown_range(10..12), 10..12);
        assert_eq!(shown.column_number((), 1, 10).ok(), Some(2));
    }

    #[test]
    fn a_long_line_is_cut_around_its_labels_keeping_real_columns() {
        let text = format!("{}(bad){}\n(ok)\n", "x".repeat(5000), "y".repeat(5000));
        let at = 5000;
        let shown = Shown::new("t", &text, &[at, at + 5]);
        let first = shown.text.lines().next().unwrap();
        assert!(first.len() < 200, "{first}");
        assert!(first.starts_with(CUT) && first.ends_with(CUT), "{first}");
        let range = shown.shown_range(at..at + 5);
        assert_eq!(&shown.text[range.clone()], "(bad)");
        assert_eq!(shown.column_number((), 0, range.start).ok(), Some(5001));
        assert_eq!(shown.line_index((), range.start).ok(), Some(0));
        let ok = shown.shown(10_006);
        assert_eq!(shown.line_index((), ok).ok(), Some(1));
        assert_eq!(&shown.text[ok..ok + 4], "(ok)");
    }
}
