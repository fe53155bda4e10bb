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

_P = ctypes.c_void_p
_I = ctypes.c_int
_IP = ctypes.POINTER(ctypes.c_int)
_PP = ctypes.POINTER(ctypes.c_void_p)

# (result, argument types) of every function of host_bsp.h and e_bsp.h.
# ebsp_message and bsp_abort are variadic: their arguments stay untyped.
_SIGNATURES = {
    # host
    "bsp_init": (_I, [ctypes.c_char_p, _I, _P]),
    "ebsp_spmd": (_I, []),
    "ebsp_register_kernel": (_I, [ctypes.c_char_p, _P]),
    "ebsp_set_sync_callback": (None, [_P]),
    "ebsp_set_end_callback": (None, [_P]),
    "ebsp_set_tagsize": (None, [_IP]),
    "ebsp_send_down": (None, [_I, _P, _P, _I]),
    "ebsp_qsize": (None, [_IP, _IP]),
    "ebsp_get_tag": (None, [_IP, _P]),
    "ebsp_move": (None, [_P, _I]),
    "ebsp_hpmove": (_I, [_PP, _PP]),
    "bsp_stream_create": (_P, [_I, _I, _P]),
    "ebsp_write": (_I, [_I, _P, ctypes.c_long, _I]),
    "ebsp_read": (_I, [_I, ctypes.c_long, _P, _I]),
    "ebsp_create_down_stream": (None, [_P, _I, _I, _I]),
    "ebsp_create_up_stream": (_P, [_I, _I, _I]),
    # both (one symbol serves host and cores)
    "bsp_nprocs": (_I, []),
    "bsp_end": (_I, []),
    "ebsp_get_tagsize": (_I, []),
    # core
    "bsp_pid": (_I, []),
    "bsp_time": (ctypes.c_float, []),
    "ebsp_host_time": (ctypes.c_float, []),
    "ebsp_raw_time": (ctypes.c_uint, []),
    "bsp_sync": (None, []),
    "ebsp_barrier": (None, []),
    "ebsp_host_sync": (None, []),
    "bsp_push_reg": (None, [_P, _I]),
    "bsp_pop_reg": (None, [_P]),
    "bsp_put": (None, [_I, _P, _P, _I, _I]),
    "bsp_hpput": (None, [_I, _P, _P, _I, _I]),
    "bsp_get": (None, [_I, _P, _I, _P, _I]),
    "bsp_hpget": (None, [_I, _P, _I, _P, _I]),
    "bsp_direct_get": (None, [_I, _P, _I, _P, _I]),
    "ebsp_get_direct_address": (_P, [_I, _P]),
    "bsp_set_tagsize": (None, [_IP]),
    "bsp_send": (None, [_I, _P, _P, _I]),
    "bsp_qsize": (None, [_IP, _IP]),
    "bsp_get_tag": (None, [_IP, _P]),
    "bsp_move": (None, [_P, _I]),
    "bsp_hpmove": (_I, [_PP, _PP]),
    "ebsp_send_up": (None, [_P, _P, _I]),
    "ebsp_malloc": (_P, [ctypes.c_uint]),
    "ebsp_ext_malloc": (_P, [ctypes.c_uint]),
    "ebsp_free": (None, [_P]),
    "ebsp_memcpy": (None, [_P, _P, ctypes.c_size_t]),
    "ebsp_local_address": (_P, [ctypes.c_uint]),
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
    """Registers kern, runs it once on nprocs cores; returns ebsp_spmd's result.

    kern is a function wrapped by kernel(); a plain Python function is
    wrapped here. Anything else is a TypeError: handed to the library as a
    pointer, it would be called on every core and crash the process."""
    lib = load()
    if not isinstance(kern, KERNEL):
        if not callable(kern):
            raise TypeError("ebsp.run: the kernel must be a function (or ebsp.kernel(fn)), not %s"
                            % type(kern).__name__)
        kern = kernel(kern)
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
