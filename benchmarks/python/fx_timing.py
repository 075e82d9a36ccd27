"""What the Python benchmarks share: a median wall time, and the Python loop every conversion
is measured against (it only reads what any conversion must read: each node's args, kwargs,
target, name, and meta['val']'s shape and dtype)."""
import statistics
import time


def median_time(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def python_loop(graph):
    for n in graph.nodes:
        n.args, n.kwargs, n.target, n.name
        v = n.meta.get("val")
        if v is not None and hasattr(v, "shape"):
            v.shape, v.dtype
