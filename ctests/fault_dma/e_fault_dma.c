/* DMA transfers with bad ends (case from the host): each is reported on
 * the core, naming the call and the argument, and the run stops; a
 * stream's token from memory that cannot be read is reported and not
 * moved, as bsp_stream_move_up reports its other misuse. */
#include <e_bsp.h>
#include <stdint.h>
#include <sys/mman.h>

int main(void)
{
    bsp_begin();
    int c = 0;
    bsp_move(&c, sizeof c);
    char *lm = ebsp_malloc(256);
    ebsp_dma_handle h;
    if (bsp_pid() == 1) {
        switch (c) {
        case 1: ebsp_dma_push(&h, NULL, lm, 16); break;
        case 2: ebsp_dma_push(&h, lm, NULL, 16); break;
        case 3: ebsp_dma_push(&h, lm, (void *)0x10, 16); break;
        case 4: ebsp_dma_push(&h, (void *)0x10, lm, 16); break;
        case 5: ebsp_dma_push(&h, lm, lm + 128, 1 << 30); break;
        case 6: { /* a page that cannot be read (kept mapped: no one else gets it) */
            char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            ebsp_dma_push(&h, lm, page, 16);
            break;
        }
        case 7: { /* a page that becomes unreadable between the push and the wait */
            char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            ebsp_dma_push(&h, lm, page, 16);
            mprotect(page, 4096, PROT_NONE);
            break;
        }
        case 8: case 9: case 10: { /* the data of a stream's token: the same checks */
            ebsp_stream s;
            char *page = mmap(NULL, 4096, c == 10 ? PROT_READ | PROT_WRITE : PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            bsp_stream_open(&s, 0);
            int moved = bsp_stream_move_up(&s, c == 8 ? (void *)0x10 : page, 16, 0);
            ebsp_message("moved up %d bytes", moved);
            if (c == 10)
                mprotect(page, 4096, PROT_NONE);
            bsp_stream_close(&s);
            break;
        }
        default: ebsp_dma_push(&h, lm, lm + 128, 16); break;
        }
        if (c < 8 || c > 10) {
            ebsp_dma_wait(&h);
            ebsp_message("transfer done");
        }
    }
    bsp_sync();
    bsp_end();
    return 0;
}
