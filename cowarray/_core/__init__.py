"""The copy-on-write core: the only code that sets an Array's slots or a buffer record.

Every other module asks it (docs/design.md, "Architecture"):

- :mod:`.cow`: the buffer record (its lock, gate and writing marker), the
  one write decision (write in place, write to a copy, replace, hand over),
  exposures of memory to other libraries, the copy counters.
- :mod:`.values`: the Array's slots, the constructors and the one view join.
- :mod:`.families`: view families and the view-write warning (rule 1), with
  each thread's held-back writes.
- :mod:`.last_use`: whether a functional update is the last use of its array
  (reference counts calibrated at import), so that a donated array's buffer
  may be taken instead of copied.

The core knows nothing of operations (no dtype, no operator) and reaches
memory only through the backend protocol (``device.backend``).
"""
