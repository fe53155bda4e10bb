#include <e_bsp.h>

static void *shared;

int main(void)
{
    bsp_begin();
    int pid = bsp_pid();
    void *chunk = 0;
    ebsp_open_up_stream(&chunk, 0);
    ebsp_free(chunk); /* 4 bytes into the stream's buffer, as EBSP's LU example does */
    char *block = ebsp_malloc(64);
    ebsp_free(block + 8);
    ebsp_free(block);
    ebsp_free(block); /* freed already */
    if (pid == 0) {
        char *ext = ebsp_ext_malloc(64);
        ebsp_free(ext);
        ebsp_free(ext);
    }
    int local_var;
    ebsp_free(&local_var);
    if (pid == 1)
        shared = ebsp_malloc(16);
    bsp_push_reg(&shared, sizeof shared);
    bsp_sync();
    if (pid == 0) {
        void *theirs;
        bsp_hpget(1, &shared, 0, &theirs, sizeof theirs);
        ebsp_free(theirs); /* core 1's block */
        ebsp_free(0);
    }
    ebsp_message("still running");
    bsp_end();
    return 0;
}
