//! The large constant tables of a generated reasoner, stored as bytes in a
//! file beside its source (`include_bytes!`) rather than as Rust
//! expressions that rustc must parse, and decoded once, on first use, into
//! the arrays the code reads (`static T: LazyLock<Box<[E; N]>>`).
//!
//! Numbers are little-endian; a row is its cells one after the other; a
//! table of texts is the texts separated by `\n` (canonical KIF text has
//! no newline).

/// An element of a decoded table: a number, or a row of numbers.
pub trait Element: Copy {
    /// Bytes per element.
    const SIZE: usize;
    /// The element stored in `bytes` (exactly [`Element::SIZE`] of them).
    fn read(bytes: &[u8]) -> Self;
}

macro_rules! number_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(bytes: &[u8]) -> Self {
                let mut le = [0u8; std::mem::size_of::<$t>()];
                le.copy_from_slice(bytes);
                <$t>::from_le_bytes(le)
            }
        }
    )*};
}

number_element!(u16, u32, u64);

impl<E: Element, const C: usize> Element for [E; C] {
    const SIZE: usize = E::SIZE * C;
    fn read(bytes: &[u8]) -> Self {
        std::array::from_fn(|i| E::read(&bytes[i * E::SIZE..(i + 1) * E::SIZE]))
    }
}

/// The `N` elements stored in `bytes`.
///
/// # Panics
/// If `bytes` does not hold exactly `N` elements (a generated crate whose
/// data file does not match its source).
pub fn decode<E: Element, const N: usize>(bytes: &[u8]) -> Box<[E; N]> {
    assert_eq!(
        bytes.len(),
        N * E::SIZE,
        "the table's data has the wrong size"
    );
    let elements: Box<[E]> = bytes.chunks_exact(E::SIZE.max(1)).map(E::read).collect();
    elements
        .try_into()
        .unwrap_or_else(|_| unreachable!("the size was checked"))
}

/// The `N` texts stored in `bytes`, separated by `\n`.
///
/// # Panics
/// If `bytes` is not UTF-8 or does not hold exactly `N` texts.
pub fn decode_texts<const N: usize>(bytes: &'static [u8]) -> Box<[&'static str; N]> {
    let text = std::str::from_utf8(bytes).expect("the texts' data is UTF-8");
    let texts: Box<[&'static str]> = if N == 0 {
        Box::new([])
    } else {
        text.split('\n').collect()
    };
    texts
        .try_into()
        .unwrap_or_else(|t: Box<[&str]>| panic!("{} texts where {N} were expected", t.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_rows_are_read_little_endian() {
        let bytes = [1u8, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1];
        assert_eq!(*decode::<u32, 4>(&bytes), [1, 256, 2, 1 << 24]);
        assert_eq!(*decode::<[u32; 2], 2>(&bytes), [[1, 256], [2, 1 << 24]]);
        assert_eq!(
            *decode::<u64, 2>(&bytes),
            [256u64 << 32 | 1, (1u64 << 56) | 2]
        );
        assert_eq!(*decode::<u16, 8>(&bytes), [1, 0, 256, 0, 2, 0, 0, 256]);
    }

    #[test]
    #[should_panic(expected = "wrong size")]
    fn a_table_of_the_wrong_size_is_refused() {
        let _ = decode::<u32, 3>(&[0u8; 8]);
    }

    #[test]
    fn texts_are_split_at_newlines() {
        assert_eq!(
            *decode_texts::<3>(b"(cell 1 1 b)\nx\n"),
            ["(cell 1 1 b)", "x", ""]
        );
        assert_eq!(decode_texts::<0>(b"").len(), 0);
        assert_eq!(*decode_texts::<1>(b""), [""]);
    }
}
