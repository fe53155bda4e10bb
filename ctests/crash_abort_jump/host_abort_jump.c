/* A core that calls abort(), or calls an address that holds no code (a
 * fixed local address among them, which the library emulates for data
 * accesses only), ends the program as any crash of a core does; the
 * library names the core first, and abort keeps its exit status, 134.
 * Each case runs in a process of its own (the host runs itself), at the
 * default and the strict check level. ebsp_register_kernel refuses a
 * kernel that is not code. */
#include <sys/mman.h>
#include <host_bsp.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include "../wild_page.h"

extern char **environ;

enum { CASES = 4 };

static int data_word = 1;
static int kernel(void) { return 0; }

static int child(const char *checks, int c, int argc, char **argv)
{
    setenv("EBSP_CHECKS", checks, 1);
    if (!bsp_init("e_abort_jump.elf", argc, argv) || !bsp_begin(2))
        return 2;
    int zero = 0;
    ebsp_set_tagsize(&zero);
    for (int pid = 0; pid < 2; pid++)
        ebsp_send_down(pid, NULL, &c, sizeof c);
    printf("child: ebsp_spmd returned %d (not reached)\n", ebsp_spmd());
    return 0;
}


int main(int argc, char **argv)
{
    reserve_wild_page();
    if (argc == 4)
        return child(argv[2], atoi(argv[3]), argc, argv);
    printf("register 0x7000: %d\n", ebsp_register_kernel("a", (int (*)(void))(uintptr_t)0x7000));
    printf("register 12345: %d\n", ebsp_register_kernel("b", (int (*)(void))(uintptr_t)12345));
    printf("register data: %d\n", ebsp_register_kernel("c", (int (*)(void))(void *)&data_word));
    printf("register code: %d\n", ebsp_register_kernel("d", kernel));
    const char *levels[] = {"board", "strict"};
    for (int l = 0; l < 2; l++) {
        for (int c = 1; c <= CASES; c++) {
            char num[8];
            snprintf(num, sizeof num, "%d", c);
            char *args[] = {argv[0], "child", (char *)levels[l], num, NULL};
            printf("host: EBSP_CHECKS=%s case %d\n", levels[l], c);
            fflush(stdout);
            fflush(stderr);
            pid_t pid;
            int status;
            if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) != 0 || waitpid(pid, &status, 0) != pid)
                return 1;
            if (WIFSIGNALED(status))
                printf("host: killed by signal %d, exit status %d\n", WTERMSIG(status), 128 + WTERMSIG(status));
            else
                printf("host: exit status %d\n", WEXITSTATUS(status));
        }
    }
    return 0;
}
