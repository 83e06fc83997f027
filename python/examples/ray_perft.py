"""Perft over Ray with one and with two local workers, against one
process: the counts must be equal; the wall times are printed.

    python examples/ray_perft.py GAME.kif DEPTH [SPLIT_DEPTH] [BACKEND]
"""

import sys
import time

import ray

import gdlc
import gdlc.ray


def main(path, depth, split_depth=None, backend="compiled"):
    game = gdlc.load(path, backend=backend)
    print(f"perft {depth} in one process, then over Ray with one and two workers "
          "(each start of Ray takes a few seconds)", file=sys.stderr, flush=True)
    start = time.perf_counter()
    single = game.perft(depth)
    print(f"one process: {single[-1]} in {time.perf_counter() - start:.2f} s")
    for workers in (1, 2):
        print(f"starting Ray with {workers} worker(s)", file=sys.stderr, flush=True)
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        # Tasks one ply deep, so that each worker starts and loads the game
        # before the timed run.
        gdlc.ray.perft(path, 2, split_depth=1, backend=backend)
        start = time.perf_counter()
        spread = gdlc.ray.perft(path, depth, split_depth=split_depth, backend=backend)
        took = time.perf_counter() - start
        ray.shutdown()
        assert spread == single, (spread, single)
        print(f"Ray, {workers} worker(s): {spread[-1]} in {took:.2f} s")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0], int(args[1]), *(int(a) for a in args[2:3]), *args[3:4])
