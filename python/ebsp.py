"""libebsp from Python: a small ctypes binding (standard library only).

    import ebsp
    lib = ebsp.load()                    # finds lib/libebsp.so, or $EBSP_LIB
    @ebsp.kernel
    def hello():
        lib.bsp_begin()
        lib.ebsp_message(b"hello from %d", lib.bsp_pid())
        lib.bsp_end()
        return 0
    ebsp.run(hello, nprocs=16)

A Python kernel is registered as a callback (ebsp_register_kernel): all
cores run it on their own threads and share the interpreter's globals, so
per-core data must be indexed by bsp_pid(). Flush sys.stdout before a run:
the library prints through C stdio, which has its own buffer.
"""
import ctypes
import os
import sys

KERNEL = ctypes.CFUNCTYPE(ctypes.c_int)
CALLBACK = ctypes.CFUNCTYPE(None)

_SIGNATURES = {
    # host
    "bsp_init": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p]),
    "ebsp_spmd": (ctypes.c_int, []),
    "ebsp_register_kernel": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_void_p]),
    "ebsp_set_sync_callback": (None, [ctypes.c_void_p]),
    "ebsp_set_end_callback": (None, [ctypes.c_void_p]),
    # both (one symbol serves host and cores)
    "bsp_nprocs": (ctypes.c_int, []),
    "bsp_end": (ctypes.c_int, []),
    # core
    "bsp_pid": (ctypes.c_int, []),
    "bsp_sync": (None, []),
    "ebsp_barrier": (None, []),
    "ebsp_host_sync": (None, []),
    "bsp_time": (ctypes.c_float, []),
    "ebsp_raw_time": (ctypes.c_uint, []),
}

_lib = None
_keep = []  # callbacks must outlive the runs that use them


def default_path():
    """$EBSP_LIB, else lib/libebsp.so of the source tree this file is in."""
    env = os.environ.get("EBSP_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(here), "lib", "libebsp.so")


def load(path=None):
    """Loads the library once (RTLD_GLOBAL, so kernel files can bind to it)."""
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(path or default_path(), mode=ctypes.RTLD_GLOBAL)
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
        # bsp_begin is int(int) on the host and void(void) on a core: the
        # same symbol, so leave its arguments untyped.
        lib.bsp_begin.restype = ctypes.c_int
        _lib = lib
    return _lib


def kernel(fn):
    """Wraps a Python function as a C kernel callback."""
    cb = KERNEL(fn)
    _keep.append(cb)
    return cb


def callback(fn):
    """Wraps a Python function as a void(void) host callback."""
    cb = CALLBACK(fn)
    _keep.append(cb)
    return cb


def run(kern, nprocs=None, name=None):
    """Registers kern, runs it once on nprocs cores; returns ebsp_spmd's result."""
    lib = load()
    name = (name or "python-kernel-%d" % id(kern)).encode()
    if not lib.ebsp_register_kernel(name, ctypes.cast(kern, ctypes.c_void_p)):
        raise RuntimeError("ebsp_register_kernel failed")
    if not lib.bsp_init(name, 0, None):
        raise RuntimeError("bsp_init failed")
    if not lib.bsp_begin(ctypes.c_int(nprocs or lib.bsp_nprocs())):
        raise RuntimeError("bsp_begin failed")
    sys.stdout.flush()
    try:
        return lib.ebsp_spmd()
    finally:
        lib.bsp_end()
