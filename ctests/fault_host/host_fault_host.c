/* Host calls handed memory they cannot read or write: each prints a line
 * on stderr naming the call and the argument, and fails as its header says
 * (returns 0 or NULL, or does nothing); the program goes on. A small
 * number such as 0x10 is never an address; the other bad pointers are
 * found by touching the memory. */
#include <host_bsp.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#define SHOW(what, call) (printf("%s: %d\n", what, (int)(call)), fflush(stdout))
#define SHOW_PTR(what, call) (printf("%s: %s\n", what, (call) ? "an area" : "NULL"), fflush(stdout))

static int kernel(void)
{
    return 0;
}

int main(int argc, char **argv)
{
    /* no access, and kept mapped: no other mapping takes its place */
    char *noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    SHOW("bsp_init of the name at 0x10", bsp_init((char *)0x10, argc, argv));
    SHOW("bsp_init of a name without access", bsp_init(noaccess, argc, argv));
    SHOW("ebsp_register_kernel of the name at 0x10", ebsp_register_kernel((char *)0x10, kernel));
    SHOW("ebsp_register_kernel of a kernel at 0x10", ebsp_register_kernel("k", (int (*)(void))(uintptr_t)0x10));
    if (!bsp_init("e_fault_host.elf", argc, argv) || !bsp_begin(2))
        return 2;
    char buf[64] = "sixteen bytes...";
    static const char ro[16] = "read-only";
#if UINTPTR_MAX > 0xffffffffu
    off_t wild = (off_t)0x4142434445464748LL; /* no address at all: not canonical */
#else
    off_t wild = (off_t)0x123456; /* the 32-bit build: low, above every offset, unmapped */
#endif

    SHOW("ebsp_write from 0x10", ebsp_write(0, (void *)0x10, 0, 16));
    SHOW("ebsp_read into 0x10", ebsp_read(0, 0, (void *)0x10, 16));
    SHOW("ebsp_write from memory without access", ebsp_write(0, noaccess, 0, 16));
    SHOW("ebsp_read into read-only memory", ebsp_read(0, 0, (void *)ro, 8));
    SHOW("ebsp_write to offset 0x100000", ebsp_write(0, buf, 0x100000, 16));
    SHOW("ebsp_read from offset 0x100000", ebsp_read(0, 0x100000, buf, 16));
    SHOW("ebsp_write to a wild address", ebsp_write(0, buf, wild, 16));
    SHOW("ebsp_read from a wild address", ebsp_read(0, wild, buf, 16));

    int zero = 0, sixteen = 16;
    ebsp_set_tagsize(&zero);
    ebsp_send_down(0, NULL, (void *)0x10, 16);
    ebsp_send_down(0, NULL, buf, INT_MAX);
    ebsp_send_down(0, NULL, noaccess, 16);
    ebsp_set_tagsize(&sixteen);
    ebsp_send_down(0, (void *)0x20, buf, 16);
    ebsp_send_down(0, noaccess, buf, 16);
    ebsp_set_tagsize(&zero);
    ebsp_set_tagsize((int *)0x10);
    printf("messages sent down\n");
    fflush(stdout);

    SHOW_PTR("bsp_stream_create from 0x10", bsp_stream_create(64, 16, (void *)0x10));
    SHOW_PTR("bsp_stream_create from memory without access", bsp_stream_create(64, 16, noaccess));
    ebsp_create_down_stream((void *)0x10, 0, 64, 16);
    ebsp_create_down_stream(noaccess, 0, 64, 16);

    SHOW("ebsp_spmd", ebsp_spmd());
    ebsp_qsize((int *)0x10, NULL);
    ebsp_get_tag((int *)0x10, buf);
    SHOW("healthy ebsp_write", ebsp_write(0, buf, 0, 16));
    bsp_end();
    return 1;
}
