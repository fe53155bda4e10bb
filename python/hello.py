"""The hello example with a Python host and a Python kernel."""
import ebsp

lib = ebsp.load()


@ebsp.kernel
def hello():
    lib.bsp_begin()
    lib.ebsp_message(b"Hello World from processor %d / %d", lib.bsp_pid(), lib.bsp_nprocs())
    lib.bsp_end()
    return 0


if __name__ == "__main__":
    ok = ebsp.run(hello, nprocs=16)
    print("python host: ebsp_spmd returned", ok)
