"""The engine behind :mod:`cowarray.transforms` (imports JAX: loaded on the
first transform call, never by ``import cowarray``).

- :mod:`._engine`: the boundary (cowarray Arrays into JAX values and back,
  the traced Arrays the user's function gets, the inputs it wrote, the notes
  that name the fix on JAX's errors) and the transforms themselves, each a
  thin layer over its JAX namesake.
"""
