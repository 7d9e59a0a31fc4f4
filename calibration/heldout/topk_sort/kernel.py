"""topk_sort (Taise228/topk_sort: Vitis HLS 2022.1, xck26-sfvc784-2LV-c, 10 ns), ported to the DSL as
a held-out case: a kernel from outside the calibration sources, to check that the model generalises.

The original keeps the k = 100 largest of N = 1000 non-negative ints read from an AXI4-Stream, in
descending order, in a local arr[100] beside a carry array post[100] (both partitioned completely):
VITIS_LOOP_20_1 zeroes arr and post; VITIS_LOOP_30_2 reads one value a trip and its inner
VITIS_LOOP_36_3 (j < 100) passes it down arr: at j = 0 the larger of the value and arr[0] stays in
arr[0] and the smaller goes to post[0], at j > 0 the larger of post[j-1] and arr[j] stays in arr[j]
and the smaller goes to post[j]; VITIS_LOOP_57_4 (i < 99) / VITIS_LOOP_58_5 (j from i + 1 to 99)
run the same step once more over the carries ("remaining flow"); VITIS_LOOP_70_6 writes arr to the
output stream, TLAST on the last element. Its directives are pragmas: pipeline II=1 on
VITIS_LOOP_20_1, _36_3, _58_5 and _70_6, array_partition complete dim=0 on arr and post, axis on
both streams and s_axilite (bundle CONTROL_BUS) on the return.

Not the same: the DSL schedules only loops of constant bounds, so the "remaining flow" inner loop
runs j from 1 to 99 every trip with its lower bound (j > i) as a guard around the body: 99 trips
each time, the most Vitis allowed it (its trip count is 1 to 99) and what its worst-case latency
counts, the same body, dependences and ports. That nest is perfect, with constant bounds, so Vitis
may flatten it (9801 iterations in one pipeline) where the original's stayed two loops. The streams
are arrays here (an hclbuild top takes no hls::stream), ap_fifo ports read and written once an
element in order, with no TLAST, TKEEP or TSTRB side channel; the block protocol is ap_ctrl_hs, not
s_axilite.
"""

import numpy as np

import hclbuild as hcl

K = 100  # the top k kept (topk_sort.h's k)
N = 1000  # values read (topk_sort.h's N)


def schedule():
    """The algorithm and the original's directives."""
    hcl.init(hcl.Int(32))
    istrm = hcl.placeholder((N,), "istrm")

    def topk_sort(istrm):
        arr = hcl.local((K,), hcl.Int(32), "arr")
        post = hcl.local((K,), hcl.Int(32), "post")
        with hcl.for_(0, K, name="i", tag="init") as i:
            arr[i] = 0
            post[i] = 0
        val = hcl.local((1,), hcl.Int(32), "val")  # the C's int val, written each trip
        with hcl.for_(0, N, name="i1", tag="insert") as i:
            val[0] = istrm[i]
            with hcl.for_(0, K, name="j1") as j:
                with hcl.if_(j == 0):
                    with hcl.if_(val[0] > arr[0]):
                        post[0] = arr[0]
                        arr[0] = val[0]
                    with hcl.else_():
                        post[0] = val[0]
                with hcl.else_():
                    _carry(arr, post, j)
        # the original's j runs from i + 1: here from 1, with j > i as a guard (see above)
        with (
            hcl.for_(0, K - 1, name="i2", tag="drain") as i,
            hcl.for_(1, K, name="j2") as j,
            hcl.if_(j > i),
        ):
            _carry(arr, post, j)
        return hcl.compute((K,), lambda i: arr[i], "ostrm")

    s = hcl.create_schedule([istrm], topk_sort, name="topk_sort")
    s[topk_sort.init].pipeline(topk_sort.init.i)
    s[topk_sort.insert].pipeline(topk_sort.insert.j1)
    s[topk_sort.drain].pipeline(topk_sort.drain.j2)
    s[topk_sort.ostrm].pipeline(topk_sort.ostrm.axis[0])
    s.partition(topk_sort.arr, hcl.Partition.Complete, dim=0)
    s.partition(topk_sort.post, hcl.Partition.Complete, dim=0)
    return s


def _carry(arr, post, j):
    """One step at j > 0: the larger of post[j-1] and arr[j] stays, the smaller is carried on."""
    with hcl.if_(post[j - 1] > arr[j]):
        post[j] = arr[j]
        arr[j] = post[j - 1]
    with hcl.else_():
        post[j] = post[j - 1]


def inputs(rng):
    """Any non-negative int32 (the original assumes non-negative data: arr starts at zero)."""
    return [rng.integers(0, 2**31, N).astype(np.int32)]


def model(istrm):
    """The K largest values, largest first."""
    values = np.asarray(istrm, dtype=np.int64)
    return {"ostrm": np.sort(values)[::-1][:K].astype(np.int32)}
