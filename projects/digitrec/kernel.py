"""K-nearest-neighbour digit recognition (HeteroCL's digitrec sample, Rosetta's digit-recognition):
bit-level Hamming distances between a 49-bit test image and every training image.

Each 7x7 black-and-white image is one UInt(49). `diff` XORs the test image with every training
image, `dist` counts the ones of each difference bit by bit (`num[b]`, an `hcl.for_` over the 49
bits), and `knn_update` keeps, for every digit class, the 3 smallest distances seen (replacing
the largest candidate when a smaller distance comes). The numpy model is the same algorithm,
with the same tie-breaking (the first largest candidate is replaced).

Schedule: diff and dist are pipelined on the image loop y; the 49-bit popcount loop unrolls
inside the pipeline into an adder tree. Expected II = 1 for both: one read of the training
image (or diff) element and one write per iteration. knn_update is reordered to y, x order so
that the pipelined x loop visits a different class (a different row of knn_mat) every
iteration; knn_mat is partitioned completely, in both dimensions, so its 30 candidates are
registers: an iteration reads its row's three candidates, then the largest one (at a column known
only at run time) four times and writes it once, which a partition of the columns alone left on one
10-element RAM a column (II = 3 by its two ports). Expected II = 1 there too (no candidate row is
touched by two consecutive iterations).
"""

import numpy as np

import hclbuild as hcl

BITS = 49  # a 7x7 image
K = 3  # candidates kept per class
CLASSES = 10
IMAGE = hcl.UInt(BITS)
DIST = hcl.UInt(6)  # a distance is at most 49


def schedule(sizes):
    """The algorithm and its schedule."""
    per_class = sizes.CLASS_SIZE
    test_image = hcl.placeholder((1,), "test_image", dtype=IMAGE)
    train_images = hcl.placeholder((CLASSES, per_class), "train_images", dtype=IMAGE)

    def knn(test_image, train_images):
        def popcount(num):
            out = hcl.scalar(0, "out", dtype=DIST)
            with hcl.for_(0, BITS, name="bit") as b:
                out.v += num[b]
            return out.v

        def update_knn(x, y):
            max_id = hcl.scalar(0, "max_id", dtype=hcl.Int(32))
            with hcl.for_(0, K, name="cand") as k, hcl.if_(knn_mat[x, k] > knn_mat[x, max_id.v]):
                max_id.v = k
            with hcl.if_(dist[x, y] < knn_mat[x, max_id.v]):
                knn_mat[x, max_id.v] = dist[x, y]

        diff = hcl.compute(train_images.shape, lambda x, y: train_images[x, y] ^ test_image[0], "diff",
                           dtype=IMAGE)
        dist = hcl.compute(diff.shape, lambda x, y: popcount(diff[x, y]), "dist", dtype=DIST)
        knn_mat = hcl.compute((CLASSES, K), lambda x, k: 50, "knn_mat", dtype=DIST)
        hcl.mutate(dist.shape, update_knn, "knn_update")
        return knn_mat

    s = hcl.create_schedule([test_image, train_images], knn, name="top")
    s[knn.diff].pipeline(knn.diff.axis[1])
    s[knn.dist].pipeline(knn.dist.axis[1])
    x, y = s[knn.knn_update].axis[:2]  # then the for_ loop cand, as in HeteroCL
    s[knn.knn_update].reorder(y, x)
    s[knn.knn_update].pipeline(x)
    s.partition(knn.knn_mat, hcl.Partition.Complete, dim=0)
    s.outline(knn.diff, knn.dist)
    s.outline(knn.knn_update)
    return s


def inputs(rng, sizes):
    """A random test image and training images that differ from it in few or many bits."""
    test = int(rng.integers(0, 1 << BITS))
    flips = rng.random((CLASSES, sizes.CLASS_SIZE, BITS)) < rng.uniform(0.05, 0.5, (CLASSES, 1, 1))
    masks = (flips.astype(np.uint64) << np.arange(BITS, dtype=np.uint64)).sum(axis=2, dtype=np.uint64)
    return [np.array([test], dtype=np.uint64), np.uint64(test) ^ masks]


def model(test_image, train_images):
    """numpy model of knn_mat: popcount of the XOR, then the same candidate updates in order."""
    diff = train_images.astype(np.uint64) ^ np.uint64(test_image[0])
    bits = (diff[..., None] >> np.arange(BITS, dtype=np.uint64)) & np.uint64(1)
    dist = bits.sum(axis=2)
    knn_mat = np.full((CLASSES, K), 50, dtype=np.int64)
    for y in range(dist.shape[1]):
        for x in range(CLASSES):
            worst = int(np.argmax(knn_mat[x]))  # the first largest, as the kernel's strict >
            knn_mat[x, worst] = min(knn_mat[x, worst], dist[x, y])
    return knn_mat
