"""The op layer: one module per chapter of the Array API standard.

Every op unwraps its inputs' backend arrays, calls the backend once through
the standard's names on ``device.backend.xp``, and says which of the two
kinds of result it has: :func:`cowarray._array.fresh` (memory allocated for
this call) or :func:`cowarray._array.may_view` (a result that may view these
inputs, which then joins their buffer). No op knows which backend it runs on.
"""
