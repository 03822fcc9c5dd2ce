/*
 * cowarray._temporaries: which operands of a Python operator are temporaries.
 *
 * In ``c * 2.0 + 1.0`` NumPy writes ``+ 1.0`` into the block of ``c * 2.0``
 * (temporary elision), because it can see that only the interpreter's value
 * stack holds that array: nothing else can ever read it again. Python code
 * cannot see that (numpy#28681): a name pushed by LOAD_FAST_BORROW (3.14+) and
 * a C extension's only reference show the counts of a temporary. From 3.14 on
 * CPython answers the question in C, PyUnstable_Object_IsUniqueReferencedTemporary,
 * which is the test NumPy uses; it holds only while the frame that executes
 * the operator is the current one, that is in a C function the interpreter
 * calls for the operator, with no Python frame pushed in between.
 *
 * This module gives that C function. ``operator(plain, on_temporaries,
 * min_bytes)`` is a callable that the Array type stores as ``__add__``,
 * ``__rmul__``, ...: its type has Py_TPFLAGS_METHOD_DESCRIPTOR, so the
 * type's ``nb_add`` slot calls it unbound with ``(self, other)`` and the
 * caller's frame still current (a bound attribute read, ``x.__add__``, binds
 * it like a function). It calls ``plain(self, other)``, unless an operand is
 * an array of at least ``min_bytes`` that only the caller's value stack
 * references: then ``on_temporaries(self, other, which)``, ``which`` having
 * bit 1 for ``self`` and bit 2 for ``other``. Made with ``arity=1``, it is a
 * unary operator (``__neg__``): ``plain(self)``, or ``on_temporaries(self,
 * 1)``. What may be done with such an operand is the caller's to prove
 * (cowarray/_operators.py); this module only says which operands nothing
 * else can reach.
 *
 * Up to 3.13, and on PyPy, there is no such test; PROVES_TEMPORARIES is 0
 * there and the package does not install these callables.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>

#if PY_VERSION_HEX < 0x030C0000
#include <structmember.h>
#define Py_T_OBJECT_EX T_OBJECT_EX
#define Py_T_PYSSIZET T_PYSSIZET
#define Py_READONLY READONLY
#endif

#if PY_VERSION_HEX >= 0x030E0000 && !defined(PYPY_VERSION)
#define PROVES_TEMPORARIES 1
#else
#define PROVES_TEMPORARIES 0
#endif

typedef struct {
    PyObject_HEAD
    PyObject *plain;          /* (self, other) -> result */
    PyObject *on_temporaries; /* (self, other, which) -> result */
    PyObject *data_name;      /* the attribute holding an operand's backend array */
    PyObject *nbytes_name;    /* "nbytes" (held here: the module keeps no global state) */
    Py_ssize_t min_bytes;
    Py_ssize_t arity;         /* 2: ``__add__``, ...; 1: ``__neg__``, ... */
    vectorcallfunc vectorcall;
} TemporaryAwareOperator;

/* Whether ``operand`` is a temporary of the running operator: referenced
 * once, by the current frame's value stack. */
static int
is_temporary(PyObject *operand)
{
#if PROVES_TEMPORARIES
    /* (the count first: it answers most calls without the stack walk) */
    return Py_REFCNT(operand) == 1 && PyUnstable_Object_IsUniqueReferencedTemporary(operand);
#else
    (void)operand;
    return 0;
#endif
}

/* Whether ``operand``'s backend array holds at least min_bytes (any error,
 * or an operand without one: no). Reads only C attributes: a slot and an
 * ndarray's (or CuPy array's) ``nbytes``; no Python code runs. */
static int
is_big(TemporaryAwareOperator *op, PyObject *operand)
{
    PyObject *data = PyObject_GetAttr(operand, op->data_name);
    if (data == NULL) {
        PyErr_Clear();
        return 0;
    }
    PyObject *nbytes = PyObject_GetAttr(data, op->nbytes_name);
    Py_DECREF(data);
    if (nbytes == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t n = PyLong_Check(nbytes) ? PyLong_AsSsize_t(nbytes) : -1;
    Py_DECREF(nbytes);
    if (n == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return n >= op->min_bytes;
}

static PyObject *
operator_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    TemporaryAwareOperator *op = (TemporaryAwareOperator *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == op->arity && kwnames == NULL) {
        /* a unary operator (``-x``: self alone) or a binary one */
        PyObject *self = args[0], *other = nargs == 2 ? args[1] : NULL;
        long which = 0;
        if (is_temporary(self) && is_big(op, self)) {
            which |= 1;
        }
        if (other != NULL && Py_TYPE(other) == Py_TYPE(self) && is_temporary(other) &&
            is_big(op, other)) {
            which |= 2;
        }
        if (which) {
            PyObject *flags = PyLong_FromLong(which);
            if (flags == NULL) {
                return NULL;
            }
            PyObject *call[3] = {self, other, flags};
            if (other == NULL) {
                call[1] = flags;
            }
            PyObject *result = PyObject_Vectorcall(op->on_temporaries, call, nargs + 1, NULL);
            Py_DECREF(flags);
            return result;
        }
    }
    return PyObject_Vectorcall(op->plain, args, nargsf, kwnames);
}

static PyObject *
operator_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"plain", "on_temporaries", "data_name", "min_bytes", "arity", NULL};
    PyObject *plain, *on_temporaries, *data_name;
    Py_ssize_t min_bytes, arity = 2;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOUn|n:operator", keywords, &plain,
                                     &on_temporaries, &data_name, &min_bytes, &arity)) {
        return NULL;
    }
    if (arity != 1 && arity != 2) {
        PyErr_SetString(PyExc_ValueError, "operator(..., arity): 1 or 2");
        return NULL;
    }
    if (!PyCallable_Check(plain) || !PyCallable_Check(on_temporaries)) {
        PyErr_SetString(PyExc_TypeError, "operator(plain, on_temporaries, ...): both must be callable");
        return NULL;
    }
    TemporaryAwareOperator *op = (TemporaryAwareOperator *)type->tp_alloc(type, 0);
    if (op == NULL) {
        return NULL;
    }
    op->plain = Py_NewRef(plain);
    op->on_temporaries = Py_NewRef(on_temporaries);
    Py_INCREF(data_name);
    PyUnicode_InternInPlace(&data_name);
    op->data_name = data_name;
    op->nbytes_name = PyUnicode_InternFromString("nbytes");
    if (op->nbytes_name == NULL) {
        Py_DECREF(op);
        return NULL;
    }
    op->min_bytes = min_bytes;
    op->arity = arity;
    op->vectorcall = operator_vectorcall;
    return (PyObject *)op;
}

static int
operator_traverse(TemporaryAwareOperator *op, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(op->plain);
    Py_VISIT(op->on_temporaries);
    return 0;
}

static int
operator_clear(TemporaryAwareOperator *op)
{
    Py_CLEAR(op->plain);
    Py_CLEAR(op->on_temporaries);
    Py_CLEAR(op->data_name);
    Py_CLEAR(op->nbytes_name);
    return 0;
}

static void
operator_dealloc(TemporaryAwareOperator *op)
{
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    operator_clear(op);
    type->tp_free((PyObject *)op);
    Py_DECREF(type);
}

/* Bound like a function: ``x.__add__`` is a method of ``x``. */
static PyObject *
operator_get(PyObject *self, PyObject *obj, PyObject *type)
{
    (void)type;
    if (obj == NULL || obj == Py_None) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, obj);
}

/* ``__doc__``, ``__module__``, ``__name__``, ``__qualname__``: the plain
 * operator's (``__wrapped__`` is the operator itself, for inspect). */
static PyObject *
operator_forward(PyObject *self, void *name)
{
    return PyObject_GetAttrString(((TemporaryAwareOperator *)self)->plain, (const char *)name);
}

static PyGetSetDef operator_getset[] = {
    {"__doc__", operator_forward, NULL, NULL, "__doc__"},
    {"__module__", operator_forward, NULL, NULL, "__module__"},
    {"__name__", operator_forward, NULL, NULL, "__name__"},
    {"__qualname__", operator_forward, NULL, NULL, "__qualname__"},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *
operator_repr(TemporaryAwareOperator *op)
{
    return PyUnicode_FromFormat("<temporary-aware operator %R>", op->plain);
}

static PyMemberDef operator_members[] = {
    {"__wrapped__", Py_T_OBJECT_EX, offsetof(TemporaryAwareOperator, plain), Py_READONLY,
     "the operator itself, called for operands that are not temporaries"},
    {"__vectorcalloffset__", Py_T_PYSSIZET, offsetof(TemporaryAwareOperator, vectorcall), Py_READONLY, NULL},
    {NULL},
};

static PyType_Slot operator_slots[] = {
    {Py_tp_new, operator_new},
    {Py_tp_dealloc, operator_dealloc},
    {Py_tp_traverse, operator_traverse},
    {Py_tp_clear, operator_clear},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_descr_get, operator_get},
    {Py_tp_repr, operator_repr},
    {Py_tp_members, operator_members},
    {Py_tp_getset, operator_getset},
    /* (no tp_doc: an instance's __doc__ is its operator's, through the getset) */
    {0, NULL},
};

static PyType_Spec operator_spec = {
    .name = "cowarray._temporaries.operator",
    .basicsize = sizeof(TemporaryAwareOperator),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
             Py_TPFLAGS_METHOD_DESCRIPTOR | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = operator_slots,
};

static int
module_exec(PyObject *module)
{
    PyObject *type = PyType_FromModuleAndSpec(module, &operator_spec, NULL);
    if (type == NULL) {
        return -1;
    }
    if (PyModule_AddObjectRef(module, "operator", type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    Py_DECREF(type);
    return PyModule_AddIntConstant(module, "PROVES_TEMPORARIES", PROVES_TEMPORARIES);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#ifdef Py_GIL_DISABLED
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "cowarray._temporaries",
    .m_doc = "Which operands of a Python operator only the interpreter's stack references.",
    .m_size = 0,
    .m_slots = module_slots,
};

PyMODINIT_FUNC
PyInit__temporaries(void)
{
    return PyModuleDef_Init(&module_def);
}
