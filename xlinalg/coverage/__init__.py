"""The op coverage tables `xlinalg ops` prints and the case lists they are read from (the
very lists the tests parametrize over): named linalg ops (`linalg_samples`), hand-written
linalg ops, `iree_linalg_ext`, and the Transform dialect (`transform`).
"""
