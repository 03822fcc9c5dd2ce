"""No interleaving of threads or gc callbacks leaves two values aliased (docs/design.md rule 7).

The attacks: a gc callback that clones the array being written, at every
allocation of the write; threads switching every microsecond while one
writes (clone, drop, write: the last-holder takeover) and another clones or
slices; and a clone taken while another thread writes the same array, which
must be a snapshot that never changes after it returned.
"""

from __future__ import annotations

import contextlib
import dis
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from _attack import assert_no_aliases, gc_callback, host, run_together, switching_every_microsecond
from _patching import BackendPatch, call_out_while_a_record_is_made

import cowarray as ca


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda x: x.__setitem__(0, 1.0), id="x[0] = v"),
        pytest.param(lambda x: x.__setitem__((0,), 1.0), id="x[(0,)] = v"),
        pytest.param(lambda x: x.__setitem__(slice(0, 2), 1.0), id="x[0:2] = v"),
        pytest.param(lambda x: x.__iadd__(1.0), id="x += v"),
        pytest.param(lambda x: x.__setitem__(ca.asarray([0, 1]), 1.0), id="x[idx] = v"),
    ],
)
@pytest.mark.parametrize("before", ["private", "last-holder", "its view died", "a clone lives"])
def test_a_gc_callback_cloning_inside_a_write_gets_its_own_value(
    write: object, before: str
) -> None:
    x = ca.zeros(64)
    kept = []
    if before == "last-holder":
        gone = ca.lazy_clone(x)  # x has a sharing record, and is its last holder below
        del gone
    elif before == "its view died":
        x[1:5] += 0.0  # x keeps the record its temporary view held (cow.reclaim's case)
    elif before == "a clone lives":
        x[1:5] += 0.0
        kept.append(ca.lazy_clone(x))
    clones: list[ca.Array] = []
    armed = [True]

    def clone() -> None:
        if armed[0] and len(clones) < 50:
            clones.append(ca.lazy_clone(x))
            clones.append(x[1:])

    with gc_callback(clone):
        write(x)  # type: ignore[operator]
        armed[0] = False
    assert all(float(c[0]) == 0.0 for c in kept)
    # Whatever each clone holds (from before or after the write), nothing that
    # is written from now on may show in another.
    assert_no_aliases([x, *clones, *kept])


def race(*bodies: Callable[[], None]) -> None:
    """Run each body in a thread of its own, switching every microsecond."""
    with switching_every_microsecond():
        threads = [threading.Thread(target=body) for body in bodies]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def assert_kept_their_values(
    x: ca.Array, clones: list[tuple[ca.Array, float]], key: int | tuple[int, ...] = 0
) -> None:
    """Each clone's element ``key`` is what it was when taken, even after x is written again."""
    x[key] = -1.0
    changed = [(then, float(c[key])) for c, then in clones if float(c[key]) != then]
    assert not changed, f"{len(changed)} of {len(clones)} clones followed x, e.g. {changed[:3]}"


def _drop_a_clone_then_write(x: ca.Array, i: int) -> None:
    gone = ca.lazy_clone(x)
    del gone
    x[0] = float(i + 1)  # the last holder writes in place


def _write_a_slice_in_place_then_elements(x: ca.Array, i: int) -> None:
    # x[a:b] += d leaves x the record its temporary view held; the element
    # write after it finds x alone (cow.reclaim) and goes fast from there on.
    x[1:5] += 1.0
    x[0] = float(i + 1)
    x[-1] = x[1]


@pytest.mark.parametrize(
    "step",
    [_drop_a_clone_then_write, _write_a_slice_in_place_then_elements],
    ids=["the last holder writes", "x[a:b] += d, then x[i] = v"],
)
def test_threads_taking_over_and_cloning_never_alias(step: Callable[[ca.Array, int], None]) -> None:
    # A clone or a view taken by another thread at any point keeps its values.
    x = ca.zeros(1000)
    clones: list[tuple[ca.Array, float]] = []
    done = threading.Event()

    def writer() -> None:
        for i in range(3000):
            step(x, i)
        done.set()

    def cloner() -> None:
        while not done.is_set():
            c = ca.lazy_clone(x)
            clones.append((c, float(c[0])))
            s = x[:10]
            clones.append((s, float(s[0])))

    race(writer, cloner)
    assert_kept_their_values(x, clones)


@pytest.mark.parametrize(
    "value", [float, np.float64, ca.asarray], ids=["a float", "an np.float64", "a 0-d array"]
)
@pytest.mark.parametrize(
    ("shape", "key"),
    [((1000,), 0), ((1000,), (0,)), ((40, 25), (0, 0))],
    ids=["x[0] = v", "x[(0,)] = v", "x[0, 0] = v"],
)
def test_threads_writing_fast_and_cloning_never_alias(
    shape: tuple[int, ...], key: int | tuple[int, ...], value: Callable[[float], object]
) -> None:
    # x[i] = v and x[i, j] = v on a private array skip the core (v a Python
    # scalar, the NumPy scalar type of x's dtype, or a 0-d array of x's
    # dtype): cloning must still stop them.
    x = ca.zeros(shape)
    clones: list[tuple[ca.Array, float]] = []
    done = threading.Event()
    values = [value(float(i + 1)) for i in range(20000)]

    def writer() -> None:
        for v in values:
            x[key] = v
        done.set()

    def cloner() -> None:
        while not done.is_set():
            c = ca.lazy_clone(x)
            clones.append((c, float(c[key])))
            del c
            time.sleep(0)

    race(writer, cloner)
    assert_kept_their_values(x, clones, key)


@pytest.mark.parametrize(
    ("shape", "key"),
    [((2, 300_000), 0), ((2, 2, 300_000), (0, 1))],
    ids=["x[i] = v of a row", "x[i, j] = v of a row"],
)
def test_a_clone_taken_while_a_long_row_is_filled_never_changes(
    shape: tuple[int, ...], key: int | tuple[int, ...]
) -> None:
    # NumPy lets other threads run while it fills more than 500 elements, so
    # a store of a whole row is not one step for them: a clone joining in
    # the middle saw the rest of the row change after it was taken.
    x = ca.zeros(shape)
    x[(0,) * len(shape)] = 0.0  # private: the scalar fast path is open
    clones: list[tuple[ca.Array, float, float]] = []
    done = threading.Event()

    def writer() -> None:
        for i in range(300):
            x[key] = float(i + 1)
        done.set()

    def cloner() -> None:
        while not done.is_set():
            c = ca.lazy_clone(x)
            row = np.asarray(c[key])
            clones.append((c, float(row[0]), float(row[-1])))
            del row

    race(writer, cloner)
    changed = [
        (first, last)
        for c, first, last in clones
        if (float(c[key][0]), float(c[key][-1])) != (first, last) or first != last
    ]
    assert not changed, f"{len(changed)} of {len(clones)} clones were torn or changed"


# What may run between the read of ``_fast_write`` and the store in place, on
# every CPython: nothing that calls, jumps back, or reads anything but a slot.
# The interpreter lets another thread (or, from 3.12, the collector) in only
# at calls and backward jumps; from 3.11 on these instructions have none.
_BETWEEN_CHECK_AND_STORE = {
    "CONTAINS_OP", "POP_JUMP_IF_FALSE", "POP_JUMP_FORWARD_IF_FALSE", "TO_BOOL", "NOT_TAKEN",
    "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW", "LOAD_FAST_LOAD_FAST",
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW", "LOAD_ATTR", "EXTENDED_ARG", "NOP", "CACHE",
}  # fmt: skip


def test_nothing_can_come_between_the_fast_write_check_and_its_store() -> None:
    # The proof that x[i] = v and x[i, j] = v may skip the core on a GIL build:
    # read here from the bytecode of this very interpreter. Putting the
    # tuple's int test after the read (a loop, calls) let clones follow x.
    instructions = list(dis.get_instructions(ca.Array.__setitem__))
    checks = [
        i
        for i, ins in enumerate(instructions)
        if ins.opname == "LOAD_ATTR" and ins.argval == "_fast_write"
    ]
    assert len(checks) == 3, "x[i] = v, x[i, j] = v and x[i] = y[j]"
    for start in checks:
        path = []
        for ins in instructions[start:]:
            path.append(f"{ins.opname} {ins.argval}")
            if ins.opname == "STORE_SUBSCR":
                break
            assert ins.opname in _BETWEEN_CHECK_AND_STORE, path
            if ins.opname == "LOAD_ATTR":
                assert ins.argval in ("_fast_write", "_data"), path
        else:
            pytest.fail(f"no store after the check at {start}")


# What may run in the lock-free hand-over (values.take_over) from the read of
# ``_fast_write`` to the last slot stored: as above, plus stores of locals
# and slots, one store of the element, tests of locals, forward jumps (over
# the store's except clause) and one global, the empty set.
_IN_A_HAND_OVER = _BETWEEN_CHECK_AND_STORE | {
    "STORE_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST", "STORE_ATTR",
    "STORE_SUBSCR", "LOAD_CONST", "LOAD_COMMON_CONSTANT", "LOAD_SMALL_INT", "LOAD_GLOBAL",
    "IS_OP", "COPY", "POP_TOP", "JUMP_FORWARD", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP",
    "POP_JUMP_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE",
    "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE", "POP_JUMP_FORWARD_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE",
}  # fmt: skip


def _paths_to(instructions: list[dis.Instruction], start: int, end: int) -> list[list[str]]:
    """Every forward path of ``instructions`` from index ``start`` to index
    ``end`` (conditional jumps both ways; the except clauses, reached only
    through the exception table, are not on a path)."""
    at = {ins.offset: i for i, ins in enumerate(instructions)}
    jumps = set(dis.hasjrel) | set(dis.hasjabs)
    found: list[list[str]] = []
    stack: list[tuple[int, list[str]]] = [(start, [])]
    while stack:
        i, path = stack.pop()
        ins = instructions[i]
        path = [*path, f"{ins.opname} {ins.argval}"]
        if i == end:
            found.append(path)
            continue
        if ins.opname.startswith(("RETURN", "RAISE", "RERAISE")):
            continue
        successors = []
        if ins.opcode in jumps and at.get(ins.argval, -1) > i:
            successors.append(at[ins.argval])
        if not ins.opname.startswith("JUMP_FORWARD") and not ins.opname.startswith("JUMP_BACK"):
            successors.append(i + 1)
        stack.extend((j, path) for j in successors if j > i)
    return found


@pytest.mark.parametrize("stores", [False, True], ids=["move(x)", "move(x).at[i].set(v)"])
def test_nothing_can_come_between_the_hand_over_check_and_its_last_store(stores: bool) -> None:
    # The proof that move(x) and move(x).at[i].set(v) may hand x's memory
    # over without the lock on a GIL build, read from this interpreter's
    # bytecode: on every path from the read of the fast writes to the last
    # slot stored, no call, no backward jump, no global but the empty set.
    from cowarray._core import values

    instructions = list(dis.get_instructions(values.take_over))
    (start,) = [
        i
        for i, ins in enumerate(instructions)
        if ins.opname == "LOAD_ATTR" and ins.argval == "_fast_write"
    ]
    end = next(
        i
        for i, ins in enumerate(instructions)
        if i > start and ins.opname == "STORE_ATTR" and ins.argval == "_family"
    )
    paths = [
        p
        for p in _paths_to(instructions, start, end)
        if any(o.startswith("STORE_SUBSCR") for o in p) == stores
    ]
    assert paths, "no path from the check to the hand-over"
    for path in paths:
        for step in path:
            opname, argval = step.split(" ", 1)
            assert opname in _IN_A_HAND_OVER, path
            if opname == "LOAD_GLOBAL":
                assert argval == "_NO_FAST_WRITE", path
        slots = [p.split()[1] for p in path if p.startswith("STORE_ATTR")]
        assert slots == ["_data", "_device", "_fast_write", "_donated", "_family"], path


@pytest.mark.parametrize(
    "update",
    [
        pytest.param(lambda y, i: y.__setitem__(0, i), id="move(x) then x[0] = v"),
        pytest.param(lambda y, i: ca.move(y).at[0].set(i), id="move(x).at[0].set(v)"),
    ],
)
def test_threads_moving_and_cloning_never_alias(
    update: Callable[[ca.Array, float], ca.Array | None],
) -> None:
    # A private array with fast writes is moved without the lock: a clone
    # taken on another thread must still never share the memory the moved
    # array goes on writing (a clone that had begun to join when the move
    # ran followed the moved array's writes).
    box = [ca.zeros(1000)]
    box[0][0] = 0.0  # private and written: the fast writes are open
    clones: list[tuple[ca.Array, float]] = []
    done = threading.Event()

    def writer() -> None:
        for i in range(3000):
            y = ca.move(box[0])
            result = update(y, float(i + 1))
            box[0] = y if result is None else result
            del y, result
        done.set()

    def cloner() -> None:
        while not done.is_set():
            try:
                c = ca.lazy_clone(box[0])
                s = box[0][:10]
                clones.append((c, float(c[0])))
                clones.append((s, float(s[0])))
            except ValueError:
                continue  # moved from under this thread: it may not be used
            finally:
                c = s = None  # type: ignore[assignment]

    race(writer, cloner)
    assert_kept_their_values(box[0], clones)


def _call_out_while_a_record_is_made(
    backend_patch: BackendPatch, call_out: Callable[[], None]
) -> None:
    """Run ``call_out`` inside the core's section that makes a record, where
    a gc callback run by the record's allocation would run;
    ``backend_patch.undo()`` ends it."""
    call_out_while_a_record_is_made(backend_patch, call_out)


def test_a_move_on_another_thread_while_a_clone_joins_never_aliases(
    backend_patch: BackendPatch,
) -> None:
    # The interleaving the race above hopes for, made to happen: a clone has
    # begun to join x (inside the section that makes x's record) when
    # another thread moves x and writes the moved array. The move must wait
    # for the clone, or the clone must see x moved: never both share memory.
    x = ca.arange(8.0)
    x[0] = 0.0  # private, fast writes open
    moved: list[ca.Array] = []
    inside, written = threading.Event(), threading.Event()

    def waiting() -> None:
        if threading.current_thread() is cloning and not inside.is_set():
            inside.set()
            written.wait(0.5)  # the mover blocks on the core's lock: it cannot finish

    def mover() -> None:
        inside.wait()
        y = ca.move(x)
        y[1] = 100.0
        moved.append(y)
        written.set()

    clones: list[ca.Array] = []
    cloning = threading.Thread(target=lambda: clones.append(ca.lazy_clone(x)))
    moving = threading.Thread(target=mover)
    _call_out_while_a_record_is_made(backend_patch, waiting)
    moving.start()
    cloning.start()
    cloning.join()
    moving.join()
    backend_patch.undo()
    (y,), (clone,) = moved, clones
    np.testing.assert_array_equal(np.asarray(clone), np.arange(8.0) * (np.arange(8) > 0))
    assert float(y[1]) == 100.0
    assert_no_aliases([y, clone])


class _PosingAsFloat(type):
    """A metaclass whose classes hash and compare equal to ``float``."""

    def __hash__(cls) -> int:
        return hash(float)

    def __eq__(cls, other: object) -> bool:
        return other is float or other is cls


@pytest.mark.parametrize(
    ("shape", "write"),
    # (shapes no other test makes: the attacker finds the array by its shape)
    [
        ((7919,), lambda x, v: x.__setitem__(1, v)),
        ((7907,), lambda x, v: x.__setitem__((1,), v)),
        ((89, 97), lambda x, v: x.__setitem__((0, 1), v)),
        ((7901,), lambda x, v: ca.move(x).at[1].set(v)),
    ],
    ids=["x[1] = v", "x[(1,)] = v", "x[0, 1] = v", "move(x).at[1].set(v)"],
)
def test_a_value_posing_as_a_float_never_takes_a_fast_write(
    shape: tuple[int, ...], write: Callable[[ca.Array, object], object]
) -> None:
    # A metaclass can make type(v) equal float in the fast writes' set, and
    # then NumPy runs v.__float__ inside the store: there code that finds
    # the written array (gc.get_objects) clones it in the middle of a store
    # that skips the core. The write must take the checked way instead, so
    # that the clone keeps the value it had when it was taken.
    import gc

    clones: list[tuple[ca.Array, np.ndarray]] = []

    class Sneaky(metaclass=_PosingAsFloat):
        def __float__(self) -> float:
            for found in gc.get_objects():
                if type(found) is ca.Array and not clones:
                    with contextlib.suppress(ValueError):  # (a moved array raises)
                        if found.shape == shape:
                            clone = ca.lazy_clone(found)
                            clones.append((clone, np.array(clone, copy=True)))
            return 5.0

    x = ca.zeros(shape)
    x[(0,) * len(shape)] = 0.0  # private, fast writes open
    result = write(x, Sneaky())
    y = x if result is None else result
    assert float(np.asarray(y).flat[1]) == 5.0
    assert clones, "the value's __float__ ran no clone"
    y = ca.move(y).at[(0,) * len(shape)].set(9.0)  # and a fast update after it
    for clone, then in clones:
        np.testing.assert_array_equal(np.asarray(clone), then)
    assert_no_aliases([y, *(clone for clone, _ in clones)])


def test_a_move_inside_a_clone_of_the_same_array_gets_a_copy(
    backend_patch: BackendPatch,
) -> None:
    # Code re-entered inside the join that makes x's record (a gc callback
    # run by its allocation, here a call-out made to run it) moves x: the
    # moved array must not share the memory the clone is joining.
    x = ca.arange(8.0)
    x[0] = 0.0  # private, fast writes open
    moved: list[ca.Array] = []

    def moving() -> None:
        if not moved:
            moved.append(ca.move(x))

    _call_out_while_a_record_is_made(backend_patch, moving)
    clone = ca.lazy_clone(x)
    backend_patch.undo()
    (y,) = moved
    y[1] = 100.0
    clone[2] = 200.0
    np.testing.assert_array_equal(np.asarray(clone), [0, 1, 200, 3, 4, 5, 6, 7])
    np.testing.assert_array_equal(np.asarray(y), [0, 100, 2, 3, 4, 5, 6, 7])
    assert_no_aliases([y, clone])


def test_writes_to_arrays_sharing_a_buffer_from_many_threads_stay_apart() -> None:
    base = ca.zeros(2000)
    arrays = [ca.lazy_clone(base) for _ in range(4)]

    def write(k: int) -> None:
        a = arrays[k]
        for i in range(500):
            a[i % 2000] = float(k + 1)
            if i % 50 == 0:
                a += 0.0

    with switching_every_microsecond():
        threads = [threading.Thread(target=write, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert host(base).tolist() == [0.0] * 2000
    for k, a in enumerate(arrays):
        values = host(a)
        assert set(np.unique(values).tolist()) <= {0.0, float(k + 1)}
    assert_no_aliases([base, *arrays])


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda x: x.__iadd__(1.0), id="x += 1.0"),
        pytest.param(lambda x: x.__iadd__(ca.ones(x.shape)), id="x += ones"),
        pytest.param(lambda x: x.__setitem__(slice(None), ca.ones(x.shape)), id="x[:] = ones"),
        pytest.param(
            lambda x: np.add.at(x, np.arange(x.shape[0]), 1.0), id="np.add.at(x, all, 1.0)"
        ),
        pytest.param(
            lambda x: np.add.at(x, ca.arange(x.shape[0]), ca.ones(x.shape)),
            id="np.add.at(x, arange, ones)",  # cowarray index and operand: the short path
        ),
    ],
)
# (np.asarray(x) is not here: it is an alias of x, as a DLPack export is)
@pytest.mark.parametrize("take", ["lazy_clone", "slice"])
def test_a_clone_taken_during_a_write_by_another_thread_never_changes(
    write: object, take: str
) -> None:
    x = ca.zeros(4_000_000)
    x[0] = 0.0
    takes = {
        "lazy_clone": ca.lazy_clone,
        "slice": lambda a: a[2_000_000:],
    }
    for _ in range(3):
        thread = threading.Thread(target=write, args=(x,))
        thread.start()
        time.sleep(0.002)
        y = takes[take](x)
        first = float(y[-1])
        thread.join()
        assert float(y[-1]) == first, "the clone changed after it was returned"
        # and it is all before or all after (never torn):
        values = np.unique(np.asarray(y))
        assert values.size == 1, f"a torn snapshot: {values}"
        del y


def test_an_op_racing_a_write_of_its_input_never_aliases_the_old_memory(
    backend_patch: BackendPatch,
) -> None:
    # The interleaving, made deterministic: while reshape runs on x's memory,
    # another thread writes x (which copies: y shares it), and y, now the last
    # holder of that memory, writes it in place. The reshape's result views
    # the old memory: it must not become a second, unrecorded name for y's.
    from cowarray._backends.numpy import NUMPY_BACKEND

    x = ca.zeros(6)
    y = ca.lazy_clone(x)
    real = NUMPY_BACKEND.reshape_view  # what ca.reshape(x, shape) calls

    def reshape_while_others_write(data: object, shape: object) -> object:
        result = real(data, shape)
        x[0] = 1.0  # x materializes a copy of its own
        y[1] = 2.0  # y writes the old memory in place
        return result

    backend_patch.setattr(NUMPY_BACKEND, "reshape_view", reshape_while_others_write)
    r = ca.reshape(x, (2, 3))
    backend_patch.undo()
    assert host(x)[0] == 1.0 and host(y)[1] == 2.0, "the writes did not run inside the reshape"
    y[2] = 3.0
    assert host(r).ravel().tolist()[2] == 0.0, "the result followed y's write"
    assert_no_aliases([x, y, r])


def test_a_view_of_the_backends_own_temporary_is_private_without_a_copy(
    backend_patch: BackendPatch, copies: object
) -> None:
    # The other side of the test above: a view of memory nothing else holds
    # (the backend's temporary) is this value's own, with no copy.
    from cowarray._backends.numpy import NUMPY_BACKEND

    real = NUMPY_BACKEND.reshape_view
    backend_patch.setattr(
        NUMPY_BACKEND, "reshape_view", lambda data, shape: real(data.copy(), shape)
    )
    x = ca.zeros(6)
    r = ca.reshape(x, (2, 3))
    backend_patch.undo()
    assert ca.copy_counters().copies == 0
    assert ca.cow_info(r).state == "private" and not ca.shares_buffer(r, x)
    r[0, 0] = 1.0
    assert host(x).tolist() == [0.0] * 6


def _zero_copy_imports(source: np.ndarray, attempts: int) -> list[ca.Array]:
    """Each attempt's ``asarray(source, copy=False)``: an alias of ``source``, or
    none where the import was refused because another alias exists."""
    imported: list[ca.Array] = []
    for _ in range(attempts):
        try:
            imported.append(ca.asarray(source, copy=False))
        except ValueError as error:
            assert "inside a cowarray buffer" in str(error)
    return imported


def test_two_threads_importing_one_ndarray_without_a_copy_never_both_alias_it() -> None:
    # Checking for an overlap and then registering the import let both threads
    # find nothing and both alias the ndarray (the race from_torch had). Each
    # import now registers, then checks: of two at once at most one aliases,
    # and both may refuse (each sees the other's entry; seen on 3.13t).
    with switching_every_microsecond():
        for _ in range(400):
            source = np.zeros(8)
            results: list[list[ca.Array]] = [[], []]
            errors: list[BaseException] = []
            barrier = threading.Barrier(2)

            def work(
                i: int,
                source: np.ndarray = source,
                results: list[list[ca.Array]] = results,
                errors: list[BaseException] = errors,
                barrier: threading.Barrier = barrier,
            ) -> None:
                barrier.wait()
                try:
                    results[i] = _zero_copy_imports(source, 1)
                except BaseException as error:  # an import must alias, copy or refuse
                    errors.append(error)

            threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert not errors, f"an import raised {errors[0]!r}"
            imported = results[0] + results[1]
            assert len(imported) <= 1, f"{len(imported)} zero-copy aliases of one ndarray"


def test_imports_racing_each_other_never_fail() -> None:
    # Each import enters the boundary registry, checks the other entries and
    # may take its own entry out again while other threads do the same.
    # Iterating the registry while another thread changed it raised
    # RuntimeError (dictionary changed size) on 3.13t.
    errors: list[BaseException] = []

    def work(source: np.ndarray, barrier: threading.Barrier) -> None:
        barrier.wait()
        try:
            for _ in range(20):
                _zero_copy_imports(source, 1)
        except BaseException as error:  # an import must alias, copy or refuse
            errors.append(error)

    with switching_every_microsecond():
        for _ in range(50):
            barrier = threading.Barrier(4)
            source = np.zeros(8)
            threads = [threading.Thread(target=work, args=(source, barrier)) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    assert not errors, f"{len(errors)} imports raised, the first {errors[0]!r}"


@pytest.mark.parametrize("at", range(1, 9))
def test_an_import_inside_an_import_without_a_copy_never_aliases_it(at: int) -> None:
    # The ndarray is imported again at the at-th collection inside the import.
    source = np.zeros(8)
    inner: list[ca.Array] = []
    collections = [0]

    def import_again() -> None:
        collections[0] += 1
        if collections[0] == at:
            inner.extend(_zero_copy_imports(source, 1))

    with gc_callback(import_again):
        outer = _zero_copy_imports(source, 1)
    assert len(outer + inner) <= 1, "two zero-copy aliases of one ndarray"


# -- an in-place operator on a shared array, computed into new memory in one pass --


@contextlib.contextmanager
def _cloning_at_every_gc(x: ca.Array, kept: ca.Array) -> Iterator[list[ca.Array]]:
    """Inside: every gc pass (up to 60 arrays in all) clones ``x``, views it
    and clones ``kept``; the list of them is yielded."""
    clones: list[ca.Array] = []
    armed = [True]

    def clone() -> None:
        if armed[0] and len(clones) < 60:
            clones.extend((ca.lazy_clone(x), x[1:], ca.lazy_clone(kept)))

    with gc_callback(clone):
        yield clones
        armed[0] = False


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda x: x.__isub__(1.0), id="x -= 1.0"),
        pytest.param(lambda x: x.__imul__(ca.full(x.shape[-1], 2.0)), id="x *= row"),
    ],
)
def test_a_gc_callback_inside_a_one_pass_write_of_a_shared_array_never_aliases(
    write: Callable[[ca.Array], object],
) -> None:
    # Big and shared: the operator computes the new values into new memory
    # (cowarray._core.cow.write's ``derive``), allocating where a callback runs.
    x = ca.ones((512, 256))
    kept = ca.lazy_clone(x)
    with _cloning_at_every_gc(x, kept) as clones:
        write(x)
    assert float(ca.max(kept)) == float(ca.min(kept)) == 1.0
    assert float(x[0, 0]) in (0.0, 2.0)
    assert_no_aliases([x, kept, *clones])


def _subtract_from_inner_rows(x: ca.Array) -> ca.Array:
    x[1:-1] -= 1.0  # x's view, written back into x: the write goes through x's record
    return x


def test_a_gc_callback_inside_a_one_pass_write_back_of_a_shared_array_never_aliases() -> None:
    # ``x = kept.copy(); x[1:-1] -= 1.0``: the view's new values are derived
    # into new memory (allocating where a callback runs), then x copies itself.
    kept = ca.ones((512, 256))
    x = kept.copy()
    with _cloning_at_every_gc(x, kept) as clones:
        _subtract_from_inner_rows(x)
    assert float(ca.max(kept)) == float(ca.min(kept)) == 1.0
    assert float(x[0, 0]) == float(x[-1, 0]) == 1.0
    assert float(ca.max(x[1:-1])) == float(ca.min(x[1:-1])) == 0.0
    assert_no_aliases([x, kept, *clones])


def test_threads_cloning_arrays_written_in_one_pass_never_see_them_change() -> None:
    x = ca.ones((256, 256))
    current: list[ca.Array] = [ca.lazy_clone(x)]
    clones: list[tuple[ca.Array, float]] = []
    done = threading.Event()
    wrong: list[float] = []

    def writer() -> None:
        for _ in range(300):
            a = x.copy()  # shared with x: the write below derives a's new memory
            current[0] = a
            a -= 1.0
            if float(a[7, 7]) != 0.0:
                wrong.append(float(a[7, 7]))
        done.set()

    def cloner() -> None:
        while not done.is_set():
            c = ca.lazy_clone(current[0])
            clones.append((c, float(c[7, 7])))

    race(writer, cloner)
    assert not wrong, wrong[:3]
    assert float(ca.min(x)) == float(ca.max(x)) == 1.0
    changed = [(then, float(c[7, 7])) for c, then in clones if float(c[7, 7]) != then]
    assert not changed, f"{len(changed)} of {len(clones)} clones changed, e.g. {changed[:3]}"


@pytest.mark.parametrize("export", ["numpy", "dlpack"])
def test_an_export_on_another_thread_never_loses_the_owners_writes(export: str) -> None:
    # One thread updates x, taking a clone of it first each time (so each
    # update copies); another exports x all along, which first gives x
    # memory of its own (a copy of a shared buffer). The export's copy was
    # committed over an update that ended meanwhile: the update was lost.
    shape = (128, 64)
    done = threading.Event()
    state: dict[str, Any] = {"x": None}
    lost: list[int] = []

    def update() -> None:
        x = ca.zeros(shape)
        model = np.zeros(shape)
        state["x"] = x
        try:
            for step in range(600):
                clone = x.copy()
                x[1:-1] += 1.0
                model[1:-1] += 1.0
                if step % 3 == 0:
                    x[:, 1:3] += 2.0
                    model[:, 1:3] += 2.0
                if step % 5 == 0:
                    x[::-1] += 0.5
                    model[::-1] += 0.5
                del clone
                if not np.array_equal(x._data, model):
                    lost.append(step)
                    return
        finally:
            done.set()

    def read() -> None:
        while not done.is_set():
            x = state["x"]
            if x is None:
                continue
            if export == "numpy":
                np.asarray(x)
            else:
                x.__dlpack__()

    for _ in range(8):  # (one run in two lost an update before the fix)
        run_together(update, read, timeout=120)
        done.clear()
        assert not lost, f"an update was lost at step {lost[0]}"
