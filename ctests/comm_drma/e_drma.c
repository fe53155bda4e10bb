/* DRMA on every core: ring puts, gets served before puts, unbuffered
 * hpput/hpget after a barrier, bsp_direct_get and direct addresses. */
#include <e_bsp.h>

int ring;
int val;
int arr[32];
long long wide[4];

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid();
    int next = (s + 1) % p, prev = (s + p - 1) % p;
    ring = -1;
    val = s;
    for (int i = 0; i < 32; i++)
        arr[i] = 0;
    bsp_push_reg(&ring, sizeof ring);
    bsp_push_reg(&val, sizeof val);
    bsp_push_reg(arr, sizeof arr);
    bsp_push_reg(wide, (int)sizeof wide);
    bsp_sync();

    /* ring: my pid into the next core's ring */
    bsp_put(next, &s, &ring, 0, sizeof s);
    /* get-before-put: put 100+s into next's val, get prev's val */
    int newval = 100 + s, oldprev = -1;
    bsp_put(next, &newval, &val, 0, sizeof newval);
    newval = -5; /* the put copied the value at the call */
    bsp_get(prev, &val, 0, &oldprev, sizeof oldprev);
    /* offsets: every core writes its pid at index s of core 0's arr */
    bsp_put(0, &s, arr, s * (int)sizeof(int), sizeof s);
    bsp_sync();
    int arr_ok = 1;
    if (s == 0)
        for (int i = 0; i < p; i++)
            arr_ok &= arr[i] == i;
    ebsp_message("ring from %d, get saw %d, val now %d, arr %s", ring, oldprev, val, arr_ok ? "ok" : "WRONG");

    /* unbuffered: hpput into the next core, barrier, hpget from it */
    long long w = 1000 + s;
    bsp_hpput(next, &w, wide, 8, sizeof w);
    ebsp_barrier();
    long long back = 0, mine = 0;
    bsp_hpget(next, wide, 8, &back, sizeof back);
    bsp_direct_get(s, wide, 8, &mine, sizeof mine);
    long long *remote = ebsp_get_direct_address(prev, wide);
    void *none = ebsp_get_direct_address(prev, &w);
    ebsp_barrier();
    remote[3] = 7000 + s; /* into prev's wide[3] */
    bsp_sync();
    ebsp_message("hpget %lld, direct %lld, via address %lld, unregistered %s", back, mine, wide[3],
                 none ? "non-NULL" : "NULL");
    bsp_pop_reg(wide);
    bsp_pop_reg(&ring);
    bsp_pop_reg(arr);
    bsp_pop_reg(&val);
    bsp_sync();
    bsp_end();
    return 0;
}
