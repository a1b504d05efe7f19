"""What every layer of the compiler uses: errors are in `xlinalg/errors.py` and the host in
`xlinalg/host.py`; here the located parser (`parsing`), op names and locations in
diagnostics (`diagnostics`), walks, memory effects, CSE/DCE/LICM run directly, folded
index arithmetic (`affine_utils`), memref/tensor slices and subview types, the
`reassociation` of reshapes, the NumPy dtype of an element type, compile-stage timing, and
the registry of passes by name.
"""
