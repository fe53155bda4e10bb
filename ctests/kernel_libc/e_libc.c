/*
 * rand, srand and strtok in a kernel keep their state per core, as each
 * core's own newlib did on the board, and rand gives newlib's numbers:
 * core 0 draws without srand, the others after srand(pid); each core
 * tokenizes its own string one token per superstep while the other cores
 * tokenize theirs in between.
 */
#include <e_bsp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    if (s > 0)
        srand((unsigned)s);
    int a = rand();
    bsp_sync(); /* the other cores draw in between */
    int b = rand(), c = rand();
    char text[32], tokens[64] = "";
    snprintf(text, sizeof text, "c%d,x%d,,y%d", s, s, s);
    for (char *t = strtok(text, ","); t; t = strtok(NULL, ",")) {
        strcat(tokens, t);
        strcat(tokens, " ");
        bsp_sync(); /* the other cores call strtok in between */
    }
    ebsp_message("rand %d %d %d tokens %s", a, b, c, tokens);
    bsp_end();
    return 0;
}
