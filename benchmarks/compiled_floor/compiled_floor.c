/* compiled_floor: what cowarray's hot paths could cost in C.
 *
 * A MEASUREMENT PROTOTYPE, not part of the cowarray package and not a
 * supported build: benchmarks/compiled_floor/compiled_floor.py builds it,
 * checks it and times it as evidence for one design decision (whether to
 * write the Array core in a compiled language). Nothing imports it.
 *
 * It models five statements: x.T, x[slice], x.reshape(...), a + b and
 * move(x).at[i].set(v), in their steady-state fast paths, wired to
 * cowarray's real module state (view-write queue, records, family token,
 * donation marks) through configure(). It skips, compared with cowarray:
 *   - every slow path: a Python stand-in given to configure() (exposed or
 *     foreign memory, the locked _cow.join, are not modelled);
 *   - x[key] is fast only for an exact slice; no IndexError rewording;
 *   - reshape has no order= / copy=;
 *   - a + b only for two arrays with the same device object and dtype
 *     object: no promotion, scalars, reflected operators, error rewording
 *     or thread-split gate;
 *   - the update has no lock (it relies on the GIL; a free-threaded build
 *     would need a critical section), its refcount proof is calibrated once
 *     (configure(expect_x=, expect_at=)), it takes no mode / hint keywords
 *     and sends no observer events;
 *   - direct mode's store is a raw double store, for 1-D float64 only;
 *   - devices are compared by identity;
 *   - CPython 3.11+ with the GIL only; not the stable ABI.
 *
 * Two modes, switched by set_direct(flag) (a C global read on each call):
 *   generic (0), "C": a hybrid port. The backend is reached through the
 *       generic object protocol (data.T by PyObject_GetAttr, data.reshape by
 *       PyObject_VectorcallMethod, data.dtype / .base / .shape / .ndim by
 *       GetAttr), buf.shareable by PyObject_GetAttr on the real Python
 *       cowarray Buffer (a __slots__ member), the observer read from the
 *       _cow module's dict, must_copy_before_write called in Python.
 *   direct (1), "C+": a full C port for NumPy. NumPy's C API
 *       (PyArray_Transpose, PyArray_Newshape, PyArray_DESCR, PyArray_BASE, a
 *       raw double store), a C Buffer with a flag field, a C observer
 *       pointer, a C family.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

typedef struct {
    PyObject_HEAD
    PyObject *data, *buf, *device, *fast_write, *family;
} CArray;

typedef struct {
    PyObject_HEAD
    char shareable; /* a char: what T_BOOL reads and writes */
} CBuffer;

typedef struct {
    PyObject_HEAD
    PyObject *views;
} CFamily;

typedef struct {
    PyObject_HEAD
    PyObject *array;
} Indexer;

typedef struct {
    PyObject_HEAD
    PyObject *array, *index;
} AtObj;

static PyTypeObject CArrayType, CBufferType, CFamilyType, IndexerType, AtType;

/* module state (globals: a prototype) */
static PyObject *g_pending;        /* list: non-empty = pending warnings */
static PyObject *g_flush;          /* callable() */
static PyObject *g_cow_dict;       /* dict holding "observer" (generic mode) */
static PyObject *g_observer;       /* C observer (direct mode), borrowed-ish */
static PyObject *g_views_type;     /* the _Views type */
static PyObject *g_views_token;    /* callable(array) -> token */
static PyObject *g_slow_view;      /* callable(source, result) -> Array */
static PyObject *g_no_fast_write;  /* frozenset() */
static PyObject *g_donated;        /* DONATED frozenset */
static PyObject *g_poison;         /* moved-from data/device */
static PyObject *g_allowed_add;    /* frozenset of dtypes add accepts (or None) */
static PyObject *g_stored_as_is;   /* dict dtype -> frozenset of scalar types */
static PyObject *g_must_copy;      /* callable(data) -> bool (generic mode) */
static int g_lock_free = 1;
static int g_direct = 0;
static Py_ssize_t g_exp_x = 2, g_exp_at = 2;  /* calibrated refcounts */
static Py_ssize_t g_last_x = -1, g_last_at = -1;

static PyObject *s_T, *s_shareable, *s_views, *s_observer, *s_reshape, *s_base,
    *s_shape, *s_dtype, *s_ndim, *s_copy;

/* ------------------------------------------------------- object slots */

/* Every GC type here (CArray, CFamily, AtIndexer, At) is an object header
 * followed by object references only: one traverse, clear and dealloc
 * serve them all. */
#define SLOTS(self) ((PyObject **)((char *)(self) + sizeof(PyObject)))
#define NSLOTS(self) \
    ((Py_ssize_t)((Py_TYPE(self)->tp_basicsize - sizeof(PyObject)) / sizeof(PyObject *)))
_Static_assert(sizeof(CArray) == sizeof(PyObject) + 5 * sizeof(PyObject *), "CArray: slots");
_Static_assert(sizeof(CFamily) == sizeof(PyObject) + sizeof(PyObject *), "CFamily: slots");
_Static_assert(sizeof(Indexer) == sizeof(PyObject) + sizeof(PyObject *), "Indexer: slots");
_Static_assert(sizeof(AtObj) == sizeof(PyObject) + 2 * sizeof(PyObject *), "AtObj: slots");

static int
slots_traverse(PyObject *self, visitproc visit, void *arg)
{
    PyObject **slots = SLOTS(self);
    for (Py_ssize_t i = 0, n = NSLOTS(self); i < n; i++)
        Py_VISIT(slots[i]);
    return 0;
}

static int
slots_clear(PyObject *self)
{
    PyObject **slots = SLOTS(self);
    for (Py_ssize_t i = 0, n = NSLOTS(self); i < n; i++)
        Py_CLEAR(slots[i]);
    return 0;
}

static void
slots_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    slots_clear(self);
    PyObject_GC_Del(self);
}

/* The type fields every GC type here shares */
#define SLOTS_TYPE(name, type, dealloc)                                              \
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "compiled_floor." name,                   \
    .tp_basicsize = sizeof(type), .tp_dealloc = (dealloc),                             \
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, .tp_traverse = slots_traverse, \
    .tp_clear = slots_clear

static void
carray_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_TRASHCAN_BEGIN(self, carray_dealloc)
    slots_clear(self);
    PyObject_GC_Del(self);
    Py_TRASHCAN_END
}

/* ---------------------------------------------------------------- helpers */

static inline int
flush_pending(void)
{
    if (PyList_GET_SIZE(g_pending)) {
        PyObject *r = PyObject_CallNoArgs(g_flush);
        if (r == NULL)
            return -1;
        Py_DECREF(r);
    }
    return 0;
}

/* 1: no observer; 0: observed; -1 error */
static inline int
observer_is_none(void)
{
    if (g_direct)
        return g_observer == Py_None;
    PyObject *o = PyDict_GetItemWithError(g_cow_dict, s_observer); /* borrowed */
    if (o == NULL)
        return PyErr_Occurred() ? -1 : 1;
    return o == Py_None;
}

/* buf.shareable: 1/0, -1 error */
static inline int
buf_shareable(PyObject *buf)
{
    if (Py_IS_TYPE(buf, &CBufferType))
        return ((CBuffer *)buf)->shareable;
    PyObject *v = PyObject_GetAttr(buf, s_shareable);
    if (v == NULL)
        return -1;
    int r = (v == Py_True) ? 1 : (v == Py_False ? 0 : PyObject_IsTrue(v));
    Py_DECREF(v);
    return r;
}

/* views_token(source), inlined as cowarray does: a new reference */
static inline PyObject *
views_token_of(CArray *source)
{
    PyObject *family = source->family;
    if (Py_IS_TYPE(family, (PyTypeObject *)g_views_type))
        return Py_NewRef(family);
    if (family == Py_None)
        return PyObject_CallOneArg(g_views_token, (PyObject *)source);
    if (Py_IS_TYPE(family, &CFamilyType))
        return Py_NewRef(((CFamily *)family)->views);
    return PyObject_GetAttr(family, s_views);
}

/* A new CArray; steals every argument. Untracked until filled. */
static inline PyObject *
make(PyObject *data, PyObject *buf, PyObject *device, PyObject *fast_write, PyObject *family)
{
    CArray *a = PyObject_GC_New(CArray, &CArrayType);
    if (a == NULL) {
        Py_DECREF(data);
        Py_DECREF(buf);
        Py_DECREF(device);
        Py_DECREF(fast_write);
        Py_DECREF(family);
        return NULL;
    }
    a->data = data;
    a->buf = buf;
    a->device = device;
    a->fast_write = fast_write;
    a->family = family;
    PyObject_GC_Track(a);
    return (PyObject *)a;
}

static PyObject *
slow_view(CArray *self, PyObject *result) /* steals result */
{
    if (result == NULL)
        return NULL;
    PyObject *r = PyObject_CallFunctionObjArgs(g_slow_view, (PyObject *)self, result, NULL);
    Py_DECREF(result);
    return r;
}

/* x[key] by the slow path; data is owned across the backend call, which may
 * run Python code that replaces the slot */
static PyObject *
slow_item(CArray *self, PyObject *key)
{
    PyObject *data = Py_NewRef(self->data);
    PyObject *result = slow_view(self, PyObject_GetItem(data, key));
    Py_DECREF(data);
    return result;
}

/* The join: ``result`` (new ref, stolen), a view of self->data, becomes a new
 * holder of self's buffer if the lock-free conditions hold and neither buf nor
 * data was replaced meanwhile. Returns NULL with no error set when the caller
 * must take the slow path (result is then given back through *back). */
static PyObject *
join(CArray *self, PyObject *data, PyObject *buf, PyObject *result, PyObject **back)
{
    PyObject *family = views_token_of(self);
    if (family == NULL) {
        Py_DECREF(result);
        return NULL;
    }
    PyObject *array = make(result, Py_NewRef(buf), Py_NewRef(self->device),
                           Py_NewRef(g_no_fast_write), family);
    if (array == NULL)
        return NULL;
    if (self->buf == buf && self->data == data)
        return array;
    /* replaced meanwhile: hand the view back for the slow path */
    *back = Py_NewRef(((CArray *)array)->data);
    Py_DECREF(array);
    return NULL;
}

/* join, or (the record or the memory replaced meanwhile) the slow path */
static inline PyObject *
join_or_slow(CArray *self, PyObject *data, PyObject *buf, PyObject *result)
{
    PyObject *back = NULL;
    PyObject *array = join(self, data, buf, result, &back);
    if (array != NULL || back == NULL)
        return array;
    return slow_view(self, back);
}

/* the gate: 1 take the fast path, 0 slow, -1 error. */
static inline int
gate(PyObject *buf)
{
    if (!g_lock_free || buf == Py_None)
        return 0;
    int r = buf_shareable(buf);
    if (r <= 0)
        return r;
    return observer_is_none();
}

/* ---------------------------------------------------------------- CArray */

static PyObject *
carray_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *data, *buf = Py_None, *device = Py_None, *fast_write = NULL, *family = Py_None;
    static char *kwlist[] = {"data", "buf", "device", "fast_write", "family", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOO", kwlist, &data, &buf, &device,
                                     &fast_write, &family))
        return NULL;
    if (fast_write == NULL)
        fast_write = g_no_fast_write;
    return make(Py_NewRef(data), Py_NewRef(buf), Py_NewRef(device), Py_NewRef(fast_write),
                Py_NewRef(family));
}

/* x.T */
static PyObject *
carray_T(CArray *self, void *closure)
{
    PyObject *data = Py_NewRef(self->data);
    PyObject *buf = NULL, *result = NULL;
    long n;
    if (g_direct) {
        if (!PyArray_Check(data))
            goto slow;
        n = PyArray_NDIM((PyArrayObject *)data);
    }
    else {
        PyObject *nd = PyObject_GetAttr(data, s_ndim);
        if (nd == NULL)
            goto error;
        n = PyLong_AsLong(nd);
        Py_DECREF(nd);
    }
    if (n != 2) { /* both modes raise, as cowarray */
        if (n == -1 && PyErr_Occurred())
            goto error;
        PyErr_Format(PyExc_ValueError, "x.T is defined for 2-D arrays only, this one has %ld", n);
        goto error;
    }
    if (flush_pending() < 0)
        goto error;
    buf = Py_NewRef(self->buf);
    int g = gate(buf);
    if (g < 0)
        goto error;
    if (g) {
        PyObject *t = g_direct ? PyArray_Transpose((PyArrayObject *)data, NULL)
                               : PyObject_GetAttr(data, s_T);
        if (t == NULL)
            goto error;
        result = join_or_slow(self, data, buf, t);
        Py_DECREF(buf);
        Py_DECREF(data);
        return result;
    }
slow:
    Py_XDECREF(buf);
    result = slow_view(self, PyObject_GetAttr(data, s_T));
    Py_DECREF(data);
    return result;
error:
    Py_XDECREF(buf);
    Py_DECREF(data);
    return NULL;
}

/* x[key] */
static PyObject *
carray_subscript(CArray *self, PyObject *key)
{
    PyObject *data, *buf, *result;
    if (!Py_IS_TYPE(key, &PySlice_Type))
        return slow_item(self, key);
    if (flush_pending() < 0)
        return NULL;
    buf = Py_NewRef(self->buf);
    int g = gate(buf);
    if (g < 0) {
        Py_DECREF(buf);
        return NULL;
    }
    if (g) {
        data = Py_NewRef(self->data);
        PyObject *v = PyObject_GetItem(data, key);
        result = v == NULL ? NULL : join_or_slow(self, data, buf, v);
        Py_DECREF(buf);
        Py_DECREF(data);
        return result;
    }
    Py_DECREF(buf);
    return slow_item(self, key);
}

/* The tail of _view_of: ``result`` (stolen) from ``data`` (borrowed, the
 * self->data read before the backend call). */
static PyObject *
view_of(CArray *self, PyObject *data, PyObject *result)
{
    if (flush_pending() < 0) {
        Py_DECREF(result);
        return NULL;
    }
    int is_view;
    if (g_direct) {
        PyObject *base = PyArray_Check(result) ? PyArray_BASE((PyArrayObject *)result) : NULL;
        is_view = base != NULL && Py_TYPE(result) == Py_TYPE(data) &&
                  (base == data || base == PyArray_BASE((PyArrayObject *)data));
    }
    else {
        PyObject *base = PyObject_GetAttr(result, s_base);
        if (base == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        is_view = base != Py_None && Py_TYPE(result) == Py_TYPE(data);
        if (is_view && base != data) {
            PyObject *dbase = PyObject_GetAttr(data, s_base);
            if (dbase == NULL) {
                Py_DECREF(base);
                Py_DECREF(result);
                return NULL;
            }
            is_view = base == dbase;
            Py_DECREF(dbase);
        }
        Py_DECREF(base);
    }
    if (is_view) {
        PyObject *buf = Py_NewRef(self->buf);
        int g = gate(buf);
        if (g < 0) {
            Py_DECREF(buf);
            Py_DECREF(result);
            return NULL;
        }
        if (g) {
            PyObject *r = join_or_slow(self, data, buf, result);
            Py_DECREF(buf);
            return r;
        }
        Py_DECREF(buf);
    }
    return slow_view(self, result);
}

/* x.reshape(*shape) */
static PyObject *
carray_reshape(CArray *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames)) {
        PyErr_SetString(PyExc_NotImplementedError, "prototype: reshape keywords");
        return NULL;
    }
    if (nargs == 0) {
        PyErr_SetString(PyExc_TypeError, "x.reshape() needs a shape");
        return NULL;
    }
    PyObject *shape;
    if (nargs == 1 && PyTuple_CheckExact(args[0])) {
        shape = Py_NewRef(args[0]);
    }
    else {
        shape = PyTuple_New(nargs);
        if (shape == NULL)
            return NULL;
        for (Py_ssize_t i = 0; i < nargs; i++)
            PyTuple_SET_ITEM(shape, i, Py_NewRef(args[i]));
    }
    PyObject *data = Py_NewRef(self->data);
    PyObject *result = NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(shape);
    if (g_direct && PyArray_Check(data) && n <= NPY_MAXDIMS) {
        npy_intp dims[NPY_MAXDIMS];
        int ok = 1;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = PyTuple_GET_ITEM(shape, i);
            if (!PyLong_CheckExact(e)) {
                ok = 0;
                break;
            }
            dims[i] = PyLong_AsSsize_t(e);
            if (dims[i] < -1 || (dims[i] == -1 && PyErr_Occurred())) {
                PyErr_Clear(); /* overflow or a negative entry: NumPy's own error */
                ok = 0;
                break;
            }
        }
        if (ok) {
            PyArray_Dims newshape = {dims, (int)n};
            result = PyArray_Newshape((PyArrayObject *)data, &newshape, NPY_CORDER);
            /* entries were exact ints >= -1: a filled -1 is the only difference */
            goto have;
        }
    }
    {
        PyObject *callargs[2] = {data, shape};
        result = PyObject_VectorcallMethod(s_reshape, callargs, 2, NULL);
        if (result == NULL)
            goto done;
        PyObject *rs = PyObject_GetAttr(result, s_shape);
        if (rs == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        int same = PyObject_RichCompareBool(rs, shape, Py_EQ);
        Py_DECREF(rs);
        if (same < 0) {
            Py_CLEAR(result);
            goto done;
        }
        if (!same) {
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *e = PyTuple_GET_ITEM(shape, i);
                Py_ssize_t v = PyLong_CheckExact(e) ? PyLong_AsSsize_t(e) : -2;
                if (v < -1 || (v == -1 && PyErr_Occurred())) {
                    PyErr_Clear();
                    PyErr_SetString(PyExc_NotImplementedError, "prototype: odd reshape entries");
                    Py_CLEAR(result);
                    goto done;
                }
            }
        }
    }
have:
    if (result != NULL)
        result = view_of(self, data, result);
done:
    Py_DECREF(shape);
    Py_DECREF(data);
    return result;
}

/* a + b */
/* 1: add accepts dtype ``dt``; 0: not (NotImplemented); -1 error */
static inline int
add_accepts(PyObject *dt)
{
    return g_allowed_add == Py_None ? 1 : PySet_Contains(g_allowed_add, dt);
}

static PyObject *
carray_add(PyObject *a, PyObject *b)
{
    if (!Py_IS_TYPE(a, &CArrayType) || !Py_IS_TYPE(b, &CArrayType))
        Py_RETURN_NOTIMPLEMENTED;
    CArray *x = (CArray *)a, *y = (CArray *)b;
    if (y->device != x->device)
        Py_RETURN_NOTIMPLEMENTED; /* prototype: real code promotes / raises */
    /* owned across the calls below, which may run Python code */
    PyObject *device = Py_NewRef(x->device);
    PyObject *da = Py_NewRef(x->data), *db = Py_NewRef(y->data);
    PyObject *r = NULL;
    int ok;
    if (g_direct) {
        ok = PyArray_Check(da) && PyArray_Check(db) &&
             PyArray_DESCR((PyArrayObject *)da) == PyArray_DESCR((PyArrayObject *)db);
        if (ok)
            ok = add_accepts((PyObject *)PyArray_DESCR((PyArrayObject *)da));
    }
    else {
        PyObject *ta = PyObject_GetAttr(da, s_dtype);
        PyObject *tb = ta == NULL ? NULL : PyObject_GetAttr(db, s_dtype);
        ok = tb == NULL ? -1 : ta == tb;
        if (ok > 0)
            ok = add_accepts(ta);
        Py_XDECREF(ta);
        Py_XDECREF(tb);
    }
    if (ok <= 0) {
        if (ok == 0)
            r = Py_NewRef(Py_NotImplemented);
        goto done;
    }
    r = PyNumber_Add(da, db);
    if (r == NULL || flush_pending() < 0) {
        Py_CLEAR(r);
        goto done;
    }
    int fresh;
    if (g_direct)
        fresh = PyArray_CheckExact(r) && PyArray_BASE((PyArrayObject *)r) == NULL;
    else {
        PyObject *base = PyObject_GetAttr(r, s_base);
        if (base == NULL) {
            Py_CLEAR(r);
            goto done;
        }
        fresh = Py_TYPE(r) == Py_TYPE(da) && base == Py_None;
        Py_DECREF(base);
    }
    if (!fresh)
        r = slow_view(x, r); /* prototype: real code calls fresh()/_wrap */
    else
        r = make(r, Py_NewRef(Py_None), Py_NewRef(device), Py_NewRef(g_no_fast_write),
                 Py_NewRef(Py_None));
done:
    Py_DECREF(da);
    Py_DECREF(db);
    Py_DECREF(device);
    return r;
}

/* x.at */
static PyObject *
carray_at(CArray *self, void *closure)
{
    Indexer *ix = PyObject_GC_New(Indexer, &IndexerType);
    if (ix == NULL)
        return NULL;
    ix->array = Py_NewRef(self);
    PyObject_GC_Track(ix);
    return (PyObject *)ix;
}

static PyGetSetDef carray_getset[] = {
    {"T", (getter)carray_T, NULL, "transpose (fast path in C)", NULL},
    {"at", (getter)carray_at, NULL, "functional updates", NULL},
    {NULL},
};

static PyMemberDef carray_members[] = {
    {"_data", T_OBJECT_EX, offsetof(CArray, data), 0, NULL},
    {"_buf", T_OBJECT_EX, offsetof(CArray, buf), 0, NULL},
    {"_device", T_OBJECT_EX, offsetof(CArray, device), 0, NULL},
    {"_fast_write", T_OBJECT_EX, offsetof(CArray, fast_write), 0, NULL},
    {"_family", T_OBJECT_EX, offsetof(CArray, family), 0, NULL},
    {NULL},
};

static PyMethodDef carray_methods[] = {
    {"reshape", (PyCFunction)(void (*)(void))carray_reshape, METH_FASTCALL | METH_KEYWORDS, NULL},
    {NULL},
};

static PyMappingMethods carray_mapping = {0, (binaryfunc)carray_subscript, 0};
static PyNumberMethods carray_number = {.nb_add = carray_add};

static PyTypeObject CArrayType = {
    SLOTS_TYPE("CArray", CArray, carray_dealloc),
    .tp_getset = carray_getset,
    .tp_members = carray_members,
    .tp_methods = carray_methods,
    .tp_as_mapping = &carray_mapping,
    .tp_as_number = &carray_number,
    .tp_new = carray_new,
};

/* ---------------------------------------------------------------- CBuffer */

static PyObject *
cbuffer_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    int shareable = 1;
    static char *kwlist[] = {"shareable", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p", kwlist, &shareable))
        return NULL;
    CBuffer *b = (CBuffer *)type->tp_alloc(type, 0);
    if (b)
        b->shareable = shareable;
    return (PyObject *)b;
}

static PyMemberDef cbuffer_members[] = {
    {"shareable", T_BOOL, offsetof(CBuffer, shareable), 0, NULL},
    {NULL},
};

static PyTypeObject CBufferType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "compiled_floor.Buffer",
    .tp_basicsize = sizeof(CBuffer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_members = cbuffer_members,
    .tp_new = cbuffer_new,
};

/* ---------------------------------------------------------------- CFamily */

static PyObject *
cfamily_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *views;
    if (!PyArg_ParseTuple(args, "O", &views))
        return NULL;
    CFamily *f = PyObject_GC_New(CFamily, type);
    if (f == NULL)
        return NULL;
    f->views = Py_NewRef(views);
    PyObject_GC_Track(f);
    return (PyObject *)f;
}
static PyMemberDef cfamily_members[] = {
    {"views", T_OBJECT_EX, offsetof(CFamily, views), 0, NULL},
    {NULL},
};
static PyTypeObject CFamilyType = {
    SLOTS_TYPE("Family", CFamily, slots_dealloc),
    .tp_members = cfamily_members,
    .tp_new = cfamily_new,
};

/* ---------------------------------------------------------------- Indexer */

static PyObject *
indexer_subscript(Indexer *self, PyObject *key)
{
    AtObj *at = PyObject_GC_New(AtObj, &AtType);
    if (at == NULL)
        return NULL;
    at->array = Py_NewRef(self->array);
    at->index = Py_NewRef(key);
    PyObject_GC_Track(at);
    return (PyObject *)at;
}
static PyMappingMethods indexer_mapping = {0, (binaryfunc)indexer_subscript, 0};
static PyTypeObject IndexerType = {
    SLOTS_TYPE("AtIndexer", Indexer, slots_dealloc),
    .tp_as_mapping = &indexer_mapping,
};

/* ---------------------------------------------------------------- At */

/* poison ``x`` and return a new CArray around ``data`` (stolen) */
static PyObject *
take_over(CArray *x, PyObject *data, PyObject *buf /* stolen */)
{
    /* the caller has set x->data and x->buf to NULL, owning their references */
    PyObject *device = x->device, *family = x->family, *old_fw = x->fast_write;
    x->data = Py_NewRef(g_poison);
    x->device = Py_NewRef(g_poison);
    x->buf = Py_NewRef(Py_None);
    x->fast_write = Py_NewRef(g_no_fast_write);
    x->family = Py_NewRef(Py_None);
    /* x is consistent again: now the old references may go */
    Py_DECREF(old_fw);
    if (flush_pending() < 0) {
        Py_DECREF(data);
        Py_DECREF(buf);
        Py_DECREF(device);
        Py_DECREF(family);
        return NULL;
    }
    return make(data, buf, device, Py_NewRef(g_donated), family);
}

/* .set(values, *, mode=None, indices_are_sorted=False, unique_indices=False) */
static PyObject *
at_set(AtObj *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "set() takes one positional argument");
        return NULL;
    }
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames)) {
        PyErr_SetString(PyExc_NotImplementedError, "prototype: set() keywords");
        return NULL;
    }
    PyObject *value = args[0];
    PyObject *xo = self->array;
    if (!Py_IS_TYPE(xo, &CArrayType)) {
        PyErr_SetString(PyExc_TypeError, "x.at[...] needs a CArray");
        return NULL;
    }
    CArray *x = (CArray *)xo;
    PyObject *key = self->index;
    /* The last-use proof reads the two counts before anything binds x. */
    Py_ssize_t rx = Py_REFCNT(xo), rat = Py_REFCNT(self);
    g_last_x = rx;
    g_last_at = rat;
    int taken = rx == g_exp_x && (rat == g_exp_at || x->fast_write == g_donated);
    PyObject *data = Py_NewRef(x->data); /* owned: the checks may run Python code */
    int fast = 0;
    if (PyLong_CheckExact(key) && g_lock_free) {
        int obs = observer_is_none();
        if (obs < 0)
            goto fail;
        if (obs) {
            if (g_direct) {
                fast = PyArray_Check(data) &&
                       PyArray_TYPE((PyArrayObject *)data) == NPY_DOUBLE &&
                       (PyFloat_CheckExact(value) || PyLong_CheckExact(value) ||
                        PyBool_Check(value));
            }
            else {
                PyObject *dt = PyObject_GetAttr(data, s_dtype);
                if (dt == NULL)
                    goto fail;
                PyObject *ok = PyDict_GetItemWithError(g_stored_as_is, dt); /* borrowed */
                Py_DECREF(dt);
                if (ok == NULL && PyErr_Occurred())
                    goto fail;
                if (ok != NULL) {
                    int c = PySet_Contains(ok, (PyObject *)Py_TYPE(value));
                    if (c < 0)
                        goto fail;
                    fast = c;
                }
            }
        }
    }
    if (fast && taken && x->buf == Py_None) {
        /* _store_taken: key in range, data writable and not broadcast */
        Py_ssize_t k = PyLong_AsSsize_t(key);
        if (k == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            goto general;
        }
        if (g_direct) {
            PyArrayObject *d = (PyArrayObject *)data;
            if (PyArray_NDIM(d) != 1)
                goto general;
            npy_intp n = PyArray_DIM(d, 0);
            /* behaved: writeable, and aligned and native-endian for the raw store */
            if (k < -n || k >= n || !PyArray_ISBEHAVED(d) ||
                (n > 1 && PyArray_STRIDE(d, 0) == 0))
                goto general;
            if (k < 0)
                k += n;
            double v;
            if (PyFloat_CheckExact(value))
                v = PyFloat_AS_DOUBLE(value);
            else {
                v = PyLong_AsDouble(value);
                if (v == -1.0 && PyErr_Occurred()) {
                    PyErr_Clear();
                    goto general;
                }
            }
            *(double *)PyArray_GETPTR1(d, k) = v;
        }
        else {
            PyObject *shape = PyObject_GetAttr(data, s_shape);
            if (shape == NULL) {
                Py_DECREF(data);
                return NULL;
            }
            if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) == 0) {
                Py_DECREF(shape);
                goto general;
            }
            Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, 0));
            Py_DECREF(shape);
            if (k < -n || k >= n)
                goto general;
            PyObject *mc = PyObject_CallOneArg(g_must_copy, data);
            if (mc == NULL) {
                Py_DECREF(data);
                return NULL;
            }
            int must = PyObject_IsTrue(mc);
            Py_DECREF(mc);
            if (must < 0)
                goto fail;
            if (must)
                goto general;
            /* the buffer may not have changed meanwhile (must_copy ran Python) */
            if (x->data != data || x->buf != Py_None)
                goto general;
            if (PyObject_SetItem(data, key, value) < 0) {
                Py_DECREF(data);
                return NULL;
            }
        }
        /* detach the slots take_over replaces; data keeps our reference */
        x->data = NULL;
        Py_DECREF(data); /* the slot's reference (ours remains) */
        PyObject *b = x->buf;
        x->buf = NULL;
        return take_over(x, data, b);
    }
general:
    /* prototype's general path: a private copy, then the store */
    {
        PyObject *copy = PyObject_CallMethodNoArgs(data, s_copy);
        Py_DECREF(data);
        if (copy == NULL)
            return NULL;
        if (PyObject_SetItem(copy, key, value) < 0) {
            Py_DECREF(copy);
            return NULL;
        }
        return make(copy, Py_NewRef(Py_None), Py_NewRef(x->device), Py_NewRef(g_donated),
                    Py_NewRef(Py_None));
    }
fail:
    Py_DECREF(data);
    return NULL;
}

static PyMethodDef at_methods[] = {
    {"set", (PyCFunction)(void (*)(void))at_set, METH_FASTCALL | METH_KEYWORDS, NULL},
    {NULL},
};
static PyMemberDef at_members[] = {
    {"array", T_OBJECT_EX, offsetof(AtObj, array), READONLY, NULL},
    {"index", T_OBJECT_EX, offsetof(AtObj, index), READONLY, NULL},
    {NULL},
};
static PyTypeObject AtType = {
    SLOTS_TYPE("At", AtObj, slots_dealloc),
    .tp_methods = at_methods,
    .tp_members = at_members,
};

/* ---------------------------------------------------------------- module */

static PyObject *
mod_move(PyObject *m, PyObject *xo)
{
    if (!Py_IS_TYPE(xo, &CArrayType)) {
        PyErr_Format(PyExc_TypeError, "move expects a CArray, got %s", Py_TYPE(xo)->tp_name);
        return NULL;
    }
    CArray *x = (CArray *)xo;
    if (x->data == g_poison) {
        PyErr_SetString(PyExc_ValueError, "this array was moved");
        return NULL;
    }
    /* GIL build: nothing below runs Python code before x is consistent, so
     * no lock is needed (a free-threaded build would need a critical section) */
    PyObject *data = x->data, *buf = x->buf;
    x->data = NULL;
    x->buf = NULL;
    return take_over(x, data, buf);
}

#define SET_GLOBAL(name, var)                                      \
    do {                                                           \
        PyObject *v_ = PyDict_GetItemString(kw, name);             \
        if (v_ != NULL) {                                          \
            Py_XSETREF(var, Py_NewRef(v_));                        \
        }                                                          \
    } while (0)

static PyObject *
mod_configure(PyObject *m, PyObject *args, PyObject *kw)
{
    if (kw == NULL)
        Py_RETURN_NONE;
    SET_GLOBAL("pending", g_pending);
    SET_GLOBAL("flush", g_flush);
    SET_GLOBAL("cow_dict", g_cow_dict);
    SET_GLOBAL("observer", g_observer);
    SET_GLOBAL("views_type", g_views_type);
    SET_GLOBAL("views_token", g_views_token);
    SET_GLOBAL("slow_view", g_slow_view);
    SET_GLOBAL("no_fast_write", g_no_fast_write);
    SET_GLOBAL("donated", g_donated);
    SET_GLOBAL("poison", g_poison);
    SET_GLOBAL("allowed_add", g_allowed_add);
    SET_GLOBAL("stored_as_is", g_stored_as_is);
    SET_GLOBAL("must_copy", g_must_copy);
    PyObject *v;
    if ((v = PyDict_GetItemString(kw, "lock_free")))
        g_lock_free = PyObject_IsTrue(v);
    if ((v = PyDict_GetItemString(kw, "expect_x")))
        g_exp_x = PyLong_AsSsize_t(v);
    if ((v = PyDict_GetItemString(kw, "expect_at")))
        g_exp_at = PyLong_AsSsize_t(v);
    if (!PyList_Check(g_pending) || !PyDict_Check(g_cow_dict) || !PyType_Check(g_views_type) ||
        !PyDict_Check(g_stored_as_is)) {
        PyErr_SetString(PyExc_TypeError, "configure: wrong kinds");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
mod_set_direct(PyObject *m, PyObject *flag)
{
    int old = g_direct, direct = PyObject_IsTrue(flag);
    if (direct < 0)
        return NULL;
    g_direct = direct;
    return PyBool_FromLong(old);
}

static PyObject *
mod_last_counts(PyObject *m, PyObject *unused)
{
    return Py_BuildValue("nn", g_last_x, g_last_at);
}

static PyObject *
default_slow_view(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    PyErr_SetString(PyExc_NotImplementedError, "prototype: slow path not configured");
    return NULL;
}

static PyObject *
default_noop(PyObject *m, PyObject *unused)
{
    Py_RETURN_NONE;
}

static PyMethodDef mod_methods[] = {
    {"move", (PyCFunction)mod_move, METH_O, "move(x): hand x's buffer to a new array"},
    {"configure", (PyCFunction)(void (*)(void))mod_configure, METH_VARARGS | METH_KEYWORDS, NULL},
    {"set_direct", (PyCFunction)mod_set_direct, METH_O, NULL},
    {"last_counts", (PyCFunction)mod_last_counts, METH_NOARGS, NULL},
    {"_default_slow_view", (PyCFunction)(void (*)(void))default_slow_view, METH_FASTCALL, NULL},
    {"_noop", (PyCFunction)default_noop, METH_NOARGS, NULL},
    {NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "compiled_floor", NULL, -1, mod_methods};

PyMODINIT_FUNC
PyInit_compiled_floor(void)
{
    import_array();
    if (PyType_Ready(&CArrayType) < 0 || PyType_Ready(&CBufferType) < 0 ||
        PyType_Ready(&CFamilyType) < 0 || PyType_Ready(&IndexerType) < 0 ||
        PyType_Ready(&AtType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
#define INTERN(var, s) if (!(var = PyUnicode_InternFromString(s))) return NULL
    INTERN(s_T, "T");
    INTERN(s_shareable, "shareable");
    INTERN(s_views, "views");
    INTERN(s_observer, "observer");
    INTERN(s_reshape, "reshape");
    INTERN(s_base, "base");
    INTERN(s_shape, "shape");
    INTERN(s_dtype, "dtype");
    INTERN(s_ndim, "ndim");
    INTERN(s_copy, "copy");
    g_pending = PyList_New(0);
    g_cow_dict = PyDict_New();
    g_observer = Py_NewRef(Py_None);
    g_views_type = Py_NewRef((PyObject *)&PyBaseObject_Type);
    g_flush = PyObject_GetAttrString(m, "_noop");
    g_views_token = PyObject_GetAttrString(m, "_noop");
    g_slow_view = PyObject_GetAttrString(m, "_default_slow_view");
    g_no_fast_write = PyFrozenSet_New(NULL);
    g_donated = PyFrozenSet_New(NULL);
    g_poison = Py_NewRef(Py_None);
    g_allowed_add = Py_NewRef(Py_None);
    g_stored_as_is = PyDict_New();
    g_must_copy = PyObject_GetAttrString(m, "_noop");
    PyModule_AddObjectRef(m, "CArray", (PyObject *)&CArrayType);
    PyModule_AddObjectRef(m, "Buffer", (PyObject *)&CBufferType);
    PyModule_AddObjectRef(m, "Family", (PyObject *)&CFamilyType);
    PyModule_AddObjectRef(m, "AtIndexer", (PyObject *)&IndexerType);
    PyModule_AddObjectRef(m, "At", (PyObject *)&AtType);
    return m;
}
