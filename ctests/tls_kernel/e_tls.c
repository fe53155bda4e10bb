/*
 * Each core is a thread of its own to the kernel file: its __thread
 * variables (dynamic TLS: the kernel is a dlopen'ed object), errno and
 * pthread_self() keep their values across 100 bsp_syncs and ebsp_barriers
 * while the other cores run in between. Meanwhile every core uses the C
 * library's per-thread state: malloc's caches, stdio's locks (lines
 * through one FILE), a locale of its own (uselocale), strerror_r and
 * strtok_r. Each run's cores are fresh threads, as each ebsp_spmd on the
 * board loads fresh cores' registers: their __thread variables start at
 * their initial values (the globals keep theirs). One line per core and
 * run.
 */
#include <e_bsp.h>
#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __thread int mine = -1;
static __thread char label[16];
static __thread long sum;
static int runs; /* a global: each core's own kernel instance */

int main(void)
{
    bsp_begin();
    int p = bsp_pid(), bad = 0;
    pthread_t self = pthread_self();
    int *m = &mine;
    if (mine != -1 || sum != 0)
        bad++; /* each run's cores are fresh threads */
    mine = p;
    snprintf(label, sizeof label, "core-%d", p);
    locale_t own = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    uselocale(own);
    FILE *sink = fopen("/dev/null", "w");
    for (int s = 0; s < 100; s++) {
        errno = 100 + p + s;
        char *block = malloc((size_t)(16 + 8 * p + s));
        memset(block, p, (size_t)(16 + 8 * p + s));
        sum += block[0];
        fprintf(sink, "core %d step %d\n", p, s); /* stdio's lock, owned per thread */
        if (s % 2)
            bsp_sync();
        else
            ebsp_barrier();
        free(block);
        char text[32] = "a b c", *save = NULL, *tok = strtok_r(text, " ", &save);
        char msg[64];
        strerror_r(ENOENT, msg, sizeof msg);
        char want[16];
        snprintf(want, sizeof want, "core-%d", p);
        if (errno != 100 + p + s || *m != p || mine != p || strcmp(label, want) != 0 || !pthread_equal(pthread_self(), self) ||
            uselocale((locale_t)0) != own || !tok || strcmp(tok, "a") != 0)
            bad++;
    }
    fclose(sink);
    uselocale(LC_GLOBAL_LOCALE);
    freelocale(own);
    runs++;
    ebsp_message("run %d: %s, sum %ld", runs, bad ? "thread state lost" : "thread state kept", sum);
    bsp_end();
    return 0;
}
