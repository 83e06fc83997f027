//! What the tests comparing a compiled reasoner with the interpreter share.

use gdl_runtime::Reasoner;
use gdlc::interp::Interpreter;

/// A state of the interpreter.
pub type Reference = <Interpreter as Reasoner>::State;

/// Plays `playouts` uniformly random playouts (xorshift64 from `seed`) of
/// at most `steps` joint moves with the compiled reasoner `c`, replaying
/// every joint move in the interpreter `i` by its text. `visit` sees each
/// pair of states before the walk moves on (a terminal state of `c` ends
/// the playout after its visit).
pub fn lockstep<C: Reasoner>(
    c: &mut C,
    i: &mut Interpreter,
    playouts: usize,
    steps: usize,
    seed: u64,
    mut visit: impl FnMut(&mut C, &C::State, &mut Interpreter, &Reference),
) {
    let roles = c.roles().len();
    let mut rng = seed;
    let mut legal = Vec::new();
    for _ in 0..playouts {
        let (mut s, mut t) = (c.initial_state(), i.initial_state());
        for _ in 0..steps {
            visit(c, &s, i, &t);
            if c.is_terminal(&s) {
                break;
            }
            let (mut joint, mut texts) = (Vec::new(), Vec::new());
            for role in 0..roles {
                c.legal_moves(&s, role, &mut legal);
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let m = legal[(rng % legal.len() as u64) as usize];
                texts.push(c.move_text(role, m));
                joint.push(m);
            }
            let replayed: Vec<_> = texts
                .iter()
                .enumerate()
                .map(|(role, text)| {
                    i.parse_move(role, text)
                        .expect("a move the interpreter knows")
                })
                .collect();
            s = c.next_state(&s, &joint);
            t = i.next_state(&t, &replayed);
        }
    }
}
