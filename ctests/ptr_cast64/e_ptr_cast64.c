/* 64-bit build: Parallella code keeps buffer addresses in 32-bit integers.
 * The emulated memories (ebsp_malloc, ebsp_ext_malloc, stream buffers) and
 * the cores' stacks lie below 2 GiB, so such a cast survives (EBSP's
 * primitives example does it with a local array). (Through size_t only to
 * keep -Werror quiet; the truncation is the same as a plain cast.) */
#include <e_bsp.h>
#include <stddef.h>

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    int *local = ebsp_malloc(64);
    unsigned ul = (unsigned)(size_t)local;
    int il = (int)(size_t)local;
    ((int *)(size_t)ul)[3] = 100 + s;
    int *ext = ebsp_ext_malloc(64);
    unsigned ue = (unsigned)(size_t)ext;
    ((int *)(size_t)ue)[1] = 200 + s;

    ebsp_stream stream;
    int ok_stream = 0;
    if (s == 0 && bsp_stream_open(&stream, 0)) {
        void *token = NULL;
        int n = bsp_stream_move_down(&stream, &token, 0);
        unsigned ut = (unsigned)(size_t)token;
        ok_stream = n == 16 && ((int *)(size_t)ut)[1] == 42;
        bsp_stream_close(&stream);
    }
    float on_stack[8];
    int is = (int)(size_t)on_stack;
    ((float *)(size_t)is)[2] = 2.5f;
    ebsp_message("a local array through an int: %d", on_stack[2] == 2.5f);
    ebsp_message("local %d %d, ext %d, ptrs survive unsigned: %d%s", local[3], (int *)(size_t)il == local, ext[1],
                 (int *)(size_t)ul == local && (int *)(size_t)ue == ext, s == 0 ? (ok_stream ? ", stream token ok" : ", stream token WRONG") : "");
    ebsp_free(local);
    ebsp_free(ext);
    bsp_end();
    return 0;
}
