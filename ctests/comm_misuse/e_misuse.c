/* Run with EBSP_CHECKS=strict: the documented BSP rules, each misuse named. */
/* One misuse of the communication calls per run, chosen by the host with
 * a message sent down; case 0 is a healthy run. */
#include <e_bsp.h>
#include <stddef.h>

long long x;
long long other[4];

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), c = 0, status;
    bsp_get_tag(&status, NULL);
    bsp_move(&c, sizeof c);
    long long v = s;
    int t;
    x = 0;
    bsp_push_reg(&x, sizeof x);
    bsp_sync();
    switch (c) {
    case 1: /* put to an unregistered address */
        if (s == 1)
            bsp_put(0, &v, other, 0, sizeof v);
        break;
    case 2: /* get beyond the registered size */
        if (s == 2)
            bsp_get(1, &x, 4, &v, sizeof v);
        break;
    case 3: /* hpput to a core that does not exist */
        if (s == 3)
            bsp_hpput(4, &v, &x, 0, sizeof v);
        break;
    case 4: /* negative size */
        if (s == 0)
            bsp_hpget(1, &x, 0, &v, -8);
        break;
    case 5: /* NULL source */
        if (s == 2)
            bsp_put(0, NULL, &x, 0, sizeof v);
        break;
    case 6: /* registration counts differ */
        bsp_push_reg(other, sizeof other);
        if (s == 3)
            bsp_push_reg(&v, sizeof v);
        break;
    case 7: /* pop of something never registered */
        if (s == 1)
            bsp_pop_reg(other);
        break;
    case 8: /* cores withdraw different registrations */
        bsp_push_reg(other, sizeof other);
        bsp_sync();
        bsp_pop_reg(s == 2 ? (void *)other : (void *)&x);
        break;
    case 9: /* tag sizes differ */
        t = s == 1 ? 8 : 4;
        bsp_set_tagsize(&t);
        break;
    case 10: /* send up before the last superstep */
        if (s == 0)
            ebsp_send_up(NULL, &v, sizeof v);
        break;
    case 11: /* send to a core that does not exist */
        if (s == 1)
            bsp_send(-1, NULL, &v, sizeof v);
        break;
    case 12:
        if (s == 2)
            ebsp_get_direct_address(17, &x);
        break;
    case 13: /* NULL tag with a tag size */
        t = 4;
        bsp_set_tagsize(&t);
        bsp_sync();
        if (s == 3)
            bsp_send(0, NULL, &v, sizeof v);
        break;
    case 14: /* put beyond the range at an offset */
        if (s == 0)
            bsp_put(3, &v, &x, 8, 1);
        break;
    case 15: /* negative offset */
        if (s == 1)
            bsp_get(0, &x, -4, &v, 4);
        break;
    default:
        bsp_put((s + 1) % bsp_nprocs(), &v, &x, 0, sizeof v);
        break;
    }
    bsp_sync();
    if (c == 0)
        ebsp_message("healthy run: x = %lld", x);
    bsp_end();
    return 0;
}
