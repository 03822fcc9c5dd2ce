"""The op layer: one module per chapter of the Array API standard.

Every op unwraps its inputs' backend arrays, calls the backend once through
the standard's names on ``device.backend.xp``, and wraps the result with
:func:`cowarray._array.wrap`, which makes a result that views an input join
that input's buffer. No op knows which backend it runs on.
"""
