"""Perft and flat Monte-Carlo spread over a Ray cluster.

    >>> import ray, gdlc.ray
    >>> ray.init()                      # or ray.init(address="auto")
    >>> gdlc.ray.perft("games/connectfour.kif", 8, split_depth=3)

Each Ray worker process loads the game once (`gdlc.load`, so with the
compiled backend each node builds it once in its own gdlc cache and later
tasks import the built module) and runs its share in Rust, the GIL
released. States travel as their game's description and their fluents.
"""

import ray

import gdlc

# Tasks per CPU of the cluster: enough to even out subtrees of unequal
# size, few enough that each task's start costs little.
TASKS_PER_CPU = 4


@ray.remote
def _subtree_perft(description, backend, states, depth):
    """The leaves per depth of perft to `depth` under each of `states`,
    added up."""
    game = gdlc.load(description, backend=backend)
    total = [0] * (depth + 1)
    for state in states:
        for d, (_, leaves) in enumerate(game.perft(depth, game.state_from_fluents(state))):
            total[d] += leaves
    return total


@ray.remote
def _playouts(description, backend, n, seed):
    game = gdlc.load(description, backend=backend)
    return game.random_playouts(n, seed=seed, threads=1)


def _tasks():
    cpus = int(ray.cluster_resources().get("CPU", 1))
    return max(1, cpus * TASKS_PER_CPU)


def perft(path_or_text, depth, split_depth=None, backend="auto"):
    """Perft to `depth` as `Game.perft` counts it: `(nodes, leaves)` for
    each depth `0..=depth`. The tree is expanded here to `split_depth`
    (default: the first depth with at least as many states as tasks, at
    most `depth`); the subtrees under its states are counted by Ray tasks."""
    game = gdlc.load(path_or_text, backend=backend)
    wanted = _tasks()
    leaves = [1]
    frontier = [game.initial_state()]
    split = depth if split_depth is None else min(split_depth, depth)
    while len(leaves) - 1 < split:
        if split_depth is None and len(frontier) >= wanted:
            break
        frontier = _children(game, frontier)
        leaves.append(len(frontier))
    split = len(leaves) - 1
    remaining = depth - split
    live = [s for s in frontier if not game.is_terminal(s)] if remaining else []
    if live:
        chunk = -(-len(live) // wanted)
        batches = [live[i:i + chunk] for i in range(0, len(live), chunk)]
        texts = [[game.fluents(s) for s in batch] for batch in batches]
        parts = ray.get([_subtree_perft.remote(game.description, game.backend, t, remaining)
                         for t in texts])
        below = [sum(p[d] for p in parts) for d in range(1, remaining + 1)]
    else:
        below = [0] * remaining
    levels, nodes = [], 0
    for count in leaves + below:
        nodes += count
        levels.append((nodes, count))
    return levels


def _children(game, states):
    """Every child of every non-terminal state of `states`, a child per
    joint move (as perft counts them)."""
    children = []
    roles = range(len(game.roles))
    for state in states:
        if game.is_terminal(state):
            continue
        joints = [[]]
        for role in roles:
            joints = [j + [m] for j in joints for m in game.legal_moves(state, role)]
        children.extend(game.next_state(state, j, checked=False) for j in joints)
    return children


def random_playouts(path_or_text, n, seed=0, backend="auto"):
    """`n` uniformly random playouts spread over Ray tasks (task i on seed
    `seed + i`, one thread each): the counts added up and the mean goals
    weighted by playouts, as `Game.random_playouts` reports them
    (`seconds` is the longest task's)."""
    game = gdlc.load(path_or_text, backend=backend)
    tasks = min(_tasks(), max(1, n))
    shares = [n // tasks + (i < n % tasks) for i in range(tasks)]
    parts = ray.get([_playouts.remote(game.description, game.backend, k, seed + i)
                     for i, k in enumerate(shares) if k])
    playouts = sum(p["playouts"] for p in parts)
    return {
        "playouts": playouts,
        "states": sum(p["states"] for p in parts),
        "truncated": sum(p["truncated"] for p in parts),
        "seconds": max(p["seconds"] for p in parts),
        "mean_goals": [sum(p["mean_goals"][r] * p["playouts"] for p in parts) / playouts
                       for r in range(len(game.roles))],
    }
