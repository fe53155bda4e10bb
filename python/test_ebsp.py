"""Tests of the ctypes binding: Python kernels on 16 emulated cores."""
import os
import subprocess
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ebsp  # noqa: E402

lib = ebsp.load()


class KernelTests(unittest.TestCase):
    def test_sixteen_cores_each_run_once(self):
        seen = [0] * 32
        steps = [0] * 32
        threads = set()

        @ebsp.kernel
        def count():
            lib.bsp_begin()
            pid = lib.bsp_pid()
            seen[pid] += 1
            threads.add(threading.get_ident())
            for _ in range(3):
                lib.bsp_sync()
                steps[pid] += 1
            lib.bsp_end()
            return 0

        self.assertEqual(ebsp.run(count, nprocs=16), 1)
        self.assertEqual(seen[:16], [1] * 16)
        self.assertEqual(seen[16:], [0] * 16)
        self.assertEqual(steps[:16], [3] * 16)
        self.assertEqual(len(threads), 16, "one thread per core")

    def test_run_refuses_what_is_not_a_function(self):
        # a string (or a number) as the kernel would be called by every
        # core and crash the process; a plain function is wrapped
        for bad in ("notakernel", 16, None):
            with self.assertRaises(TypeError):
                ebsp.run(bad, nprocs=2)
        ran = []

        def plain():
            lib.bsp_begin()
            ran.append(lib.bsp_pid())
            lib.bsp_end()
            return 0

        self.assertEqual(ebsp.run(plain, nprocs=2), 1)
        self.assertEqual(sorted(ran), [0, 1])

    def test_abort_then_next_run_works(self):
        finished = []

        @ebsp.kernel
        def aborting():
            lib.bsp_begin()
            if lib.bsp_pid() == 5:
                lib.bsp_abort(b"python core %d stops the run", lib.bsp_pid())
            lib.bsp_sync()  # returns at once once the run is stopped
            finished.append(lib.bsp_pid())
            lib.bsp_end()
            return 0

        self.assertEqual(ebsp.run(aborting, nprocs=16), 0)
        self.assertEqual(sorted(finished), list(range(16)), "every core left its kernel")

        @ebsp.kernel
        def fine():
            lib.bsp_begin()
            lib.bsp_sync()
            lib.bsp_end()
            return 0

        self.assertEqual(ebsp.run(fine, nprocs=16), 1)

    def test_host_sync_callback_runs_on_the_host_thread(self):
        calls = []
        cb = ebsp.callback(lambda: calls.append(threading.get_ident()))

        @ebsp.kernel
        def syncing():
            lib.bsp_begin()
            lib.ebsp_host_sync()
            lib.ebsp_host_sync()
            lib.bsp_end()
            return 0

        lib.ebsp_set_sync_callback(ctypes_ptr(cb))
        try:
            self.assertEqual(ebsp.run(syncing, nprocs=4), 1)
        finally:
            lib.ebsp_set_sync_callback(None)
        self.assertEqual(calls, [threading.get_ident()] * 2)

    def test_hello_prints_sixteen_lines(self):
        here = os.path.dirname(os.path.abspath(__file__))
        out = subprocess.run([sys.executable, os.path.join(here, "hello.py")],
                             capture_output=True, text=True, timeout=60, check=True).stdout
        lines = out.splitlines()
        core_lines = sorted(line for line in lines if line.startswith("$"))
        self.assertEqual(core_lines,
                         ["$%02d: Hello World from processor %d / 16" % (i, i) for i in range(16)])
        self.assertEqual(lines[-1], "python host: ebsp_spmd returned 1")

    def test_register_kernel_refuses_a_number(self):
        # a number where the kernel's address belongs (issue 33): every
        # core would jump to it and die without a word; refused, with a line
        script = (
            "import ctypes, sys\n"
            "lib = ctypes.CDLL(sys.argv[1])\n"
            "lib.ebsp_register_kernel.argtypes = [ctypes.c_char_p, ctypes.c_void_p]\n"
            "print(lib.ebsp_register_kernel(b'k', 12345))\n")
        out = subprocess.run([sys.executable, "-c", script, ebsp.default_path()],
                             capture_output=True, text=True, timeout=60, check=True)
        self.assertEqual(out.stdout, "0\n")
        self.assertEqual(out.stderr, "ebsp: ERROR: ebsp_register_kernel: the kernel at 0x3039 is not a function: "
                                     "there is no code at that address\n")

    def test_file_kernel_with_a_locally_loaded_library(self):
        # ctypes loads with RTLD_LOCAL by default; kernel files must still
        # find bsp_* (the library promotes itself to global scope).
        import tempfile
        here = os.path.dirname(os.path.abspath(__file__))
        root = os.path.dirname(here)
        with tempfile.TemporaryDirectory() as tmp:
            kernel = os.path.join(tmp, "e_hello.elf")
            subprocess.run(["gcc", "-shared", "-fPIC", "-I" + os.path.join(root, "include"),
                            os.path.join(root, "examples", "hello", "e_hello.c"), "-o", kernel],
                           check=True)
            script = (
                "import ctypes, sys\n"
                "lib = ctypes.CDLL(sys.argv[1])\n"
                "assert lib.bsp_init(sys.argv[2].encode(), 0, None) == 1\n"
                "assert lib.bsp_begin(16) == 1\n"
                "ok = lib.ebsp_spmd()\n"
                "lib.bsp_end()\n"
                "print('ok', ok)\n")
            out = subprocess.run([sys.executable, "-c", script, ebsp.default_path(), kernel],
                                 capture_output=True, text=True, timeout=60, check=True).stdout
        lines = out.splitlines()
        self.assertEqual(len([x for x in lines if x.startswith("$")]), 16)
        self.assertIn("$07: Hello World from processor 7 / 16 (my global: 8)", lines)
        self.assertEqual(lines[-1], "ok 1")

    def test_messages_and_drma_from_python(self):
        import ctypes
        n = 16
        inbox = (ctypes.c_int * (n * n))()  # one registered row per core
        got_down = [None] * n

        @ebsp.kernel
        def exchange():
            lib.bsp_begin()
            pid, p = lib.bsp_pid(), lib.bsp_nprocs()
            status, tag, payload = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
            lib.bsp_get_tag(ctypes.byref(status), ctypes.byref(tag))
            lib.bsp_move(ctypes.byref(payload), 4)
            got_down[pid] = (status.value, tag.value, payload.value)
            row = ctypes.byref(inbox, pid * p * 4)
            lib.bsp_push_reg(row, p * 4)
            lib.bsp_sync()
            mine = ctypes.c_int(1000 + pid)
            for dst in range(p):  # all-to-all: my value into slot pid of every row
                lib.bsp_put(dst, ctypes.byref(mine), row, pid * 4, 4)
            lib.bsp_sync()
            total = sum(inbox[pid * p + i] for i in range(p))
            up_tag, up = ctypes.c_int(pid), ctypes.c_int(total)
            lib.ebsp_send_up(ctypes.byref(up_tag), ctypes.byref(up), 4)
            lib.bsp_end()
            return 0

        self.assertEqual(lib.ebsp_register_kernel(b"exchange", ctypes.cast(exchange, ctypes.c_void_p)), 1)
        self.assertEqual(lib.bsp_init(b"exchange", 0, None), 1)
        self.assertEqual(lib.bsp_begin(n), 1)
        tagsize = ctypes.c_int(4)
        lib.ebsp_set_tagsize(ctypes.byref(tagsize))
        for pid in range(n):
            tag, payload = ctypes.c_int(7), ctypes.c_int(100 + pid)
            lib.ebsp_send_down(pid, ctypes.byref(tag), ctypes.byref(payload), 4)
        self.assertEqual(lib.ebsp_spmd(), 1)
        packets, nbytes = ctypes.c_int(), ctypes.c_int()
        lib.ebsp_qsize(ctypes.byref(packets), ctypes.byref(nbytes))
        self.assertEqual((packets.value, nbytes.value), (n, 4 * n))
        totals = {}
        for _ in range(n):
            status, tag, value = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
            lib.ebsp_get_tag(ctypes.byref(status), ctypes.byref(tag))
            lib.ebsp_move(ctypes.byref(value), 4)
            totals[tag.value] = value.value
        lib.bsp_end()
        self.assertEqual(got_down, [(4, 7, 100 + pid) for pid in range(n)])
        want = sum(1000 + i for i in range(n))
        self.assertEqual(totals, {pid: want for pid in range(n)})


def ctypes_ptr(cb):
    import ctypes
    return ctypes.cast(cb, ctypes.c_void_p)


if __name__ == "__main__":
    unittest.main(verbosity=2)
